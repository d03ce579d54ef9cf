package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/history"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

const chainUsage = `Usage:
  ctxls chain run COMMAND... [--input TEXT] [--session ID] [--project NAME] [--dir DIR] [--format text|json]
  ctxls chain preview COMMAND... [--input TEXT] [--session ID] [--dir DIR] [--format text|json]
  ctxls chain list [--dir DIR] [--format text|json]
  ctxls chain show [ID] [--dir DIR] [--format text|json]
  ctxls chain resume ID [--dir DIR] [--format text|json]

A COMMAND is a command name (brainstorm, /implement) or the name of a chain
from .ctxls.yaml. The executor comes from .ctxls.yaml (executor.kind: preview
runs nothing and records the prompts; exec runs executor.command per step).
An ID is an execution id or a unique prefix of one. run --session continues
an execution whose chain finished; one whose chain did not is resumed.

An execution's state, in list and show, is that of its current chain and of
the commands run since:
  new          no command started yet
  running      a live ctxls process runs one of its commands or its chain
  completed    every command finished and every command of the chain succeeded
  failed       a command's latest attempt failed; resume runs it again
  interrupted  a command or the chain was cut off, or a command of the chain
               only partly succeeded; resume continues from there
`

// runChain implements "ctxls chain".
func runChain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, chainUsage)
		if len(args) == 0 {
			return exitError(2)
		}
		return nil
	}
	sub, rest := args[0], args[1:]
	fs := newFlagSet("chain "+sub, stderr)
	dir := fs.String("dir", ".", "workspace directory")
	format := formatFlag(fs)
	var input, session, project *string
	switch sub {
	case "run", "preview":
		input = fs.String("input", "", "the user's input, given to every step")
		session = fs.String("session", "", "continue this execution instead of starting a new one")
		if sub == "run" {
			project = fs.String("project", "", "project name of a new execution (default: the directory's name)")
		}
	case "list", "show", "resume":
	default:
		return usageError{fmt.Sprintf("unknown chain command %q (want run, preview, list, show or resume)", sub)}
	}
	pos, err := parseArgs(fs, rest)
	if err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	lib, err := loadLibrary(ctx, *dir, stderr)
	if err != nil {
		return err
	}
	if sub == "list" || sub == "show" {
		return readChains(ctx, lib, sub, pos, *format == "json", stdout, stderr)
	}
	db, err := storage.OpenWorkspace(ctx, lib.Dir())
	if err != nil {
		return err
	}
	defer db.Close()
	store, err := execution.New(ctx, db, execution.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	hist := chain.StoreHistory(history.New(db, lib.Counter(), history.Options{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}))
	runner := chain.New(chain.Options{Store: store, Provider: contextprovider.NewStatic(lib), History: hist})
	c := chainCLI{lib: lib, execs: store, runner: runner, json: *format == "json", stdout: stdout, stderr: stderr}

	switch sub {
	case "run", "preview":
		if len(pos) == 0 {
			return usageError{"chain " + sub + " needs at least one command name"}
		}
		req := chain.Request{Commands: expandChains(lib, pos), Input: *input, SessionID: *session}
		if sub == "preview" {
			res, err := runner.Preview(ctx, req)
			if err != nil {
				return err
			}
			return c.printResult(res, true)
		}
		req.ProjectName = *project
		if req.SessionID != "" {
			if req.SessionID, err = c.resolveID(ctx, req.SessionID); err != nil {
				return err
			}
		}
		err := c.run(ctx, func(p func(chain.Event)) (*chain.Result, error) {
			req.Progress = p
			return runner.Run(ctx, req)
		})
		if errors.Is(err, execution.ErrUnfinishedChain) {
			return fmt.Errorf("%w\nto finish it: ctxls chain resume %s", err, req.SessionID)
		}
		return err
	default: // resume
		if len(pos) != 1 {
			return usageError{"chain resume needs one execution id"}
		}
		id, err := c.resolveID(ctx, pos[0])
		if err != nil {
			return err
		}
		return c.run(ctx, func(p func(chain.Event)) (*chain.Result, error) {
			return runner.Resume(ctx, id, p)
		})
	}
}

// readChains implements "chain list" and "chain show", which only read: they
// open the workspace database only when it exists, take no part in it (no
// owner row, no writes) and create nothing.
func readChains(ctx context.Context, lib *library.Library, sub string, pos []string, asJSON bool, stdout, stderr io.Writer) error {
	switch {
	case sub == "list" && len(pos) != 0:
		return usageError{"chain list takes no arguments"}
	case sub == "show" && len(pos) > 1:
		return usageError{"chain show takes at most one execution id"}
	}
	c := chainCLI{lib: lib, json: asJSON, stdout: stdout, stderr: stderr}
	dir := lib.Dir()
	db, err := storage.OpenExistingWorkspace(ctx, dir)
	if errors.Is(err, os.ErrNotExist) {
		if sub == "list" {
			c.execs = noExecutions{}
			return c.list(ctx, dir)
		}
		return fmt.Errorf("no executions recorded in %s (ctxls chain run COMMAND...)", dir)
	} else if err != nil {
		return err
	}
	defer db.Close()
	c.execs = execution.NewReader(db)
	if sub == "list" {
		return c.list(ctx, dir)
	}
	id := ""
	if len(pos) == 1 {
		if id, err = c.resolveID(ctx, pos[0]); err != nil {
			return err
		}
	}
	return c.show(ctx, id)
}

// executions is what the chain commands read of the executions: a Store
// when they also run chains, a Reader when they only look.
type executions interface {
	List(ctx context.Context) ([]execution.Summary, error)
	Get(ctx context.Context, sessionID string) (*execution.ExecutionState, error)
}

// noExecutions are the executions of a workspace without a database.
type noExecutions struct{}

func (noExecutions) List(context.Context) ([]execution.Summary, error) {
	return []execution.Summary{}, nil
}

func (noExecutions) Get(_ context.Context, id string) (*execution.ExecutionState, error) {
	return nil, fmt.Errorf("execution %q: %w", id, execution.ErrNotFound)
}

// expandChains replaces the name of a chain from .ctxls.yaml by its
// commands, unless a command has that name.
func expandChains(lib *library.Library, names []string) []string {
	var out []string
	for _, n := range names {
		if _, isCmd := lib.Command(strings.TrimPrefix(n, "/")); !isCmd {
			if ch, ok := lib.Config().Chain(n); ok {
				out = append(out, ch.Commands...)
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

type chainCLI struct {
	lib            *library.Library
	execs          executions
	runner         *chain.Runner
	json           bool
	stdout, stderr io.Writer
}

// resolveID accepts an execution id or a unique prefix of one.
func (c *chainCLI) resolveID(ctx context.Context, id string) (string, error) {
	all, err := c.execs.List(ctx)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.SessionID
	}
	match, found, err := matchID("execution", id, ids)
	if err == nil && !found {
		err = fmt.Errorf("no execution %q (see ctxls chain list)", id)
	}
	return match, err
}

// matchID finds id among ids: the id itself, or else the only one it is a
// prefix of. found is false when none matches; a prefix of several is an
// error that lists them in order. what names the kind of id in the error.
func matchID(what, id string, ids []string) (match string, found bool, err error) {
	var matches []string
	for _, s := range ids {
		if s == id {
			return id, true, nil
		}
		if strings.HasPrefix(s, id) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return "", false, nil
	case 1:
		return matches[0], true, nil
	}
	slices.Sort(matches)
	return "", false, fmt.Errorf("%s id %q is ambiguous: %s", what, id, strings.Join(matches, ", "))
}

// run runs or resumes a chain with a progress display on stderr.
func (c *chainCLI) run(ctx context.Context, do func(func(chain.Event)) (*chain.Result, error)) error {
	p := newProgress(c.stderr)
	defer p.stop()
	res, err := do(p.event)
	p.stop()
	if err != nil {
		return err
	}
	if err := c.printResult(res, false); err != nil {
		return err
	}
	if res.State != execution.StateCompleted {
		return exitError(1)
	}
	return nil
}

func (c *chainCLI) printResult(res *chain.Result, preview bool) error {
	if c.json {
		return writeJSON(c.stdout, res)
	}
	w := c.stdout
	if preview {
		fmt.Fprintf(w, "Preview (executor %s, budget %d files / %d tokens)\n", res.Executor, res.Budget.Files, res.Budget.Tokens)
	} else {
		fmt.Fprintf(w, "Execution %s: %s (executor %s)\n", res.SessionID, res.State, res.Executor)
	}
	for _, s := range res.Steps {
		status := s.Status
		if s.Skipped {
			status += ", done earlier"
		}
		if s.Attempts > 1 {
			status += fmt.Sprintf(", attempt %d", s.Attempts)
		}
		fmt.Fprintf(w, "\n%d. %s [%s] %d prompt tokens (command %d, context %d, shared %d, history %d, input %d)\n",
			s.Index+1, s.Command, status, s.PromptTokens, s.CommandTokens, s.ContextTokens, s.SharedDataTokens, s.HistoryTokens, s.InputTokens)
		for _, it := range s.Context {
			mark := ""
			if it.Cached {
				mark = " (cached)"
			}
			fmt.Fprintf(w, "   + %s  %d tokens, %s%s\n", it.Reference, it.Tokens, it.Reason, mark)
		}
		for _, it := range s.Dropped {
			fmt.Fprintf(w, "   - %s  %d tokens, %s\n", it.Reference, it.Tokens, it.Reason)
		}
		if s.Reason != "" {
			fmt.Fprintf(w, "   reason: %s\n", hangingIndent(s.Reason, "           "))
		}
		for _, wn := range s.Warnings {
			fmt.Fprintf(w, "   warning: %s\n", wn)
		}
		if out := strings.TrimSpace(s.Output); out != "" {
			fmt.Fprintf(w, "   output:\n%s\n", indent(out, "     "))
		}
	}
	for _, wn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	fmt.Fprintf(w, "\n%d prompt tokens in total, %d cache hits\n", res.TotalTokens, res.CacheHits)
	if !preview && (res.State == execution.StateFailed || res.State == execution.StateInterrupted) {
		// Resume runs again every command that did not succeed, partial
		// ones included.
		fmt.Fprintf(w, "to finish the chain: ctxls chain resume %s\n", res.SessionID)
	}
	return nil
}

// hangingIndent indents every line of s but the first with prefix, so that
// a multi-line text after a label stays in its column. Blank lines stay
// empty.
func hangingIndent(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if i > 0 && l != "" {
			l = prefix + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// list prints the configured chains and the executions recorded in dir.
func (c *chainCLI) list(ctx context.Context, dir string) error {
	all, err := c.execs.List(ctx)
	if err != nil {
		return err
	}
	chains := c.lib.Config().Chains
	if c.json {
		return writeJSON(c.stdout, map[string]any{"chains": nonNilChains(chains), "executions": all})
	}
	w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	if len(chains) > 0 {
		fmt.Fprintln(w, "CHAIN\tCOMMANDS")
		for _, ch := range chains {
			fmt.Fprintf(w, "%s\t%s\n", ch.Name, strings.Join(ch.Commands, " → "))
		}
		fmt.Fprintln(w)
	}
	if len(all) == 0 {
		fmt.Fprintf(w, "no executions recorded in %s (ctxls chain run COMMAND...)\n", dir)
		return w.Flush()
	}
	fmt.Fprintln(w, "\tEXECUTION\tPROJECT\tSTATE\tSTEPS\tLAST COMMAND\tCREATED")
	for _, s := range all {
		cur := ""
		if s.IsCurrent {
			cur = "*"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", cur, s.SessionID, s.ProjectName, s.State,
			s.Summary.CommandsCompleted, s.Summary.CommandsTotal, s.Summary.CurrentCommand, s.Created.Local().Format(time.DateTime))
	}
	return w.Flush()
}

func nonNilChains[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func (c *chainCLI) show(ctx context.Context, id string) error {
	st, err := c.execs.Get(ctx, id)
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(c.stdout, st)
	}
	w := c.stdout
	cur := ""
	if st.IsCurrent {
		cur = " (current)"
	}
	fmt.Fprintf(w, "Execution %s%s\n  project: %s\n  state:   %s\n  started: %s\n", st.SessionID, cur, st.ProjectName, st.State,
		st.StartedAt.Local().Format(time.DateTime))
	if st.Plan != nil {
		fmt.Fprintf(w, "  chain:   %s\n", strings.Join(st.Plan.Commands, " → "))
		if st.Plan.Input != "" {
			fmt.Fprintf(w, "  input:   %s\n", st.Plan.Input)
		}
	}
	for _, ce := range st.CommandHistory {
		dur := ""
		if ce.CompletedAt != nil {
			dur = " in " + ce.CompletedAt.Sub(ce.StartedAt).Round(time.Millisecond).String()
		}
		fmt.Fprintf(w, "\n%d. %s [%s, attempt %d]%s\n", ce.Step+1, ce.Command, ce.Status, ce.Attempts, dur)
		if len(ce.ContextLoaded) > 0 {
			fmt.Fprintf(w, "   context: %s\n", strings.Join(ce.ContextLoaded, ", "))
		}
		if v, ok := ce.Outputs["promptTokens"]; ok {
			fmt.Fprintf(w, "   prompt tokens: %s\n", v)
		}
		var reason string
		if json.Unmarshal(ce.Outputs["reason"], &reason) == nil && reason != "" {
			fmt.Fprintf(w, "   reason: %s\n", hangingIndent(reason, "           "))
		}
		var out string
		if json.Unmarshal(ce.Outputs["output"], &out) == nil && strings.TrimSpace(out) != "" {
			if len(out) > 2000 {
				out = strings.ToValidUTF8(out[:2000], "") + "\n…"
			}
			fmt.Fprintf(w, "   output:\n%s\n", indent(strings.TrimSpace(out), "     "))
		}
	}
	if len(st.SharedData) > 0 {
		fmt.Fprintln(w, "\nShared data:")
		b, _ := json.MarshalIndent(st.SharedData, "  ", "  ")
		fmt.Fprintf(w, "  %s\n", b)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// progress shows the running step on stderr: a line redrawn every 100 ms on
// a terminal, plain lines otherwise.
type progress struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	cur  *chain.Event
	from time.Time
	done chan struct{}
	once sync.Once
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, done: make(chan struct{})}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb" {
			p.tty = true
		}
	}
	if p.tty {
		go p.tick()
	}
	return p
}

func (p *progress) tick() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			if p.cur != nil {
				p.redraw()
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) redraw() {
	e := p.cur
	fmt.Fprintf(p.w, "\r\x1b[K[%d/%d] %s  %s  %d tokens", e.Index+1, e.Total, e.Step.Command,
		time.Since(p.from).Round(100*time.Millisecond), e.Step.PromptTokens)
}

func (p *progress) event(e chain.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case chain.StepStarted:
		p.cur, p.from = &e, time.Now()
		if p.tty {
			p.redraw()
		} else {
			fmt.Fprintf(p.w, "[%d/%d] %s: running (attempt %d, %d prompt tokens, %d context items, %d cached)\n",
				e.Index+1, e.Total, e.Step.Command, e.Step.Attempts, e.Step.PromptTokens, len(e.Step.Context), e.Step.CacheHits)
		}
	case chain.StepFinished:
		p.cur = nil
		if p.tty {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
		line := fmt.Sprintf("[%d/%d] %s: %s in %s, %d prompt tokens", e.Index+1, e.Total, e.Step.Command, e.Step.Status,
			time.Duration(e.Step.ElapsedMS)*time.Millisecond, e.Step.PromptTokens)
		if e.Step.Reason != "" {
			line += " (" + shortReason(e.Step.Reason) + ")"
		}
		fmt.Fprintln(p.w, line)
	}
}

// failureKind matches how the exec executor words a failure at the start of
// a step's reason, before ": " and the last lines of the agent's stderr.
var failureKind = regexp.MustCompile(`^(exit status -?\d+|signal: [^:]+|timed out after [^:]+|cancelled)(: |$)`)

// shortReason puts a step's reason on one line: the failure and the last
// line of what follows it. The last line of an agent's stderr is the one
// that tells why, the first is often noise.
func shortReason(reason string) string {
	var lines []string
	for l := range strings.Lines(reason) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch len(lines) {
	case 0:
		return ""
	case 1:
		return lines[0]
	}
	head := lines[0]
	if m := failureKind.FindStringSubmatch(head); m != nil {
		head = m[1]
	}
	return head + ": " + lines[len(lines)-1]
}

func (p *progress) stop() {
	p.once.Do(func() {
		close(p.done)
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.tty && p.cur != nil {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
		p.cur = nil
	})
}
