package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/runs/chain"
)

// chainParams are the parameters of ctxls/chain/preview, run and resume.
// Model names the configured model whose window the prompts are fitted to
// (default: the configuration's defaultModel).
type chainParams struct {
	Commands      []string        `json:"commands"`
	Input         string          `json:"input"`
	SessionID     string          `json:"sessionId"`
	ProjectName   string          `json:"projectName"`
	Model         string          `json:"model"`
	WorkDoneToken json.RawMessage `json:"workDoneToken"`
	// ExecutorCommand, when given (run and resume), is the executor's
	// command line as the client showed it to the user: the chain runs
	// only while the configuration's exec executor still has exactly that
	// argv, so that an edit of .ctxls.yaml after the user agreed does not
	// run something else. An empty list agrees to no exec executor.
	ExecutorCommand []string `json:"executorCommand"`
}

// checkExecutor refuses to run when the client agreed to a command line
// that is not the one the exec executor in effect would run.
func (s *Server) checkExecutor(ctx context.Context, p chainParams) error {
	if p.ExecutorCommand == nil {
		return nil
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return err
	}
	e := ws.Library().Config().Executor
	if e.Kind != chain.KindExec || slices.Equal(e.Command, p.ExecutorCommand) {
		return nil
	}
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("the exec executor's command line is now %q, not the %q that was confirmed; confirm it again before running", e.Command, p.ExecutorCommand))
}

func decodeChainParams(params json.RawMessage, needCommands bool) (chainParams, error) {
	var p chainParams
	if err := decodeParams(params, &p); err != nil {
		return p, err
	}
	if needCommands && len(p.Commands) == 0 {
		return p, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: commands must list at least one command name")
	}
	for i, c := range p.Commands {
		if strings.TrimSpace(c) == "" {
			return p, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("invalid params: commands[%d] is empty", i))
		}
	}
	return p, nil
}

// chainResult is a chain.Result with its warnings in the protocol's shape.
type chainResult struct {
	*chain.Result
	Warnings []warning `json:"warnings"`
}

// chainError maps the runner's errors to JSON-RPC errors: an unknown model
// is a bad parameter, like an unknown command.
func chainError(err error) error {
	if errors.Is(err, chain.ErrUnknownModel) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return executionError(err)
}

func newChainResult(r *chain.Result) chainResult {
	ws := make([]warning, 0, len(r.Warnings))
	for _, w := range r.Warnings {
		ws = append(ws, warning{Message: w})
	}
	return chainResult{Result: r, Warnings: ws}
}

func chainPreview(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	p, err := decodeChainParams(params, true)
	if err != nil {
		return nil, err
	}
	_, runner, err := s.chainState(ctx)
	if err != nil {
		return nil, err
	}
	res, err := runner.Preview(ctx, chain.Request{Commands: p.Commands, Input: p.Input, SessionID: p.SessionID, Model: p.Model})
	if err != nil {
		return nil, chainError(err)
	}
	return newChainResult(res), nil
}

func chainRun(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	p, err := decodeChainParams(params, true)
	if err != nil {
		return nil, err
	}
	if err := s.checkExecutor(ctx, p); err != nil {
		return nil, err
	}
	title := "Chain " + strings.Join(p.Commands, " → ")
	return s.driveChain(ctx, p.WorkDoneToken, title, func(ctx context.Context, runner *chain.Runner, progress func(chain.Event)) (*chain.Result, error) {
		return runner.Run(ctx, chain.Request{Commands: p.Commands, Input: p.Input, SessionID: p.SessionID,
			ProjectName: p.ProjectName, Model: p.Model, Progress: progress})
	})
}

func chainResume(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	p, err := decodeChainParams(params, false)
	if err != nil {
		return nil, err
	}
	if err := requireField("sessionId", p.SessionID); err != nil {
		return nil, err
	}
	if err := s.checkExecutor(ctx, p); err != nil {
		return nil, err
	}
	return s.driveChain(ctx, p.WorkDoneToken, "Resume chain", func(ctx context.Context, runner *chain.Runner, progress func(chain.Event)) (*chain.Result, error) {
		return runner.ResumeWith(ctx, chain.Request{SessionID: p.SessionID, Model: p.Model, Progress: progress})
	})
}

// driveChain runs or resumes a chain, reporting each step with $/progress
// on the request's work-done token. Cancelling the request, or the
// progress, stops the running agent.
func (s *Server) driveChain(ctx context.Context, token json.RawMessage, title string,
	do func(context.Context, *chain.Runner, func(chain.Event)) (*chain.Result, error)) (any, error) {
	_, runner, err := s.chainState(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := s.cancellableProgress(ctx, token, title)
	if prog != nil {
		key := tokenKey(prog.token)
		s.exec.mu.Lock()
		if s.exec.chains == nil {
			s.exec.chains = map[string]context.CancelFunc{}
		}
		s.exec.chains[key] = cancel
		s.exec.mu.Unlock()
		defer func() {
			s.exec.mu.Lock()
			delete(s.exec.chains, key)
			s.exec.mu.Unlock()
		}()
	}
	res, err := do(ctx, runner, func(e chain.Event) {
		pct := 100 * e.Index / max(e.Total, 1)
		var msg string
		switch e.Kind {
		case chain.StepStarted:
			msg = fmt.Sprintf("[%d/%d] %s: running (%d prompt tokens, %d cached)", e.Index+1, e.Total, e.Step.Command,
				e.Step.PromptTokens, e.Step.CacheHits)
		default:
			pct = 100 * (e.Index + 1) / max(e.Total, 1)
			msg = fmt.Sprintf("[%d/%d] %s: %s", e.Index+1, e.Total, e.Step.Command, e.Step.Status)
		}
		prog.Report(ctx, msg, pct)
	})
	if err != nil {
		prog.End(ctx, "failed: "+err.Error())
		return nil, chainError(err)
	}
	prog.End(ctx, fmt.Sprintf("%s: %s", res.SessionID, res.State))
	return newChainResult(res), nil
}

// cancellableProgress starts a progress the client may cancel, on the
// request's token or, without one, on a token the server creates when the
// client supports that. It returns nil when there is no way to report.
func (s *Server) cancellableProgress(ctx context.Context, token json.RawMessage, title string) *progress {
	tok := progressToken(token)
	if tok == nil {
		s.mu.Lock()
		ok := s.caps.workDoneProgress
		s.mu.Unlock()
		if !ok || s.client == nil {
			return nil
		}
		tok = protocol.String(fmt.Sprintf("ctxls-chain-%d", tokenSeq.Add(1)))
		if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: tok}); err != nil {
			s.stderr.Debug("create a progress token", "err", err)
			return nil
		}
	}
	p := &progress{s: s, token: tok}
	p.send(ctx, protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: ptr(true), Percentage: ptr(uint32(0))})
	return p
}

func tokenKey(t protocol.ProgressToken) string {
	return fmt.Sprintf("%T:%v", t, t)
}

// WorkDoneProgressCancel handles window/workDoneProgress/cancel: the user
// cancelled a chain's progress.
func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	if params == nil || params.Token == nil {
		return nil
	}
	s.exec.mu.Lock()
	cancel := s.exec.chains[tokenKey(params.Token)]
	s.exec.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

func chainCancel(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p sessionParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	_, runner, err := s.chainState(ctx)
	if err != nil {
		return nil, err
	}
	stopped := runner.Cancel(p.SessionID)
	ws := []warning{}
	if len(stopped) == 0 {
		what := "no chain is running"
		if p.SessionID != "" {
			what = "no chain of execution " + p.SessionID + " is running in this server"
		}
		ws = append(ws, warning{Message: what})
	}
	if stopped == nil {
		stopped = []string{}
	}
	return map[string]any{"cancelled": stopped, "warnings": ws}, nil
}

func chainList(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	chains := ws.Library().Config().Chains
	if chains == nil {
		chains = []config.Chain{}
	}
	var warns []warning
	for _, pr := range ws.Library().ConfigProblems() {
		if strings.Contains(pr.Message, "chain") {
			warns = append(warns, warning{Message: pr.String()})
		}
	}
	return chainListResult{list: newList(chains, warns), Executor: executorOf(ws.Library().Config().Executor)}, nil
}

// chainListResult is the result of ctxls/chain/list: the named chains and
// the executor their steps run with, whose command line a client shows
// before the first run of an exec executor that the workspace configures.
type chainListResult struct {
	list[config.Chain]
	Executor executorInfo `json:"executor"`
}

// executorInfo is the executor in effect as ctxls/chain/list reports it.
type executorInfo struct {
	Kind string `json:"kind"`
	// Command is the argv of an exec executor, empty otherwise.
	Command []string `json:"command"`
}

func executorOf(e config.Executor) executorInfo {
	info := executorInfo{Kind: e.Kind, Command: []string{}}
	if info.Kind == "" {
		info.Kind = chain.KindPreview
	}
	if info.Kind == chain.KindExec {
		info.Command = slices.Clone(e.Command)
	}
	return info
}
