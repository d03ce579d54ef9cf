package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/session"
)

// SessionCostRequest names the agent whose session is costed.
type SessionCostRequest struct {
	// Agent is claude, codex, cursor or copilot; empty means claude.
	Agent string `json:"agent,omitempty"`
	// ContextWindow is the model's window in tokens; 0 means the default.
	ContextWindow int `json:"contextWindow,omitempty"`
}

// SessionCost is what a session of the agent loads from the workspace: the
// same object as ctxls cost --format json.
func (o *Ops) SessionCost(ctx context.Context, req SessionCostRequest) (*session.Cost, error) {
	agent := strings.TrimSpace(req.Agent)
	if agent == "" {
		agent = session.Claude
	}
	if !slices.Contains(session.Agents, agent) {
		return nil, invalidf("agent must be one of %s, not %q", strings.Join(session.Agents, ", "), req.Agent)
	}
	if req.ContextWindow < 0 {
		return nil, invalidf("contextWindow must not be negative")
	}
	ctx, release, err := o.heavy(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	lib := o.Library()
	var set *agentfiles.Set
	if o.opts.AgentFiles != nil {
		set = o.opts.AgentFiles()
	}
	if set == nil {
		var err error
		if set, err = agentfiles.Load(ctx, lib.Dir(), lib.Config()); err != nil {
			return nil, fmt.Errorf("session cost: %w", err)
		}
	}
	return session.Compute(ctx, set, session.Options{Agent: agent, ContextWindow: req.ContextWindow, Config: lib.Config(), Counter: lib.Counter()})
}
