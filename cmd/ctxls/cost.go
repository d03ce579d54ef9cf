package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ctxls/ctxls/providers/context/session"
	"github.com/ctxls/ctxls/providers/context/tokens"
	"github.com/ctxls/ctxls/providers/ops"
)

func runCost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("cost", stderr, true)
	agent := fs.String("agent", session.Claude, "the agent: "+strings.Join(session.Agents, ", ")+", or all for every agent the project configures, side by side")
	window := fs.Int("context-window", session.DefaultContextWindow, "the model's context window in tokens")
	tokenizer := fs.String("tokenizer", "", "count in this encoding: "+strings.Join(tokens.Names(), ", ")+" (default: the agent's own)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if !slices.Contains(session.Agents, *agent) && *agent != session.All {
		return usageError{msg: fmt.Sprintf("--agent must be one of %s or all, not %q", strings.Join(session.Agents, ", "), *agent)}
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
	c, err := ops.SessionCostIn(ctx, abs, cfg, ops.SessionCostRequest{Agent: *agent, ContextWindow: *window, Tokenizer: *tokenizer})
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
	if c.Agent == session.All {
		printAll(stdout, c, *window)
		return nil
	}
	printCost(stdout, c, *window)
	return nil
}

// printAll prints the files each configured agent loads at start side by
// side: a row per file, a column per agent, tokens in that agent's
// tokenizer, and "-" where the agent does not load the file at start.
func printAll(w io.Writer, c *session.Cost, window int) {
	if len(c.Agents) == 0 {
		fmt.Fprintln(w, "no agent is configured here: no CLAUDE.md, AGENTS.md, GEMINI.md, .cursor, Copilot, Windsurf, Cline, Kiro or OpenCode file")
		return
	}
	var files []string
	cells := map[string]map[string]int{}
	for _, a := range c.Agents {
		for _, e := range a.AlwaysLoaded {
			if cells[e.File] == nil {
				cells[e.File] = map[string]int{}
				files = append(files, e.File)
			}
			cells[e.File][a.Agent] += e.Tokens
		}
	}
	width := len("loaded at start")
	for _, f := range files {
		width = max(width, len(f))
	}
	// The first column is padded here, so that it reads left-aligned
	// among the right-aligned numbers.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\t", width, "loaded at start")
	for _, a := range c.Agents {
		fmt.Fprintf(tw, "%s\t", a.Agent)
	}
	fmt.Fprintln(tw)
	for _, f := range files {
		fmt.Fprintf(tw, "%-*s\t", width, f)
		for _, a := range c.Agents {
			if n, ok := cells[f][a.Agent]; ok {
				fmt.Fprintf(tw, "%s\t", thousands(n))
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "%-*s\t", width, "files")
	for _, a := range c.Agents {
		n := map[string]bool{}
		for _, e := range a.AlwaysLoaded {
			n[e.File] = true
		}
		fmt.Fprintf(tw, "%d\t", len(n))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "%-*s\t", width, "tokens")
	for _, a := range c.Agents {
		fmt.Fprintf(tw, "%s\t", thousands(a.TotalAlwaysLoaded))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "%-*s\t", width, "of the window")
	for _, a := range c.Agents {
		fmt.Fprintf(tw, "%.1f %%\t", 100*float64(a.TotalAlwaysLoaded)/float64(window))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "%-*s\t", width, "tokenizer")
	for _, a := range c.Agents {
		fmt.Fprintf(tw, "%s\t", a.Tokenizer)
	}
	fmt.Fprintln(tw)
	tw.Flush()
	for _, a := range c.Agents {
		for _, msg := range a.Warnings {
			fmt.Fprintf(w, "\nwarning (%s): %s\n", a.Agent, msg)
		}
	}
}

func printCost(w io.Writer, c *session.Cost, window int) {
	fmt.Fprintf(w, "%s session: %s tokens loaded at start, %.1f %% of a %s-token window (%s)\n",
		c.Agent, thousands(c.TotalAlwaysLoaded), 100*float64(c.TotalAlwaysLoaded)/float64(window), thousands(window), c.Tokenizer)
	if c.TokenizerNote != "" {
		fmt.Fprintf(w, "tokenizer: %s\n", c.TokenizerNote)
	}
	section := func(title string, entries []session.Entry) {
		fmt.Fprintf(w, "\n%s\n", title)
		if len(entries) == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, e := range entries {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", e.File, thousands(e.Tokens), e.Reason)
		}
		tw.Flush()
	}
	section("Loaded at start", c.AlwaysLoaded)
	section("Loaded later", c.OnDemand)
	if len(c.NotCounted) > 0 {
		fmt.Fprintf(w, "\nNot counted: a real session also loads\n")
		for _, n := range c.NotCounted {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	for _, msg := range c.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", msg)
	}
}
