package ops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/tokens"
)

// SessionCostRequest names the agent whose session is costed.
type SessionCostRequest struct {
	// Agent is one of the agents ctxls knows (claude, codex, gemini,
	// cursor, copilot, windsurf, cline, kiro, opencode), or all for every
	// agent the project configures, side by side; empty means claude.
	Agent string `json:"agent,omitempty"`
	// ContextWindow is the model's window in tokens; 0 means the default.
	ContextWindow int `json:"contextWindow,omitempty"`
	// Tokenizer, when set, counts in that encoding rather than the
	// agent's own.
	Tokenizer string `json:"tokenizer,omitempty"`
}

// SessionCost is what a session of the agent loads from the workspace: the
// same object as ctxls cost --format json.
func (o *Ops) SessionCost(ctx context.Context, req SessionCostRequest) (*agentload.Cost, error) {
	agent, err := req.agent()
	if err != nil {
		return nil, err
	}
	return withHeavy(o, ctx, func(ctx context.Context) (*agentload.Cost, error) {
		snap := o.opts.Snapshot()
		lib, set := snap.Library(), o.agentSet(snap)
		counter, err := req.counter()
		if err != nil {
			return nil, err
		}
		return costSession(ctx, lib.Dir(), lib.Config(), counter, set, agent, req.ContextWindow)
	})
}

// SessionCostIn is SessionCost for the workspace at dir with its
// configuration and counter, without indexing its library: a session's
// cost reads the agent files only, and ctxls cost runs on its own.
func SessionCostIn(ctx context.Context, dir string, cfg *config.Config, req SessionCostRequest) (*agentload.Cost, error) {
	agent, err := req.agent()
	if err != nil {
		return nil, err
	}
	counter, err := req.counter()
	if err != nil {
		return nil, err
	}
	return costSession(ctx, dir, cfg, counter, nil, agent, req.ContextWindow)
}

// counter returns the counter of the request's tokenizer, nil for the
// agent's own.
func (req SessionCostRequest) counter() (tokens.Counter, error) {
	if req.Tokenizer == "" {
		return nil, nil
	}
	c, err := tokens.New(req.Tokenizer)
	if err != nil {
		return nil, invalidf("%v", err)
	}
	return c, nil
}

// agent returns the request's agent, claude when none is named.
func (req SessionCostRequest) agent() (string, error) {
	agent := strings.TrimSpace(req.Agent)
	if agent == "" {
		agent = agentload.Claude
	}
	if !slices.Contains(agentload.Agents, agent) && agent != agentload.All {
		return "", invalidf("agent must be one of %s, not %q", strings.Join(append(slices.Clone(agentload.Agents), agentload.All), ", "), req.Agent)
	}
	if req.ContextWindow < 0 {
		return "", invalidf("contextWindow must not be negative")
	}
	return agent, nil
}

// costSession computes the cost from set, or from the agent files it loads
// when set is nil.
func costSession(ctx context.Context, dir string, cfg *config.Config, counter tokens.Counter, set *agentfiles.Set, agent string, window int) (*agentload.Cost, error) {
	if set == nil {
		var err error
		if set, err = agentfiles.Load(ctx, dir, cfg); err != nil {
			return nil, fmt.Errorf("session cost: %w", err)
		}
	}
	return agentload.Compute(ctx, set, agentload.Options{Agent: agent, ContextWindow: window, Config: cfg, Counter: counter})
}
