package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/tokens"
	"github.com/ctxls/ctxls/providers/runs/history"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", stderr)
	dir := fs.String("dir", ".", "workspace directory")
	run := fs.String("run", "", "only the messages of this chain run")
	showContext := fs.Bool("context", false, "print the history the next prompt would receive")
	model := fs.String("model", "", "model whose history budget applies (default: the configured default model)")
	maxMessages := fs.Int("recent", 0, "with --context: the newest N messages instead of a token budget")
	budget := fs.Int("budget", 0, "with --context: token budget instead of the model's history budget")
	limit := fs.Int("limit", 0, fmt.Sprintf("most messages to print (default %d)", history.DefaultListLimit))
	format := formatFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: ctxls history [CONVERSATION] [--dir D] [--run ID] [--context [--model M]] [--format text|json]

Without a conversation, lists the conversations recorded in the workspace.
With one (its id or a unique prefix of it), prints its messages, oldest
first; --context prints instead what the next prompt would receive as
history, within the model's budget. A conversation without history gives
an empty result and a warning.`)
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"history takes at most one conversation id"}
	}
	if len(pos) == 0 && (*run != "" || *showContext) {
		return usageError{"--run and --context need a conversation id"}
	}
	spec := history.BuildSpec{Model: *model}
	switch {
	case *maxMessages != 0 && *budget != 0:
		return usageError{"--recent and --budget exclude each other"}
	case *maxMessages != 0:
		spec.Strategy = history.StrategySpec{Kind: history.KindRecent, MaxMessages: maxMessages}
	case *budget != 0:
		spec.Strategy = history.StrategySpec{Kind: history.KindTokenBudget, TokenBudget: budget}
	}
	cfg, problems, err := config.Load(*dir)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s: %s\n", p.Severity, p)
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
	db, err := storage.OpenExistingWorkspace(ctx, *dir)
	if errors.Is(err, os.ErrNotExist) {
		if len(pos) == 0 {
			return printHistoryConversations(stdout, *format, nil)
		}
		return printNoHistory(stdout, stderr, *format, *showContext, fmt.Sprintf("no history recorded in %s (no %s)", *dir, storage.WorkspacePath(*dir)))
	} else if err != nil {
		return err
	}
	defer db.Close()
	counter, err := tokens.New(cfg.Tokenizer)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store := history.New(db, counter, history.Options{Logger: log})

	cs, err := store.Conversations(ctx)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return printHistoryConversations(stdout, *format, cs)
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
		return printNoHistory(stdout, stderr, *format, *showContext, fmt.Sprintf("unknown conversation %q: no history (see ctxls history)", pos[0]))
	}
	if *showContext {
		hc, b, err := store.BuildFor(ctx, id, spec, cfg)
		if err != nil {
			return err
		}
		if *format == "json" {
			return historyJSON(stdout, struct {
				history.Context
				Model history.ModelBudget `json:"model"`
			}{hc, b})
		}
		fmt.Fprint(stdout, hc.Text)
		for _, w := range hc.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		fmt.Fprintf(stderr, "%d tokens, %d messages selected, %d omitted; budget %d (model %s, window %d)\n",
			hc.Tokens, hc.Selected, hc.Omitted, hc.Budget, b.Model, b.Window)
		return nil
	}
	page, err := store.List(ctx, id, history.ListRequest{RunID: *run, Limit: *limit})
	if err != nil {
		return err
	}
	warnings := []string{}
	if *run != "" && len(page.Items) == 0 {
		warnings = append(warnings, fmt.Sprintf("no messages of run %q in conversation %s", *run, id))
	}
	if *format == "json" {
		return historyJSON(stdout, map[string]any{"items": page.Items, "more": page.More, "warnings": warnings})
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if page.More {
		fmt.Fprintf(stderr, "showing the newest %d messages; use --limit for more\n", len(page.Items))
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
		head = append(head, fmt.Sprintf("%d tokens", m.Tokens))
		fmt.Fprintln(stdout, strings.Join(head, "  "))
		for line := range strings.Lines(m.Content) {
			fmt.Fprint(stdout, "    ", strings.TrimRight(line, "\r\n"), "\n")
		}
	}
	return nil
}

// printNoHistory answers a request for a conversation there is no history
// of: an empty result and a warning, as the protocol answers an unknown
// name, and exit status 0.
func printNoHistory(stdout, stderr io.Writer, format string, context bool, warning string) error {
	if format == "json" {
		if context {
			return historyJSON(stdout, history.Context{Warnings: []string{warning}})
		}
		return historyJSON(stdout, map[string]any{"items": []history.Message{}, "more": false, "warnings": []string{warning}})
	}
	fmt.Fprintf(stderr, "warning: %s\n", warning)
	return nil
}

func printHistoryConversations(w io.Writer, format string, cs []history.Conversation) error {
	if cs == nil {
		cs = []history.Conversation{}
	}
	if format == "json" {
		return historyJSON(w, map[string]any{"items": cs})
	}
	if len(cs) == 0 {
		fmt.Fprintln(w, "no conversations recorded")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONVERSATION\tMESSAGES\tTOKENS\tLAST ACTIVITY")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", c.ConversationID, c.Messages, c.Tokens, c.LastActivity.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

func historyJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
