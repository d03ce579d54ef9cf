package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/session"
)

// sessionCost answers ctxls/sessionCost {agent?, contextWindow?}: what a
// session of the agent started at the workspace root loads, the object
// `ctxls cost --format json` prints.
func sessionCost(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Agent         string `json:"agent"`
		ContextWindow int    `json:"contextWindow"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	lib := ws.Library()
	set, err := agentfiles.Load(ctx, lib.Dir(), lib.Config())
	if err != nil {
		return nil, fmt.Errorf("session cost: %w", err)
	}
	c, err := session.Compute(ctx, set, session.Options{Agent: p.Agent, ContextWindow: p.ContextWindow, Config: lib.Config(), Counter: lib.Counter()})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return c, nil
}
