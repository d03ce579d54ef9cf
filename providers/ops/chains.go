package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/execution"
)

// Types of the chain runner as the chain operations return them.
type (
	ChainResult = chain.Result
	ChainEvent  = chain.Event
	NamedChain  = config.Chain
)

// ChainRequest asks for a chain of commands to be previewed, run or
// resumed.
type ChainRequest struct {
	// Commands are command names, with or without a leading "/", or names
	// of chains from the configuration.
	Commands []string `json:"commands"`
	// Input is the user's input, the last part of every prompt.
	Input string `json:"input"`
	// SessionID continues an execution; empty creates one (run) or
	// previews without one.
	SessionID string `json:"sessionId,omitempty"`
	// ProjectName names a created execution's project (default: the
	// workspace directory's name).
	ProjectName string `json:"projectName,omitempty"`
	// Model names the configured model whose context window the prompts
	// are fitted to (default: the configuration's defaultModel).
	Model string `json:"model,omitempty"`
	// ExecutorCommand, when given (run and resume), is the executor's
	// command line as the client showed it to the user: the chain runs
	// only while the configuration's exec executor still has exactly that
	// argv, so that an edit of .ctxls.yaml after the user agreed does not
	// run something else. An empty list agrees to no exec executor.
	ExecutorCommand []string `json:"executorCommand,omitempty"`
	// Progress, when set, receives an event as each step starts and ends.
	Progress func(ChainEvent) `json:"-"`
	// WholePrompts makes a preview return every prompt whole, however
	// long, for the command line, whose user may pipe a prompt on; other
	// front ends get the first maxPreviewPrompt bytes of each.
	WholePrompts bool `json:"-"`
}

// ChainResponse is a chain's preview or run, with its warnings in the
// response's shape.
type ChainResponse struct {
	*ChainResult
	Warnings []Warning `json:"warnings"`
}

func chainResponse(r *ChainResult, err error) (ChainResponse, error) {
	if err != nil {
		return ChainResponse{}, err
	}
	ws := make([]Warning, 0, len(r.Warnings))
	for _, w := range r.Warnings {
		ws = append(ws, Warning{Message: w})
	}
	return ChainResponse{ChainResult: r, Warnings: ws}, nil
}

// chainStores checks a chain request and returns the stores to run it
// with. A resume names its execution instead of commands.
func (o *Ops) chainStores(ctx context.Context, r ChainRequest, resume bool) (*stores, error) {
	if !resume && len(r.Commands) == 0 {
		return nil, invalidf("commands must list at least one command name")
	}
	for i, c := range r.Commands {
		if strings.TrimSpace(c) == "" {
			return nil, invalidf("commands[%d] is empty", i)
		}
	}
	if resume {
		if err := require(field{"sessionId", r.SessionID}); err != nil {
			return nil, err
		}
	}
	return o.stores(ctx)
}

// runStores is chainStores for a chain that runs: it checks the command
// line the client agreed to as well.
func (o *Ops) runStores(ctx context.Context, r ChainRequest, resume bool) (*stores, error) {
	st, err := o.chainStores(ctx, r, resume)
	if err != nil {
		return nil, err
	}
	if err := o.checkExecutor(r.ExecutorCommand); err != nil {
		return nil, err
	}
	return st, nil
}

// checkExecutor refuses to run when the client agreed to a command line
// (agreed is not nil) other than the one the exec executor in effect
// would run.
func (o *Ops) checkExecutor(agreed []string) error {
	if agreed == nil {
		return nil
	}
	e := o.Library().Config().Executor
	if e.Kind != chain.KindExec || slices.Equal(e.Command, agreed) {
		return nil
	}
	return invalidf("the exec executor's command line is now %q, not the %q that was confirmed; confirm it again before running", e.Command, agreed)
}

func (r ChainRequest) chain() chain.Request {
	return chain.Request{Commands: r.Commands, Input: r.Input, SessionID: r.SessionID,
		ProjectName: r.ProjectName, Model: r.Model, Progress: r.Progress}
}

// PreviewChain assembles the prompts of a chain without running anything
// or recording an execution.
func (o *Ops) PreviewChain(ctx context.Context, req ChainRequest) (ChainResponse, error) {
	// A preview builds and measures every prompt: as heavy as pricing.
	return withHeavy(o, ctx, func(ctx context.Context) (ChainResponse, error) {
		st, err := o.chainStores(ctx, req, false)
		if err != nil {
			return ChainResponse{}, err
		}
		r := req.chain()
		r.ProjectName, r.Progress = "", nil
		res, err := chainResponse(st.runner.Preview(ctx, r))
		if err != nil || req.WholePrompts {
			return res, err
		}
		for i := range res.Steps {
			s := &res.Steps[i]
			if n := len(s.Prompt); n > maxPreviewPrompt {
				s.Prompt = clipUTF8(s.Prompt, maxPreviewPrompt) + fmt.Sprintf("\n\n[… the preview stops here: %d more bytes of the prompt]\n", n-maxPreviewPrompt)
				res.Warnings = append(res.Warnings, Warning{Code: "prompt-clipped",
					Message: fmt.Sprintf("step %d (%s): the preview shows the first %d of the prompt's %d bytes; its token counts are of the whole prompt", s.Index+1, s.Command, maxPreviewPrompt, n)})
			}
		}
		return res, nil
	})
}

// maxPreviewPrompt bounds the text of each prompt a preview returns: a
// command that makes hundreds of thousands of references assembles a
// prompt of megabytes, which no panel shows whole, and a flood of
// previews would hold each in memory until it is written.
const maxPreviewPrompt = 256 << 10

// clipUTF8 returns at most n bytes of s, cut before a rune that does not
// fit.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// RunChain runs a chain in an execution, recording every step.
// Cancelling ctx stops the running step.
func (o *Ops) RunChain(ctx context.Context, req ChainRequest) (ChainResponse, error) {
	st, err := o.runStores(ctx, req, false)
	if err != nil {
		return ChainResponse{}, err
	}
	r := req.chain()
	r.Progress = o.tellProgress(req.Progress)
	res, err := st.runner.Run(ctx, r)
	o.executionsChanged()
	return chainResponse(res, err)
}

// ResumeChain continues the chain of an execution where it stopped.
func (o *Ops) ResumeChain(ctx context.Context, req ChainRequest) (ChainResponse, error) {
	st, err := o.runStores(ctx, req, true)
	if err != nil {
		return ChainResponse{}, err
	}
	res, err := st.runner.Resume(ctx, chain.Request{SessionID: req.SessionID, Model: req.Model, Progress: o.tellProgress(req.Progress)})
	o.executionsChanged()
	return chainResponse(res, err)
}

// tellProgress returns progress that also reports each step's end as a
// change of the executions.
func (o *Ops) tellProgress(progress func(ChainEvent)) func(ChainEvent) {
	return func(e ChainEvent) {
		if progress != nil {
			progress(e)
		}
		o.executionsChanged()
	}
}

// CancelChainResponse lists the executions whose chains were stopped.
type CancelChainResponse struct {
	Cancelled []string  `json:"cancelled"`
	Warnings  []Warning `json:"warnings"`
}

// CancelChain stops the chain running in an execution, or every chain
// this process runs when SessionID is empty.
func (o *Ops) CancelChain(ctx context.Context, req SessionRequest) (CancelChainResponse, error) {
	return withRuns(o, ctx, nil, func(st *stores) (CancelChainResponse, error) {
		stopped := st.runner.Cancel(req.SessionID)
		res := CancelChainResponse{Cancelled: stopped, Warnings: []Warning{}}
		if len(stopped) == 0 {
			what := "no chain is running"
			if req.SessionID != "" {
				what = "no chain of execution " + req.SessionID + " is running in this server"
			}
			res.Warnings = append(res.Warnings, Warning{Message: what})
		}
		if res.Cancelled == nil {
			res.Cancelled = []string{}
		}
		return res, nil
	})
}

// ChainsResponse lists the named chains of the configuration and the
// executor their steps run with, whose command line a client shows
// before the first run of an exec executor that the workspace configures.
type ChainsResponse struct {
	List[NamedChain]
	Executor ExecutorInfo `json:"executor"`
}

// ExecutorInfo is the executor in effect, as the chain list reports it.
type ExecutorInfo struct {
	// Kind is the executor's kind: preview or exec.
	Kind string `json:"kind"`
	// Command is the argv of an exec executor, empty otherwise.
	Command []string `json:"command"`
	// Source is where an exec executor's command line comes from:
	// "settings" (the user's own) or "workspace" (.ctxls.yaml).
	Source string `json:"source,omitempty"`
	// NeedsConsent is true for an exec executor of the workspace's
	// .ctxls.yaml that the user has not agreed to run in this workspace:
	// chains do not run until the user agrees (ctxls/trust/grant).
	NeedsConsent bool `json:"needsConsent,omitempty"`
}

func executorOf(e config.Executor) ExecutorInfo {
	info := ExecutorInfo{Kind: e.Kind, Command: []string{}}
	if info.Kind == "" {
		info.Kind = chain.KindPreview
	}
	if info.Kind == chain.KindExec {
		info.Command = slices.Clone(e.Command)
	}
	return info
}

// Chains lists the named chains of the configuration, with the problems
// of the configuration that concern them.
func (o *Ops) Chains(_ context.Context, _ Empty) (ChainsResponse, error) {
	lib := o.Library()
	var warns []Warning
	for _, pr := range lib.ConfigProblems() {
		if strings.Contains(pr.Message, "chain") {
			warns = append(warns, Warning{Message: pr.String()})
		}
	}
	cfg := lib.Config()
	return ChainsResponse{List: newList(cfg.Chains, warns), Executor: o.executorInfo(lib.Dir(), cfg.Executor)}, nil
}

// ResumePoint is where resuming an execution's chain would start: the
// execution named, or the current one when SessionID is empty.
func (o *Ops) ResumePoint(ctx context.Context, req SessionRequest) (*execution.ResumePoint, error) {
	return withRuns(o, ctx, nil, func(st *stores) (*execution.ResumePoint, error) {
		id := req.SessionID
		if id == "" {
			var err error
			if id, err = st.exec.Current(ctx); err != nil {
				return nil, err
			}
			if id == "" {
				return nil, invalidf("no current execution to resume; name one")
			}
		}
		return st.exec.ResumePoint(ctx, id)
	})
}
