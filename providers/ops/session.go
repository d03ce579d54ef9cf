package ops

import (
	"context"
	"errors"
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
// same object as ctxls cost --format json. It is computed once per
// snapshot and request, and shared: callers must not change it.
func (o *Ops) SessionCost(ctx context.Context, req SessionCostRequest) (*agentload.Cost, error) {
	agent, err := req.agent()
	if err != nil {
		return nil, err
	}
	snap := o.opts.Snapshot()
	key := sessionKey{agent: agent, window: req.ContextWindow, tokenizer: req.Tokenizer}
	return o.sessions.Do(ctx, snap, key, func(ctx context.Context) (*agentload.Cost, error) {
		return withHeavy(o, ctx, func(ctx context.Context) (*agentload.Cost, error) {
			set, err := snap.AgentFiles(ctx)
			if err != nil {
				return nil, fmt.Errorf("session cost: %w", err)
			}
			return SessionCostOf(ctx, set, snap.Library().Config(), req)
		})
	})
}

// sessionKey is one session cost of a snapshot: the request, its agent
// resolved.
type sessionKey struct {
	agent, tokenizer string
	window           int
}

// sessionEntries bounds the session costs kept for a snapshot: one per
// agent, tokenizer and window asked about.
const sessionEntries = 64

// SessionCostOf is SessionCost for the agent files of set, read with the
// configuration cfg (nil for the defaults), without a library: a
// session's cost reads the agent files only, and ctxls cost runs on its
// own.
func SessionCostOf(ctx context.Context, set *agentfiles.Set, cfg *config.Config, req SessionCostRequest) (*agentload.Cost, error) {
	agent, err := req.agent()
	if err != nil {
		return nil, err
	}
	counter, err := req.counter()
	if err != nil {
		return nil, err
	}
	if set == nil {
		return nil, withKind(ErrUnavailable, errors.New("session cost: the workspace has no agent files to read"))
	}
	return agentload.Compute(ctx, set, agentload.Options{Agent: agent, ContextWindow: req.ContextWindow, Config: cfg, Counter: counter})
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
