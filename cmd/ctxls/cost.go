package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/tokens"
)

func runCost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("cost", stderr, true)
	agent := fs.String("agent", agentload.Claude, "the agent: "+strings.Join(agentload.Agents, ", ")+", or all for every agent the project configures, side by side")
	window := fs.Int("context-window", agentload.DefaultContextWindow, "the model's context window in tokens")
	tokenizer := fs.String("tokenizer", "", "count in this encoding: "+strings.Join(tokens.Names(), ", ")+" (default: the agent's own)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if !slices.Contains(agentload.Agents, *agent) && *agent != agentload.All {
		return usageError{msg: fmt.Sprintf("--agent must be one of %s or all, not %q", strings.Join(agentload.Agents, ", "), *agent)}
	}
	if *window < 1 {
		return usageError{msg: fmt.Sprintf("--context-window must be a positive number of tokens, not %d", *window)}
	}
	dir, err := workspaceDir("cost", *fs.dir, pos)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("cost: %w", err)
	}
	cfg, err := loadConfig(abs, stderr)
	if err != nil {
		return err
	}
	if *tokenizer != "" {
		if _, err := tokens.New(*tokenizer); err != nil {
			return usageError{msg: err.Error()}
		}
	}
	// The command's one state: the agent files, read once; a session's
	// cost needs no library.
	set, err := agentfiles.Load(ctx, abs, cfg)
	if err != nil {
		return fmt.Errorf("session cost: %w", err)
	}
	c, err := ops.SessionCostOf(ctx, set, cfg, ops.SessionCostRequest{Agent: *agent, ContextWindow: *window, Tokenizer: *tokenizer})
	if err != nil {
		return err
	}
	if *fs.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			return err
		}
		for _, w := range c.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		return nil
	}
	fmt.Fprint(stdout, present.SessionCost(c, *window))
	return nil
}
