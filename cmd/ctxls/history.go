package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/history"
	"github.com/ctxls/ctxls/providers/runs/storage"
	"github.com/ctxls/ctxls/providers/tokens"
)

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("history", stderr, false)
	run := fs.String("run", "", "only the messages of this chain run")
	showContext := fs.Bool("context", false, "print the history the next prompt would receive")
	model := fs.String("model", "", "model whose history budget applies (default: the configured default model)")
	maxMessages := fs.Int("recent", 0, "with --context: the newest N messages instead of a token budget")
	budget := fs.Int("budget", 0, "with --context: token budget instead of the model's history budget")
	limit := fs.Int("limit", 0, fmt.Sprintf("most messages to print (default %d)", history.DefaultListLimit))
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{msg: "history takes at most one conversation id"}
	}
	if len(pos) == 0 && (*run != "" || *showContext) {
		return usageError{msg: "--run and --context need a conversation id"}
	}
	spec := history.BuildSpec{Model: *model}
	switch {
	case *maxMessages != 0 && *budget != 0:
		return usageError{msg: "--recent and --budget exclude each other"}
	case *maxMessages != 0:
		spec.Strategy = history.StrategySpec{Kind: history.KindRecent, MaxMessages: maxMessages}
	case *budget != 0:
		spec.Strategy = history.StrategySpec{Kind: history.KindTokenBudget, TokenBudget: budget}
	}
	dir, err := workspaceDir("history", *fs.dir, nil)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(dir, stderr)
	if err != nil {
		return err
	}
	if *showContext {
		// Bad flags are errors even for a conversation without history.
		b, err := history.BudgetFor(cfg, spec.Model)
		if err != nil {
			return err
		}
		if _, _, err := history.NewStrategy(spec.Strategy, b); err != nil {
			return err
		}
	}
	// Reading must not create a database.
	db, err := storage.OpenExistingWorkspace(ctx, dir)
	if errors.Is(err, os.ErrNotExist) {
		if len(pos) == 0 {
			return printHistoryConversations(stdout, *fs.format, nil, cfg.Tokenizer)
		}
		return fmt.Errorf("unknown conversation %q: no history recorded in %s (no %s)", pos[0], dir, storage.WorkspacePath(dir))
	} else if err != nil {
		return err
	}
	defer db.Close()
	counter, err := tokens.New(cfg.Tokenizer)
	if err != nil {
		return err
	}
	log := warnLogger(stderr)
	store := history.New(db, func() tokens.Counter { return counter }, history.Options{Logger: log})

	cs, err := store.Conversations(ctx)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return printHistoryConversations(stdout, *fs.format, cs, counter.Name())
	}
	// An id or a unique prefix of one, as chain show takes them.
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ConversationID
	}
	id, found, err := matchID("conversation", pos[0], ids)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("unknown conversation %q (see ctxls history)", pos[0])
	}
	if *showContext {
		hc, b, err := store.BuildFor(ctx, id, spec, cfg)
		if err != nil {
			return err
		}
		if *fs.format == "json" {
			return printJSON(stdout, ops.BuildHistoryResponse{Text: hc.Text, Tokens: hc.Tokens, Selected: hc.Selected,
				Omitted: hc.Omitted, Budget: hc.Budget, Model: b, Tokenizer: counter.Name(), Warnings: warningsOf(hc.Warnings)})
		}
		fmt.Fprint(stdout, hc.Text)
		for _, w := range hc.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		fmt.Fprintf(stderr, "%s (%s), %s selected, %d omitted; budget %s (model %s, window %s)\n",
			numfmt.Count(hc.Tokens, "token"), counter.Name(), numfmt.Count(hc.Selected, "message"), hc.Omitted, numfmt.Thousands(hc.Budget), b.Model, numfmt.Thousands(b.Window))
		return nil
	}
	runID := *run
	if runID != "" {
		// A run id or a unique prefix of one, as for conversations.
		runs, err := store.RunIDs(ctx, id)
		if err != nil {
			return err
		}
		match, found, err := matchID("run", runID, runs)
		if err != nil {
			return err
		}
		if !found {
			known := "it has none"
			if len(runs) > 0 {
				known = "its runs: " + strings.Join(runs, ", ")
			}
			return fmt.Errorf("conversation %s has no messages of run %q (%s)", id, runID, known)
		}
		runID = match
	}
	page, err := store.List(ctx, id, history.ListRequest{RunID: runID, Limit: *limit})
	if err != nil {
		return err
	}
	res := ops.HistoryListResponse{Items: page.Items, More: page.More, Tokenizer: counter.Name(), Warnings: []ops.Warning{}}
	if res.Items == nil {
		res.Items = []ops.HistoryMessage{}
	}
	if *fs.format == "json" {
		return printJSON(stdout, res)
	}
	printWarnings(stderr, res.Warnings)
	if page.More {
		fmt.Fprintf(stderr, "showing the newest %s; use --limit for more\n", numfmt.Count(len(page.Items), "message"))
	}
	for i, m := range page.Items {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		head := []string{fmt.Sprintf("#%d", m.ID), m.CreatedAt.Local().Format(time.DateTime), m.Role, m.Mode}
		if m.Command != "" {
			head = append(head, m.Command)
		}
		if m.RunID != "" {
			head = append(head, "run "+m.RunID)
		}
		head = append(head, fmt.Sprintf("%d tokens (%s)", m.Tokens, counter.Name()))
		fmt.Fprintln(stdout, strings.Join(head, "  "))
		for line := range strings.Lines(m.Content) {
			fmt.Fprint(stdout, "    ", strings.TrimRight(line, "\r\n"), "\n")
		}
	}
	return nil
}

// printHistoryConversations lists the conversations, whose tokens are
// counted in tokenizer.
func printHistoryConversations(w io.Writer, format string, cs []history.Conversation, tokenizer string) error {
	if cs == nil {
		cs = []history.Conversation{}
	}
	if format == "json" {
		return printJSON(w, ops.ConversationsResponse{Items: cs, Tokenizer: tokenizer, Warnings: []ops.Warning{}})
	}
	if len(cs) == 0 {
		fmt.Fprintln(w, "no conversations recorded")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "CONVERSATION\tMESSAGES\tTOKENS (%s)\tLAST ACTIVITY\n", tokenizer)
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.ConversationID, c.Messages, c.Tokens, c.LastActivity.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// warningsOf returns messages as response warnings.
func warningsOf(msgs []string) []ops.Warning {
	ws := make([]ops.Warning, len(msgs))
	for i, m := range msgs {
		ws[i] = ops.Warning{Message: m}
	}
	return ws
}
