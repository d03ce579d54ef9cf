package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain"
)

func (s *Server) chainRun(ctx context.Context, p ops.ChainRunRequest) (ops.ChainResponse, error) {
	title := "Chain " + strings.Join(p.Commands, " → ")
	return s.driveChain(ctx, p, title, (*ops.Ops).RunChain)
}

func (s *Server) chainResume(ctx context.Context, p ops.ChainResumeRequest) (ops.ChainResponse, error) {
	return s.driveChain(ctx, p.ChainRunRequest(), "Resume chain", (*ops.Ops).ResumeChain)
}

// driveChain runs or resumes a chain, reporting each step with $/progress
// on the request's work-done token. Cancelling the request, or the
// progress, stops the running agent.
func (s *Server) driveChain(ctx context.Context, p ops.ChainRunRequest, title string,
	do func(*ops.Ops, context.Context, ops.ChainRequest) (ops.ChainResponse, error)) (ops.ChainResponse, error) {
	o, err := s.operations(ctx)
	if err != nil {
		return ops.ChainResponse{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := s.cancellableProgress(ctx, p.WorkDoneToken, title)
	if prog != nil {
		key := tokenKey(prog.token)
		s.chains.Store(key, cancel)
		defer s.chains.Delete(key)
	}
	req := p.ChainRequest
	req.Progress = func(e chain.Event) {
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
		prog.report(ctx, msg, pct)
	}
	res, err := do(o, ctx, req)
	if err != nil {
		prog.end(ctx, "failed: "+err.Error())
		return ops.ChainResponse{}, err
	}
	prog.end(ctx, fmt.Sprintf("%s: %s", res.SessionID, res.State))
	return res, nil
}

// cancellableProgress starts a progress the client may cancel, on the
// request's token or, without one, on a token the server creates when the
// client supports that. It returns nil when there is no way to report.
func (s *Server) cancellableProgress(ctx context.Context, token json.RawMessage, title string) *progress {
	return s.beginProgress(ctx, token, "ctxls-chain-",
		protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: ptr(true), Percentage: ptr(uint32(0))})
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
	if cancel, ok := s.chains.Load(tokenKey(params.Token)); ok {
		cancel.(context.CancelFunc)()
	}
	return nil
}
