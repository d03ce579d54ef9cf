package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

// chainStates explains the states list and show print.
const chainStates = `An execution's state, in list and show, is that of its current chain and of
the commands run since:
  new          no command started yet
  running      a live ctxls process runs one of its commands or its chain
  completed    every command finished; the last one and every command of the
               chain succeeded
  failed       a command's latest attempt failed; resume runs it again
  interrupted  a command or the chain was cut off, or the last command or a
               command of the chain only partly succeeded; resume continues
               from there
`

// chainUsage is the help of "ctxls chain".
func chainUsage() string {
	var b strings.Builder
	b.WriteString("Usage:\n")
	for _, c := range commands {
		if strings.HasPrefix(c.name, "chain ") {
			fmt.Fprintf(&b, "  %s\n", c.synopsis(true))
		}
	}
	b.WriteString(`
A COMMAND is a command name (brainstorm, /implement) or the name of a chain
from .ctxls.yaml. The executor comes from .ctxls.yaml (executor.kind: preview
runs nothing and records the prompts; exec runs executor.command per step).
An ID is an execution id or a unique prefix of one. run --session continues
an execution whose chain finished; one whose chain did not is resumed.
Run 'ctxls chain SUBCOMMAND --help' for its flags.

`)
	b.WriteString(chainStates)
	return b.String()
}

// runChain implements "ctxls chain".
func runChain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			fmt.Fprint(stderr, chainUsage())
			return exitError(2)
		}
		fmt.Fprint(stdout, chainUsage())
		return nil
	}
	sub, rest := args[0], args[1:]
	name := "chain " + sub
	if _, ok := helpFor(name); !ok {
		return unknownCommand(sub, []string{"run", "preview", "list", "show", "resume", "use", "delete"}, "chain")
	}
	err := chainCommand(ctx, sub, rest, stdin, stdout, stderr)
	var ue usageError
	if errors.As(err, &ue) && ue.cmd == "" {
		ue.cmd = name
		return ue
	}
	return err
}

func chainCommand(ctx context.Context, sub string, rest []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("chain "+sub, stderr)
	dir := fs.String("dir", ".", "workspace directory")
	var format, input, session, project, model, cursor *string
	var yes, agree *bool
	var limit *int
	switch sub {
	case "run", "preview", "resume":
		model = fs.String("model", "", "model whose context window bounds the prompts (default: the configured defaultModel)")
	}
	switch sub {
	case "run", "resume":
		agree = fs.Bool("trust", false, "agree to run the exec executor of the workspace's .ctxls.yaml, as ctxls trust grant does")
	case "delete":
		yes = fs.Bool("yes", false, "delete without asking for the confirmation token")
	case "list":
		limit = fs.Int("limit", 0, fmt.Sprintf("most executions to list (default %d, at most %d)", execution.DefaultListLimit, execution.MaxListLimit))
		cursor = fs.String("cursor", "", "list the executions after the page that printed this cursor")
	}
	switch sub {
	case "run", "preview":
		input = fs.String("input", "", "the user's input, given to every step")
		session = fs.String("session", "", "continue this execution instead of starting a new one")
		if sub == "run" {
			project = fs.String("project", "", "project name of a new execution (default: the directory's name)")
		}
	}
	if sub != "use" && sub != "delete" {
		format = formatFlag(fs)
	}
	pos, err := parseArgs(fs, rest)
	if err != nil {
		return err
	}
	asJSON := false
	if format != nil {
		if err := checkFormat(*format); err != nil {
			return err
		}
		asJSON = *format == "json"
	}
	switch {
	case (sub == "run" || sub == "preview") && len(pos) == 0:
		return usageError{msg: "chain " + sub + " needs at least one command name"}
	case sub == "list" && len(pos) != 0:
		return usageError{msg: "chain list takes no arguments"}
	case (sub == "show" || sub == "resume") && len(pos) > 1:
		return usageError{msg: "chain " + sub + " takes at most one execution id"}
	case (sub == "use" || sub == "delete") && len(pos) != 1:
		return usageError{msg: "chain " + sub + " needs one execution id"}
	}
	if _, err := workspaceDir("chain "+sub, *dir, nil); err != nil {
		return err
	}
	lib, err := loadLibrary(ctx, *dir, stderr)
	if err != nil {
		return err
	}
	if sub == "list" || sub == "show" {
		var page execution.ListRequest
		if sub == "list" {
			page = execution.ListRequest{Limit: *limit, Cursor: *cursor}
		}
		return readChains(ctx, lib, sub, pos, page, asJSON, stdout, stderr)
	}
	o := ops.New(ops.Options{Snapshot: ops.Static(lib),
		Logger: warnLogger(stderr)})
	defer o.Close()
	c := chainCLI{lib: lib, execs: opsExecutions{o}, json: asJSON, stdout: stdout, stderr: stderr}
	switch sub {
	case "use":
		id, err := c.resolveID(ctx, pos[0])
		if err != nil {
			return err
		}
		if _, err := o.SetCurrentExecution(ctx, ops.SessionRequest{SessionID: id}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "current execution: %s\n", id)
		return nil
	case "delete":
		id, err := c.resolveID(ctx, pos[0])
		if err != nil {
			return err
		}
		return c.delete(ctx, o, id, *yes, stdin)
	}

	switch sub {
	case "run", "preview":
		req := ops.ChainRequest{Commands: expandChains(lib, pos), Input: *input, SessionID: *session, Model: *model}
		if req.SessionID != "" {
			if req.SessionID, err = c.resolveID(ctx, req.SessionID); err != nil {
				return err
			}
		}
		if sub == "preview" {
			req.WholePrompts = true
			res, err := o.PreviewChain(ctx, req)
			if err != nil {
				return err
			}
			return c.printResult(res, true)
		}
		req.ProjectName = *project
		if err := agreeToExecutor(ctx, o, *agree, stdin, stderr); err != nil {
			return err
		}
		err := c.run(ctx, func(p func(chain.Event)) (ops.ChainResponse, error) {
			req.Progress = p
			return o.RunChain(ctx, req)
		})
		if errors.Is(err, execution.ErrUnfinishedChain) {
			return fmt.Errorf("%w\nto finish it: ctxls chain resume %s", err, req.SessionID)
		}
		return err
	default: // resume
		id := ""
		if len(pos) == 1 {
			if id, err = c.resolveID(ctx, pos[0]); err != nil {
				return err
			}
		}
		rp, err := o.ResumePoint(ctx, ops.SessionRequest{SessionID: id})
		if err != nil {
			return err
		}
		id = rp.SessionID
		if rp.Done {
			return c.nothingToResume(rp)
		}
		if err := agreeToExecutor(ctx, o, *agree, stdin, stderr); err != nil {
			return err
		}
		return c.run(ctx, func(p func(chain.Event)) (ops.ChainResponse, error) {
			return o.ResumeChain(ctx, ops.ChainRequest{SessionID: id, Model: *model, Progress: p})
		})
	}
}

// nothingToResume reports an execution whose chain has nothing left to run.
func (c *chainCLI) nothingToResume(rp *execution.ResumePoint) error {
	names := make([]string, len(rp.Steps))
	for i, st := range rp.Steps {
		names[i] = st.Command
	}
	msg := fmt.Sprintf("nothing to resume: every command of the chain of execution %s (%s) succeeded", rp.SessionID, strings.Join(names, " → "))
	if c.json {
		return printJSON(c.stdout, &chain.Result{SessionID: rp.SessionID, State: execution.StateCompleted,
			Steps: []chain.Step{}, Warnings: []string{msg}})
	}
	fmt.Fprintln(c.stdout, msg)
	return nil
}

// delete deletes an execution once the confirmation token the store issues
// is typed back on stdin, or at once with yes.
func (c *chainCLI) delete(ctx context.Context, o *ops.Ops, id string, yes bool, stdin io.Reader) error {
	req, err := o.DeleteExecution(ctx, ops.DeleteExecutionRequest{SessionID: id})
	if err != nil {
		return err
	}
	token := req.ConfirmToken
	if !yes {
		fmt.Fprintf(c.stderr, "Deleting execution %s deletes every command, loaded context, shared value and\nmessage it recorded. To go ahead, type this token and press Enter:\n  %s\n> ", id, token)
		line, err := bufio.NewReader(io.LimitReader(stdin, 1024)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the confirmation token: %w", err)
		}
		typed := strings.TrimSpace(line)
		if typed != token {
			return fmt.Errorf("execution %s not deleted: the token typed does not match (or use --yes)", id)
		}
	}
	if _, err := o.DeleteExecution(ctx, ops.DeleteExecutionRequest{SessionID: id, ConfirmToken: token}); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "deleted execution %s\n", id)
	return nil
}

// readChains implements "chain list" and "chain show", which only read: they
// open the workspace database only when it exists, take no part in it (no
// owner row, no writes) and create nothing.
func readChains(ctx context.Context, lib *library.Snapshot, sub string, pos []string, page execution.ListRequest, asJSON bool, stdout, stderr io.Writer) error {
	c := chainCLI{lib: lib, json: asJSON, stdout: stdout, stderr: stderr}
	dir := lib.Dir()
	db, err := storage.OpenExistingWorkspace(ctx, dir)
	if errors.Is(err, os.ErrNotExist) {
		if sub == "list" {
			c.execs = noExecutions{}
			return c.list(ctx, dir, page)
		}
		return fmt.Errorf("no executions recorded in %s (ctxls chain run COMMAND...)", dir)
	} else if err != nil {
		return err
	}
	defer db.Close()
	c.execs = execution.NewReader(db)
	if sub == "list" {
		return c.list(ctx, dir, page)
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
	ListPage(ctx context.Context, req execution.ListRequest) (execution.ListPage, error)
	Get(ctx context.Context, sessionID string) (*execution.ExecutionState, error)
}

// opsExecutions are the executions of the run operations.
type opsExecutions struct{ o *ops.Ops }

// List reads every page.
func (e opsExecutions) List(ctx context.Context) ([]execution.Summary, error) {
	var all []execution.Summary
	req := execution.ListRequest{Limit: execution.MaxListLimit}
	for {
		page, err := e.ListPage(ctx, req)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.Next == "" {
			return all, nil
		}
		req.Cursor = page.Next
	}
}

func (e opsExecutions) ListPage(ctx context.Context, req execution.ListRequest) (execution.ListPage, error) {
	res, err := e.o.Executions(ctx, ops.ExecutionListRequest{Limit: req.Limit, Cursor: req.Cursor})
	return execution.ListPage{Items: res.Items, Current: res.Current, Next: res.Next}, err
}

func (e opsExecutions) Get(ctx context.Context, id string) (*execution.ExecutionState, error) {
	res, err := e.o.Execution(ctx, ops.SessionRequest{SessionID: id})
	return res.ExecutionState, err
}

// noExecutions are the executions of a workspace without a database.
type noExecutions struct{}

func (noExecutions) List(context.Context) ([]execution.Summary, error) {
	return []execution.Summary{}, nil
}

func (noExecutions) ListPage(context.Context, execution.ListRequest) (execution.ListPage, error) {
	return execution.ListPage{}, nil
}

func (noExecutions) Get(_ context.Context, id string) (*execution.ExecutionState, error) {
	return nil, fmt.Errorf("execution %q: %w", id, execution.ErrNotFound)
}

// expandChains replaces the name of a chain from .ctxls.yaml by its
// commands, unless a command has that name.
func expandChains(lib *library.Snapshot, names []string) []string {
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
	lib            *library.Snapshot
	execs          executions
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
func (c *chainCLI) run(ctx context.Context, do func(func(chain.Event)) (ops.ChainResponse, error)) error {
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

func (c *chainCLI) printResult(res ops.ChainResponse, preview bool) error {
	if c.json {
		return printJSON(c.stdout, res)
	}
	w := c.stdout
	if preview {
		fmt.Fprintf(w, "Preview (executor %s, budget %d files / %d tokens, counted in %s)\n", res.Executor, res.Budget.Files, res.Budget.Tokens, res.Tokenizer)
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
		fmt.Fprintf(w, "\n%d. %s [%s] %d prompt tokens (command %d, memory %d, context %d, shared %d, history %d, input %d, framing %d)\n",
			s.Index+1, s.Command, status, s.PromptTokens, s.CommandTokens, s.MemoryTokens, s.ContextTokens, s.SharedDataTokens, s.HistoryTokens, s.InputTokens, s.FramingTokens)
		for _, m := range s.Memory {
			mark := ""
			if m.Cached {
				mark = " (cached)"
			}
			fmt.Fprintf(w, "   m %s  %d tokens, memory%s\n", m.Key, m.Tokens, mark)
		}
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
		fmt.Fprintf(w, "warning: %s\n", wn.Message)
	}
	fmt.Fprintf(w, "\n%d prompt tokens (%s) in total, %d cache hits\n", res.TotalTokens, res.Tokenizer, res.CacheHits)
	if !preview && (res.State == execution.StateFailed || res.State == execution.StateInterrupted) {
		if s, ok := tooLargeStep(res.ChainResult); ok {
			// Resuming with the same model would fail the same way.
			fmt.Fprintf(w, "%s cannot fit the context window of model %s (%d tokens) whatever is cut; %s\n",
				s.Command, res.Model.Model, res.Model.Window, c.largerModels(res.ChainResult))
		} else {
			// Resume runs again every command that did not succeed,
			// partial ones included.
			fmt.Fprintf(w, "to finish the chain: ctxls chain resume %s\n", res.SessionID)
		}
	}
	return nil
}

// tooLargeStep returns the step of res whose prompt can never fit its
// model, if any.
func tooLargeStep(res *chain.Result) (chain.Step, bool) {
	for _, s := range res.Steps {
		if s.TooLarge {
			return s, true
		}
	}
	return chain.Step{}, false
}

// largerModels says how to finish a chain whose step did not fit the
// model of res: resume with a model of a larger window, if one is
// configured.
func (c *chainCLI) largerModels(res *chain.Result) string {
	var names []string
	for name, m := range c.lib.Config().Models {
		if m.ContextWindow > res.Model.Window {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "shorten the command or the input, or configure a model with a larger window in .ctxls.yaml and resume with --model"
	}
	slices.Sort(names)
	return fmt.Sprintf("to finish the chain with a larger model (%s): ctxls chain resume %s --model %s", strings.Join(names, ", "), res.SessionID, names[0])
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
func (c *chainCLI) list(ctx context.Context, dir string, req execution.ListRequest) error {
	page, err := c.execs.ListPage(ctx, req)
	if err != nil {
		return err
	}
	all := page.Items
	chains := c.lib.Config().Chains
	if c.json {
		return printJSON(c.stdout, chainListing{Chains: nonNilChains(chains), Executions: nonNilChains(all), Next: page.Next})
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
	if page.Next != "" {
		fmt.Fprintf(w, "\nolder executions: ctxls chain list --cursor %s\n", page.Next)
	}
	return w.Flush()
}

// chainListing is the JSON output of chain list.
type chainListing struct {
	Chains     []ops.NamedChain       `json:"chains"`
	Executions []ops.ExecutionSummary `json:"executions"`
	// Next is the cursor of the older executions, when there are more.
	Next string `json:"next,omitempty"`
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
		return printJSON(c.stdout, ops.ExecutionResponse{ExecutionState: st, Warnings: []ops.Warning{}})
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
		if ce.Attempts > 1 {
			fmt.Fprintf(w, "   first attempt: %s\n", ce.FirstAttemptAt.Local().Format(time.DateTime))
		}
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
