// Package chain runs chains of agent commands: for each step it loads the
// context the command refers to (reusing what earlier steps of the
// execution loaded), keeps it within the loading protocol's budget,
// assembles the prompt, hands it to an executor and records everything in the
// execution (package execution), one committed step at a time.
package chain

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/internal/closest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/history"
)

// Errors of the Runner; test with errors.Is.
var (
	// ErrUnknownCommand: a command name names no command of the library.
	ErrUnknownCommand = errkind.New(errkind.NotFound, "unknown command")
	// ErrConflict: a chain already runs in the execution in this process.
	// One running in another process gives execution.ErrConflict.
	ErrConflict = errkind.New(errkind.Conflict, "a chain is already running")
	// ErrNoCommands: a chain without commands.
	ErrNoCommands = errkind.New(errkind.Invalid, "a chain needs at least one command")
	// ErrUnknownModel: a model the configuration does not define, or no
	// model named where the configuration defines several and no default.
	ErrUnknownModel = errkind.New(errkind.Invalid, "unknown model")
)

// Message is one message of a step's conversation.
type Message struct {
	ConversationID string
	Role           string // "user" or "assistant"
	Content        string
	RunID          string
	Command        string
	// Step and Attempt place the message in the execution: its step's
	// 0-based position and attempt (from 1; 0 for a message no recorded
	// step sent, such as a preview's). An attempt has one message per
	// role, and the history of later prompts takes a step's messages from
	// its latest attempt.
	Step, Attempt int
}

// History is the conversation history a step's prompt includes and its
// messages go to.
type History interface {
	// Fit completes p with the history of the conversation, as it would be
	// with pending appended after its stored messages, within the history
	// budget of model b, and fits the whole prompt to b's window (see
	// history.Fit): it returns the fitted parts and what was cut, plus
	// warnings. An empty conversationID is a conversation not created yet.
	// The error wraps history.ErrPromptTooLarge when the parts that are
	// never cut do not fit.
	Fit(ctx context.Context, conversationID string, pending []Message, p history.Prompt, b history.ModelBudget) (history.Fitted, []string, error)
	// Append records messages, all or none. Appending again a message of
	// a step's attempt and role stores nothing.
	Append(ctx context.Context, msgs ...Message) error
}

// Options configure a Runner.
type Options struct {
	// Store records executions; required.
	Store *execution.Store
	// Provider materializes context and applies the loading protocol's
	// budget; required.
	Provider *contextapi.Provider
	// Library returns the current library snapshot (default: the
	// Provider's library).
	Library func() *library.Snapshot
	// History, when set, provides the history context of prompts and
	// records each step's request and result. Without it prompts have no
	// history, and are still fitted to their model's window.
	History History
	// Executor, when set, replaces the executor the configuration names.
	Executor Executor
	// Consent, when set, is asked before a run or resume starts the exec
	// executor that the configuration names, with the workspace directory
	// and that executor's configuration, the very one the steps will run:
	// an error refuses the run before anything is recorded.
	Consent func(dir string, e config.Executor) error
	// MaxOutput is the most bytes of agent output kept per step (default
	// defaultMaxOutput).
	MaxOutput int64
}

// Runner runs, previews, resumes and cancels chains. It is safe for
// concurrent use; one chain at a time runs in an execution.
type Runner struct {
	opts Options

	mu     sync.Mutex
	active map[string]context.CancelFunc
}

// New returns a Runner.
func New(opts Options) *Runner {
	if opts.Library == nil {
		opts.Library = opts.Provider.Library
	}
	return &Runner{opts: opts, active: map[string]context.CancelFunc{}}
}

// Request asks for a chain to be previewed or run.
type Request struct {
	// Commands are command names, with or without a leading "/", or names
	// of chains from the configuration.
	Commands []string
	// Input is the user's input, the last part of every prompt.
	Input string
	// SessionID continues an existing execution; empty creates one (run)
	// or previews without one.
	SessionID string
	// ProjectName names a created execution's project (default: the
	// workspace directory's name).
	ProjectName string
	// Model names the configured model whose context window bounds the
	// prompts and whose history budget selects their history (default: the
	// configuration's defaultModel).
	Model string
	// Progress, when set, receives an event as each step starts and ends.
	Progress func(Event)
}

// EventKind says what an Event reports.
type EventKind string

// Event kinds.
const (
	StepStarted  EventKind = "started"
	StepFinished EventKind = "finished"
)

// Event reports the progress of a chain.
type Event struct {
	Kind EventKind
	// Index is the 0-based position of the step in the chain, Total the
	// number of steps.
	Index, Total int
	Step         Step
}

// Result is the outcome of a preview, run or resume.
type Result struct {
	SessionID string          `json:"sessionId,omitempty"`
	State     execution.State `json:"state,omitempty"`
	RunID     string          `json:"runId,omitempty"`
	// Executor is the kind of executor that ran the steps.
	Executor    string `json:"executor"`
	Steps       []Step `json:"steps"`
	TotalTokens int    `json:"totalTokens"`
	// Tokenizer names the encoding every token figure is counted in.
	Tokenizer string        `json:"tokenizer"`
	CacheHits int           `json:"cacheHits"`
	Budget    config.Budget `json:"budget"`
	// Model is the budget of the model the prompts were fitted to.
	Model    history.ModelBudget `json:"model"`
	Warnings []string            `json:"warnings"`
}

// Step is one step of a chain as previewed or run.
type Step struct {
	Command string `json:"command"`
	// Index is the position in the chain; Step the position among the
	// execution's recorded steps (runs only).
	Index int    `json:"index"`
	Step  int    `json:"step"`
	Path  string `json:"path,omitempty"`
	// Status is the status of the step's latest attempt: success, partial,
	// failed, interrupted; "pending" for a step not reached.
	Status   string         `json:"status,omitempty"`
	Attempts int            `json:"attempts,omitempty"`
	Context  []*ContextItem `json:"context"`
	Dropped  []*ContextItem `json:"dropped"`
	// CacheHits counts context items taken from the execution's cache.
	CacheHits int `json:"cacheHits"`
	// Memory are the workspace's agent memory files the prompt carries
	// (CLAUDE.md, AGENTS.md and what they import), loaded once per
	// execution.
	Memory           []*MemoryItem `json:"memory"`
	MemoryTokens     int           `json:"memoryTokens"`
	CommandTokens    int           `json:"commandTokens"`
	ContextTokens    int           `json:"contextTokens"`
	SharedDataTokens int           `json:"sharedDataTokens"`
	HistoryTokens    int           `json:"historyTokens"`
	InputTokens      int           `json:"inputTokens"`
	// FramingTokens is the cost of the headings and separators between the
	// parts: PromptTokens is the sum of the parts' tokens (command, memory,
	// context, shared data, history, input) and it.
	FramingTokens int `json:"framingTokens"`
	PromptTokens  int `json:"promptTokens"`
	// Cuts says what the prompt lost to fit the model's context window:
	// history messages dropped or shortened, sections shortened. Absent
	// when the prompt fitted whole.
	Cuts []history.Cut `json:"cuts,omitempty"`
	// Prompt is the assembled prompt (previews only).
	Prompt string `json:"prompt,omitempty"`
	// Output is the agent's output as text (at most outputInResult bytes).
	Output      string `json:"output,omitempty"`
	OutputBytes int64  `json:"outputBytes,omitempty"`
	ExitCode    *int   `json:"exitCode,omitempty"`
	ElapsedMS   int64  `json:"elapsedMs"`
	// Reason says why the step failed or was interrupted.
	Reason string `json:"reason,omitempty"`
	// TooLarge marks a step that failed because its prompt cannot fit the
	// model's context window even with everything that may be cut cut:
	// running it again with the same model fails the same way.
	TooLarge bool `json:"tooLarge,omitempty"`
	// Skipped marks a step that finished in an earlier run and was not run
	// again.
	Skipped  bool     `json:"skipped,omitempty"`
	Warnings []string `json:"warnings"`
}

// outputInResult is how much of a step's output a Result carries; the
// execution record keeps the rest.
const outputInResult = 64 << 10

// commandsOf resolves command names (with or without a leading "/"). An
// unknown name is an error wrapping ErrUnknownCommand that lists the
// available commands.
func commandsOf(lib *library.Snapshot, names []string) ([]*library.Command, error) {
	if len(names) == 0 {
		return nil, ErrNoCommands
	}
	out := make([]*library.Command, 0, len(names))
	var unknown []string
	for _, n := range names {
		name := strings.TrimPrefix(strings.TrimSpace(n), "/")
		c, ok := lib.Command(name)
		if !ok || name == "" {
			unknown = append(unknown, n)
			continue
		}
		out = append(out, c)
	}
	if len(unknown) == 0 {
		return out, nil
	}
	var avail []string
	for _, c := range lib.Commands() {
		avail = append(avail, c.Name)
	}
	msg := fmt.Sprintf("%q", unknown[0])
	if len(unknown) > 1 {
		q := make([]string, len(unknown))
		for i, u := range unknown {
			q[i] = fmt.Sprintf("%q", u)
		}
		msg = strings.Join(q, ", ")
	}
	hint := ""
	if s := closest.Names(strings.TrimPrefix(unknown[0], "/"), avail, 1); len(s) > 0 {
		hint = fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	if len(avail) == 0 {
		return nil, fmt.Errorf("%w %s%s: the workspace has no commands (markdown files under a commands directory)", ErrUnknownCommand, msg, hint)
	}
	return nil, fmt.Errorf("%w %s%s; available commands: %s", ErrUnknownCommand, msg, hint, strings.Join(avail, ", "))
}

// expand replaces each name of a chain from the configuration (chains: in
// .ctxls.yaml) by the chain's commands. A command and a chain of the same
// name mean the command: a name is expanded only when no command has it.
// Names may have a leading "/"; other names are returned as they are.
func expand(lib *library.Snapshot, names []string) []string {
	chains := lib.Config().Chains
	if len(chains) == 0 {
		return names
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		name := strings.TrimPrefix(strings.TrimSpace(n), "/")
		if _, isCmd := lib.Command(name); !isCmd && name != "" {
			if ch, ok := lib.Config().Chain(name); ok {
				out = append(out, ch.Commands...)
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

// runExecutor returns the executor for lib's configuration once the
// consent it needs is given.
func (r *Runner) runExecutor(lib *library.Snapshot) (Executor, error) {
	e, err := r.executor(lib)
	if err != nil || r.opts.Executor != nil || e.Kind() != KindExec || r.opts.Consent == nil {
		return e, err
	}
	if err := r.opts.Consent(lib.Dir(), lib.Config().Executor); err != nil {
		return nil, err
	}
	return e, nil
}

// executor returns the executor for lib's configuration.
func (r *Runner) executor(lib *library.Snapshot) (Executor, error) {
	if r.opts.Executor != nil {
		return r.opts.Executor, nil
	}
	e, err := newExecutor(lib.Config().Executor, lib.Dir())
	if x, ok := e.(*execExecutor); ok && r.opts.MaxOutput > 0 {
		x.MaxOutput = r.opts.MaxOutput
	}
	return e, err
}

// Preview assembles every step's prompt without running or recording
// anything (names of chains from the configuration are expanded, see
// expand): the context each step would load (items an earlier step of the
// preview, or of the execution named by req.SessionID, loaded are marked
// cached), what the budget drops, what fitting the prompt to the model's
// window cuts, and the prompt's token cost. A step whose command and input
// alone exceed the window gets the reason in Reason. Each step's history
// holds what the steps before it would have added in a run with the preview
// executor (their requests; that executor answers nothing), so that its cost
// is the one such a run records.
func (r *Runner) Preview(ctx context.Context, req Request) (*Result, error) {
	lib := r.opts.Library()
	cmds, err := commandsOf(lib, expand(lib, req.Commands))
	if err != nil {
		return nil, err
	}
	b, err := modelBudget(lib.Config(), req.Model)
	if err != nil {
		return nil, err
	}
	res := &Result{SessionID: req.SessionID, Executor: KindPreview, Tokenizer: lib.Counter().Name(), Budget: effectiveBudget(lib.Config().Budget), Model: b,
		Warnings: append([]string{}, fallbackWarning(b)...)}
	if e, err := r.executor(lib); err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	} else {
		res.Executor = e.Kind()
	}
	var shared map[string]json.RawMessage
	if req.SessionID != "" {
		if shared, err = r.opts.Store.AllSharedData(ctx, req.SessionID); err != nil {
			return nil, err
		}
	}
	// Memory as the execution has it, or as a new one would load it.
	mem, warns, err := r.executionMemory(ctx, lib, req.SessionID, false)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, warns...)
	seen := map[execution.ContextKey]string{}
	var pending []Message // what the steps previewed so far would append
	for i, cmd := range cmds {
		st := Step{Command: cmd.Name, Index: i, Path: cmd.Path, Status: "preview", Warnings: []string{}}
		kept, dropped, warns := plan(ctx, r.opts.Provider, lib, cmd, lib.Config().Budget)
		st.Warnings = append(st.Warnings, warns...)
		var cached map[execution.ContextKey]string
		if req.SessionID != "" {
			if cached, err = r.opts.Store.CachedContexts(ctx, req.SessionID, keysOf(kept)); err != nil {
				return nil, err
			}
		}
		parts := promptParts{command: cmd.Body(), memory: previewMemory(mem, i > 0), shared: renderShared(shared), input: req.Input}
		parts.context, _ = r.loadContext(ctx, kept, seen, cached, &st)
		kept = itemsOf(parts.context)
		bl, warns, err := r.build(ctx, lib, b, req.SessionID, pending, parts)
		st.Warnings = append(st.Warnings, warns...)
		switch {
		case errors.Is(err, history.ErrPromptTooLarge):
			// What the step would ask, without history: it fails anyway.
			bl.prompt, bl.cost = assemble(parts, lib.Counter())
			st.Reason = err.Error()
			st.Warnings = append(st.Warnings, "a run would fail this step: "+err.Error())
		case err != nil:
			return nil, err
		default:
			pending = append(pending, Message{ConversationID: req.SessionID, Role: "user", Content: bl.asked, Command: cmd.Name})
		}
		fillCost(&st, kept, dropped, bl.cost)
		fillMemory(&st, parts.memory, bl.cost)
		st.Prompt, st.Cuts = bl.prompt, bl.cuts
		res.Steps = append(res.Steps, st)
		res.TotalTokens += st.PromptTokens
		res.CacheHits += st.CacheHits
	}
	return res, nil
}

// loadContext gives each kept item its content: what seen or cached hold
// under its key, in that order, or else the item read now, which seen (when
// not nil) then holds. An item that can no longer be read, because its file
// changed or went away since the plan was made, is left out with a warning
// on st. It returns the items loaded and whether each was a cache hit.
func (r *Runner) loadContext(ctx context.Context, kept []*ContextItem, seen, cached map[execution.ContextKey]string, st *Step) ([]loaded, []bool) {
	var out []loaded
	var hits []bool
	for _, it := range kept {
		k := it.key()
		c, hit := seen[k]
		if !hit {
			c, hit = cached[k]
		}
		if hit {
			it.Cached, it.Source = true, "cache"
		} else {
			var err error
			if c, err = it.materialize(ctx, r.opts.Provider); err != nil {
				st.Warnings = append(st.Warnings, err.Error())
				continue
			}
			it.Source = "materialized"
			if seen != nil {
				seen[k] = c
			}
		}
		out = append(out, loaded{it, c, r.knownTokens(ctx, it, c, !hit)})
		hits = append(hits, hit)
	}
	return out, hits
}

// keysOf returns the cache key of each item.
func keysOf(items []*ContextItem) []execution.ContextKey {
	keys := make([]execution.ContextKey, len(items))
	for i, it := range items {
		keys[i] = it.key()
	}
	return keys
}

// itemsOf returns the item of each loaded content.
func itemsOf(ls []loaded) []*ContextItem {
	var out []*ContextItem
	for _, l := range ls {
		out = append(out, l.item)
	}
	return out
}

// knownTokens returns the cost of an item's content as the library
// measured it when it indexed the topic, when the content is what the
// library holds (always for content materialized now); -1 otherwise.
func (r *Runner) knownTokens(ctx context.Context, it *ContextItem, content string, materialized bool) int {
	if materialized {
		return it.Tokens
	}
	if cur, err := it.materialize(ctx, r.opts.Provider); err == nil && cur == content {
		return it.Tokens
	}
	return -1
}

func effectiveBudget(b config.Budget) config.Budget {
	if b.Files <= 0 {
		b.Files = config.DefaultBudgetFiles
	}
	if b.Tokens <= 0 {
		b.Tokens = config.DefaultBudgetTokens
	}
	return b
}

// modelBudget returns the budget of the named model of cfg, or of its
// default model when name is "". The error wraps ErrUnknownModel.
func modelBudget(cfg *config.Config, name string) (history.ModelBudget, error) {
	b, err := history.BudgetFor(cfg, name)
	if err == nil {
		return b, nil
	}
	var names []string
	for n := range cfg.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	switch {
	case name == "":
		return b, fmt.Errorf("%w: no model named and no defaultModel configured (models: %s)", ErrUnknownModel, strings.Join(names, ", "))
	case len(names) == 0:
		return b, fmt.Errorf("%w %q: .ctxls.yaml configures no models", ErrUnknownModel, name)
	}
	return b, fmt.Errorf("%w %q (models: %s)", ErrUnknownModel, name, strings.Join(names, ", "))
}

// fallbackWarning is the warning of a budget of the stand-in model.
func fallbackWarning(b history.ModelBudget) []string {
	if !b.Fallback {
		return nil
	}
	return []string{fmt.Sprintf("no models configured in .ctxls.yaml; prompts are fitted to an assumed %d-token context window", b.Window)}
}

// built is a step's prompt, fitted to its model's window.
type built struct {
	prompt string
	// asked is the prompt without the history it was given: the step's
	// request as the history stores it.
	asked string
	cost  promptCost
	cuts  []history.Cut
}

// build completes parts with the history of the conversation (with pending
// messages after its stored ones) and fits the prompt to the window of model
// b: the history is compressed first, the context and shared data cut last,
// the command and the input never (history.Fit). The error wraps
// history.ErrPromptTooLarge when the command and the input alone do not fit.
// When the history cannot be read the prompt is fitted without it, with a
// warning.
func (r *Runner) build(ctx context.Context, lib *library.Snapshot, b history.ModelBudget, conversationID string,
	pending []Message, parts promptParts) (built, []string, error) {
	counter := lib.Counter()
	// Memory comes first: sections are cut from the last one, and the
	// project's instructions are the last thing to lose.
	sections := make([]history.Section, 0, len(parts.memory)+len(parts.context)+1)
	for _, m := range parts.memory {
		sections = append(sections, history.Section{Name: m.item.Key, Text: strings.TrimSpace(m.content), Tokens: max(m.tokens, 0)})
	}
	for _, l := range parts.context {
		sections = append(sections, history.Section{Name: l.item.Reference, Text: strings.TrimSpace(l.content), Tokens: max(l.tokens, 0)})
	}
	if parts.shared != "" {
		sections = append(sections, history.Section{Name: "shared data", Text: parts.shared})
	}
	framed := parts
	framed.history = "history" // the headings of a prompt with history
	p := history.Prompt{System: strings.TrimSpace(parts.command), Sections: sections, Request: strings.TrimSpace(parts.input),
		Overhead: counter.Count(scaffold(framed))}
	var (
		fit      history.Fitted
		warnings []string
		err      error
	)
	if r.opts.History != nil {
		fit, warnings, err = r.opts.History.Fit(ctx, conversationID, pending, p, b)
		if err != nil && !errors.Is(err, history.ErrPromptTooLarge) {
			warnings = append(warnings, fmt.Sprintf("history left out: %v", err))
			fit, err = history.Fit(counter, p, b.Window)
		}
	} else {
		fit, err = history.Fit(counter, p, b.Window)
	}
	if err != nil {
		return built{}, warnings, fmt.Errorf("model %s (context window %d): %w", b.Model, b.Window, err)
	}
	parts.memory = append([]memoryPart(nil), parts.memory...)
	for i := range parts.memory {
		if fit.Sections[i].Text != sections[i].Text {
			parts.memory[i].content, parts.memory[i].tokens = fit.Sections[i].Text, -1
		}
	}
	parts.context = append([]loaded(nil), parts.context...)
	for i := range parts.context {
		j := len(parts.memory) + i
		if fit.Sections[j].Text != sections[j].Text {
			parts.context[i].content, parts.context[i].tokens = fit.Sections[j].Text, -1
		}
	}
	if parts.shared != "" {
		parts.shared = strings.TrimRight(fit.Sections[len(fit.Sections)-1].Text, "\n")
	}
	parts.history = fit.History
	out := built{cuts: fit.Cuts}
	out.prompt, out.cost = assemble(parts, counter)
	parts.history = ""
	out.asked, _ = assemble(parts, nil)
	if len(fit.Cuts) > 0 {
		warnings = append(warnings, cutSummary(b, fit.Cuts))
	}
	return out, warnings, nil
}

// cutSummary says in one line what a prompt lost to fit a model's window.
func cutSummary(b history.ModelBudget, cuts []history.Cut) string {
	var sections []string
	final := map[int64]string{} // a history message's last cut
	for _, c := range cuts {
		if c.Part == "section" {
			sections = append(sections, c.Section)
		} else {
			final[c.MessageID] = c.Action
		}
	}
	var dropped, shortened int
	for _, action := range final {
		if action == "dropped" {
			dropped++
		} else {
			shortened++
		}
	}
	var what []string
	if dropped > 0 {
		what = append(what, fmt.Sprintf("%d history message(s) left out", dropped))
	}
	if shortened > 0 {
		what = append(what, fmt.Sprintf("%d history message(s) shortened", shortened))
	}
	if len(sections) > 0 {
		what = append(what, "shortened: "+strings.Join(sections, ", "))
	}
	return fmt.Sprintf("the prompt was cut to fit the %d-token context window of model %s: %s", b.Window, b.Model, strings.Join(what, "; "))
}

// fillMemory sets the memory items of a step and their costs.
func fillMemory(st *Step, mem []memoryPart, cost promptCost) {
	st.Memory = make([]*MemoryItem, len(mem))
	for i, m := range mem {
		if i < len(cost.perMemory) {
			m.item.Tokens = cost.perMemory[i]
		}
		st.Memory[i] = m.item
	}
	st.MemoryTokens = cost.memory
}

func fillCost(st *Step, kept, dropped []*ContextItem, cost promptCost) {
	for j, it := range kept {
		if j < len(cost.perItem) {
			it.Tokens = cost.perItem[j]
		}
		if it.Cached {
			st.CacheHits++
		}
	}
	st.Context, st.Dropped = nonNil(kept), nonNil(dropped)
	st.CommandTokens, st.ContextTokens = cost.command, cost.context
	st.SharedDataTokens, st.HistoryTokens, st.InputTokens = cost.shared, cost.history, cost.input
	st.FramingTokens, st.PromptTokens = cost.framing, cost.total
}

func nonNil(items []*ContextItem) []*ContextItem {
	if items == nil {
		return []*ContextItem{}
	}
	return items
}

// Run runs a chain: in a new execution (which becomes the current one), or
// after the steps of req.SessionID's execution. Names of chains from the
// configuration are expanded (see expand). Steps run in order until
// one fails or is interrupted; each is committed before the next starts.
// Cancelling ctx (or Cancel) stops the running agent and leaves its step
// interrupted.
func (r *Runner) Run(ctx context.Context, req Request) (*Result, error) {
	lib := r.opts.Library()
	cmds, err := commandsOf(lib, expand(lib, req.Commands))
	if err != nil {
		return nil, err
	}
	if _, err := modelBudget(lib.Config(), req.Model); err != nil {
		return nil, err
	}
	exe, err := r.runExecutor(lib)
	if err != nil {
		return nil, err
	}
	id := req.SessionID
	if id != "" {
		if _, err := r.opts.Store.Summary(ctx, id); err != nil {
			return nil, err
		}
	} else {
		project := req.ProjectName
		if project == "" {
			project = filepath.Base(lib.Dir())
		}
		st, err := r.opts.Store.Create(ctx, project, "")
		if err != nil {
			return nil, err
		}
		id = st.SessionID
	}
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return r.drive(ctx, lib, exe, id, execution.RunKindRun, names, req.Input, req.Model, req.Progress)
}

// Resume runs the chain of execution req.SessionID again from its first
// step that did not succeed, with the model and progress of req; steps that
// succeeded are not run again. The commands and input are those of the
// chain being resumed; req's are not used.
func (r *Runner) Resume(ctx context.Context, req Request) (*Result, error) {
	lib := r.opts.Library()
	sessionID, progress := req.SessionID, req.Progress
	if _, err := modelBudget(lib.Config(), req.Model); err != nil {
		return nil, err
	}
	rp, err := r.opts.Store.ResumePoint(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(rp.Steps))
	for i, s := range rp.Steps {
		names[i] = s.Command
	}
	if _, err := commandsOf(lib, names[rp.Next:]); err != nil && !rp.Done {
		return nil, fmt.Errorf("resume %s: %w", sessionID, err)
	}
	exe, err := r.runExecutor(lib)
	if err != nil {
		return nil, err
	}
	return r.drive(ctx, lib, exe, sessionID, execution.RunKindResume, names, rp.Input, req.Model, progress)
}

// Cancel stops the chain running in the execution, or every chain this
// Runner runs when sessionID is empty. It returns the executions whose
// chain it stopped.
func (r *Runner) Cancel(sessionID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id, cancel := range r.active {
		if sessionID == "" || id == sessionID {
			cancel()
			out = append(out, id)
		}
	}
	return out
}

// Running reports the executions whose chain this Runner is running.
func (r *Runner) Running() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.active))
}

func (r *Runner) claim(sessionID string, cancel context.CancelFunc) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.active[sessionID]; busy {
		return fmt.Errorf("%w in execution %s in this process", ErrConflict, sessionID)
	}
	r.active[sessionID] = cancel
	return nil
}

func (r *Runner) release(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.active, sessionID)
}

// drive runs the plan's steps from the first one not done, with the prompts
// fitted to the named model.
func (r *Runner) drive(ctx context.Context, lib *library.Snapshot, exe Executor, sessionID string, kind execution.RunKind,
	names []string, input, model string, progress func(Event)) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := r.claim(sessionID, cancel); err != nil {
		return nil, err
	}
	defer r.release(sessionID)
	store := r.opts.Store
	run, err := store.StartRun(ctx, sessionID, kind)
	if err != nil {
		return nil, err
	}
	// The run's end is recorded even when the request was cancelled.
	wctx := context.WithoutCancel(ctx)
	finished := false
	defer func() {
		if !finished {
			store.FinishRun(wctx, run.RunID)
		}
	}()
	if kind == execution.RunKindRun {
		if err := store.SetPlan(ctx, sessionID, names, input); err != nil {
			return nil, err
		}
	}
	rp, err := store.ResumePoint(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	res := &Result{SessionID: sessionID, RunID: run.RunID, Executor: exe.Kind(), Tokenizer: lib.Counter().Name(), Budget: effectiveBudget(lib.Config().Budget), Warnings: []string{}}
	if res.Model, err = modelBudget(lib.Config(), model); err == nil {
		res.Warnings = append(res.Warnings, fallbackWarning(res.Model)...)
	}
	stopped := false
	for i, ps := range rp.Steps {
		st := Step{Command: ps.Command, Index: i, Step: ps.Step, Status: string(ps.Status), Attempts: ps.Attempts,
			Context: []*ContextItem{}, Dropped: []*ContextItem{}, Memory: []*MemoryItem{}, Warnings: []string{}}
		switch {
		case ps.Status == execution.StatusSuccess:
			st.Skipped = kind == execution.RunKindResume
		case stopped:
			st.Status = "pending"
		default:
			// The library may have changed since the last step.
			lib = r.opts.Library()
			cmds, err := commandsOf(lib, []string{ps.Command})
			var b history.ModelBudget
			if err == nil {
				b, err = modelBudget(lib.Config(), model)
			}
			if err != nil {
				st.Status, st.Reason = "pending", err.Error()
				res.Warnings = append(res.Warnings, err.Error())
				stopped = true
				break
			}
			res.Model = b
			st, err = r.step(ctx, wctx, stepJob{lib: lib, exe: exe, budget: b, sessionID: sessionID, runID: run.RunID,
				index: i, total: len(rp.Steps), cmd: cmds[0], input: input, progress: progress})
			if err != nil {
				return nil, err
			}
			if st.Status != string(execution.StatusSuccess) && st.Status != string(execution.StatusPartial) {
				stopped = true
			}
		}
		res.Steps = append(res.Steps, st)
		res.TotalTokens += st.PromptTokens
		res.CacheHits += st.CacheHits
	}
	finished = true
	if err := store.FinishRun(wctx, run.RunID); err != nil {
		return nil, err
	}
	sum, err := store.Summary(wctx, sessionID)
	if err != nil {
		return nil, err
	}
	res.State = sum.State
	return res, nil
}

// stepJob is what one step runs: a command of the library with the
// chain's input, its prompt fitted to the window of model budget.
type stepJob struct {
	lib       *library.Snapshot
	exe       Executor
	budget    history.ModelBudget
	sessionID string
	runID     string
	index     int // the step's place in the chain
	total     int // the chain's number of steps
	cmd       *library.Command
	input     string
	progress  func(Event) // nil: no events
}

// stepRun is one step on its way: what each stage works out for the next.
type stepRun struct {
	stepJob
	r       *Runner
	started time.Time
	st      Step

	kept, dropped []*ContextItem
	parts         promptParts
	bl            built
	tooLarge      error // the command and the input alone do not fit
	outputs       map[string]any

	out    Outcome
	status execution.Status
	text   string // the agent's output as text
	shared map[string]json.RawMessage
}

// step runs one step and records it. ctx cancels the agent; wctx, which is
// not cancelled, carries the writes that record the outcome. An error
// means the step could not be recorded.
func (r *Runner) step(ctx, wctx context.Context, job stepJob) (Step, error) {
	s := &stepRun{stepJob: job, r: r, started: time.Now(), status: execution.StatusSuccess,
		st: Step{Command: job.cmd.Name, Index: job.index, Path: job.cmd.Path, Status: string(execution.StatusRunning), Warnings: []string{}}}
	if err := s.start(ctx); err != nil {
		return s.st, err
	}
	if err := s.buildPrompt(wctx); err != nil {
		return s.st, err
	}
	s.notify(StepStarted)
	s.recordInputs()
	s.execute(ctx)
	s.judge(ctx)
	s.keepOutput()
	s.appendHistory(wctx)
	if err := s.complete(wctx); err != nil {
		return s.st, err
	}
	s.notify(StepFinished)
	return s.st, nil
}

// warn adds warnings to the step.
func (s *stepRun) warn(warns ...string) { s.st.Warnings = append(s.st.Warnings, warns...) }

// notify reports the step's progress, if anyone listens.
func (s *stepRun) notify(kind EventKind) {
	if s.progress != nil {
		s.progress(Event{Kind: kind, Index: s.index, Total: s.total, Step: s.st})
	}
}

// start plans and loads the step's context and memory, and records the
// start of the step with the context it loads, in one commit.
func (s *stepRun) start(ctx context.Context) error {
	store := s.r.opts.Store
	var warns []string
	s.kept, s.dropped, warns = plan(ctx, s.r.opts.Provider, s.lib, s.cmd, s.lib.Config().Budget)
	s.warn(warns...)
	cached, err := store.CachedContexts(ctx, s.sessionID, keysOf(s.kept))
	if err != nil {
		return err
	}
	mem, warns, err := s.r.executionMemory(ctx, s.lib, s.sessionID, true)
	if err != nil {
		return err
	}
	s.warn(warns...)
	s.parts = promptParts{command: s.cmd.Body(), memory: mem, input: s.input}
	var hits []bool
	s.parts.context, hits = s.r.loadContext(ctx, s.kept, nil, cached, &s.st)
	s.kept = itemsOf(s.parts.context)
	loads := make([]execution.ContextLoad, len(s.parts.context))
	for i, l := range s.parts.context {
		loads[i] = execution.ContextLoad{ContextKey: l.item.key(), Content: l.content, Cached: hits[i]}
	}
	ce, err := store.StartStep(ctx, s.sessionID, s.cmd.Name, map[string]any{"input": s.input, "runId": s.runID, "chainIndex": s.index}, loads)
	if err != nil {
		return err
	}
	s.st.Step, s.st.Attempts = ce.Step, ce.Attempts
	return nil
}

// buildPrompt adds the data shared by earlier steps and the history, fits
// the prompt to the model's window and fills in the step's costs.
func (s *stepRun) buildPrompt(wctx context.Context) error {
	upstream, err := s.r.opts.Store.AllSharedData(wctx, s.sessionID)
	if err != nil {
		return err
	}
	s.parts.shared = renderShared(upstream)
	var warns []string
	s.bl, warns, s.tooLarge = s.r.build(wctx, s.lib, s.budget, s.sessionID, nil, s.parts)
	s.warn(warns...)
	if s.tooLarge != nil {
		// Nothing is sent; the costs say what would not fit.
		_, s.bl.cost = assemble(s.parts, s.lib.Counter())
	}
	fillCost(&s.st, s.kept, s.dropped, s.bl.cost)
	fillMemory(&s.st, s.parts.memory, s.bl.cost)
	s.st.Cuts = s.bl.cuts
	return nil
}

// recordInputs starts the step's outputs with what went into its prompt.
func (s *stepRun) recordInputs() {
	st, b := &s.st, s.budget
	s.outputs = map[string]any{
		"model":            b.Model,
		"contextWindow":    b.Window,
		"historyBudget":    b.History,
		"executor":         s.exe.Kind(),
		"promptTokens":     st.PromptTokens,
		"commandTokens":    st.CommandTokens,
		"memoryTokens":     st.MemoryTokens,
		"contextTokens":    st.ContextTokens,
		"sharedDataTokens": st.SharedDataTokens,
		"historyTokens":    st.HistoryTokens,
		"inputTokens":      st.InputTokens,
		"cacheHits":        st.CacheHits,
	}
	var dropRefs []string
	for _, d := range s.dropped {
		dropRefs = append(dropRefs, d.Reference)
	}
	if dropRefs != nil {
		s.outputs["dropped"] = dropRefs
	}
	if len(s.bl.cuts) > 0 {
		s.outputs["cuts"] = s.bl.cuts
	}
}

// execute hands the prompt to the executor, unless the run is cancelled
// or the prompt does not fit.
func (s *stepRun) execute(ctx context.Context) {
	switch {
	case ctx.Err() != nil:
		s.out = Outcome{Cancelled: true, Failure: "cancelled before the agent started"}
	case s.tooLarge != nil:
		s.out = Outcome{Failure: s.tooLarge.Error()}
	default:
		var err error
		job := Job{Command: s.cmd.Name, SessionID: s.sessionID, Step: s.st.Step, Attempt: s.st.Attempts, Prompt: s.bl.prompt}
		if s.out, err = s.exe.Execute(ctx, job); err != nil {
			s.out.Failure = err.Error()
		}
	}
}

// judge sets the step's status and reason from the outcome.
func (s *stepRun) judge(ctx context.Context) {
	out := s.out
	switch {
	case out.Cancelled || ctx.Err() != nil:
		s.status, s.st.Reason = execution.StatusInterrupted, "cancelled"
		if out.Failure != "" {
			s.st.Reason = out.Failure
		}
	case s.tooLarge != nil:
		s.status, s.st.Reason, s.st.TooLarge = execution.StatusFailed, out.Failure, true
	case !out.Ran:
		// The preview executor: the prompt is the record.
		s.outputs["prompt"] = s.bl.prompt
	case out.Failure != "":
		s.status, s.st.Reason = execution.StatusFailed, out.Failure
	}
}

// keepOutput records what the agent printed, and the data it shares with
// the next steps when it succeeded.
func (s *stepRun) keepOutput() {
	out, outputs := s.out, s.outputs
	if out.Ran {
		s.text = string(out.Output)
		if !utf8.Valid(out.Output) || bytes.IndexByte(out.Output, 0) >= 0 {
			// Keep the exact bytes; the text form is for people and prompts.
			outputs["outputBase64"] = base64.StdEncoding.EncodeToString(out.Output)
			s.text = strings.ToValidUTF8(strings.ReplaceAll(s.text, "\x00", "\uFFFD"), "\uFFFD")
			s.warn(fmt.Sprintf("the agent's output is not UTF-8 text (%d bytes); kept as base64 in outputBase64", len(out.Output)))
		}
		if out.OutputBytes > int64(len(out.Output)) {
			s.warn(fmt.Sprintf("the agent printed %d bytes; only the first %d were kept", out.OutputBytes, len(out.Output)))
			if s.status == execution.StatusSuccess {
				s.status = execution.StatusPartial
			}
		}
		outputs["output"] = s.text
		outputs["outputBytes"] = out.OutputBytes
		outputs["exitCode"] = out.ExitCode
		outputs["elapsedMs"] = out.Elapsed.Milliseconds()
		code := out.ExitCode
		s.st.ExitCode, s.st.OutputBytes = &code, out.OutputBytes
		if out.Stderr != "" {
			outputs["stderr"] = lastLines(out.Stderr, 40)
		}
		if s.status == execution.StatusSuccess || s.status == execution.StatusPartial {
			var warns []string
			s.shared, warns = parseShared(s.text)
			s.warn(warns...)
		}
	}
	if s.st.Reason != "" {
		outputs["reason"] = s.st.Reason
	}
	if len(s.st.Warnings) > 0 {
		outputs["warnings"] = s.st.Warnings
	}
}

// appendHistory adds the step's request and answer to the conversation.
func (s *stepRun) appendHistory(wctx context.Context) {
	h := s.r.opts.History
	if h == nil || s.status == execution.StatusInterrupted || s.tooLarge != nil {
		return
	}
	// The step's request is its prompt without the history it was given:
	// the history holds that already, and a copy in every message would
	// nest each step's history in the next. They are committed before the
	// step's completion; should the process die in between, the step is
	// interrupted and its next attempt's messages supersede these.
	msgs := []Message{{ConversationID: s.sessionID, Role: "user", Content: s.bl.asked, RunID: s.runID, Command: s.cmd.Name,
		Step: s.st.Step, Attempt: s.st.Attempts}}
	if s.out.Ran && s.text != "" {
		msgs = append(msgs, Message{ConversationID: s.sessionID, Role: "assistant", Content: s.text, RunID: s.runID, Command: s.cmd.Name,
			Step: s.st.Step, Attempt: s.st.Attempts})
	}
	if err := h.Append(wctx, msgs...); err != nil {
		s.warn(fmt.Sprintf("history: %v", err))
	}
}

// complete records the step's completion and finishes its result.
func (s *stepRun) complete(wctx context.Context) error {
	done, err := s.r.opts.Store.CompleteStep(wctx, s.sessionID, s.cmd.Name, s.status, s.outputs, s.shared)
	if err != nil {
		return err
	}
	s.st.Status = string(s.status)
	text := s.text
	if len(text) > outputInResult {
		text = strings.ToValidUTF8(text[:outputInResult], "") + "\n… (output continues in the execution record)"
	}
	s.st.Output = text
	// The recorded duration of the attempt, which the execution record
	// shows too.
	s.st.ElapsedMS = time.Since(s.started).Milliseconds()
	if done.CompletedAt != nil {
		s.st.ElapsedMS = done.CompletedAt.Sub(done.StartedAt).Milliseconds()
	}
	return nil
}
