package present

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// SessionCost is the text of what a session of an agent loads, as
// ctxls cost prints it and the MCP tool session_cost answers: the total
// and its share of a window of window tokens (0: the default), the files
// loaded at start and later with their tokens and why, what is not
// counted and the warnings. For agent all it is a table with a column per
// agent the project configures.
func SessionCost(c *agentload.Cost, window int) string {
	if window <= 0 {
		window = agentload.DefaultContextWindow
	}
	var b strings.Builder
	if c.Agent == agentload.All {
		sessionCostAll(&b, c, window)
	} else {
		sessionCostOne(&b, c, window)
	}
	return b.String()
}

// sessionCostAll writes the files each configured agent loads at start
// side by side: a row per file, a column per agent, tokens in that
// agent's tokenizer, and "-" where the agent does not load the file at
// start.
func sessionCostAll(w io.Writer, c *agentload.Cost, window int) {
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
				fmt.Fprintf(tw, "%s\t", numfmt.Thousands(n))
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
		fmt.Fprintf(tw, "%s\t", numfmt.Thousands(a.TotalAlwaysLoaded))
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

// sessionCostOne writes the cost of one agent's session.
func sessionCostOne(w io.Writer, c *agentload.Cost, window int) {
	fmt.Fprintf(w, "%s session: %s tokens loaded at start, %.1f %% of a %s-token window (%s)\n",
		c.Agent, numfmt.Thousands(c.TotalAlwaysLoaded), 100*float64(c.TotalAlwaysLoaded)/float64(window), numfmt.Thousands(window), c.Tokenizer)
	if c.TokenizerNote != "" {
		fmt.Fprintf(w, "tokenizer: %s\n", c.TokenizerNote)
	}
	section := func(title string, entries []agentload.Entry) {
		fmt.Fprintf(w, "\n%s\n", title)
		if len(entries) == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, e := range entries {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", e.File, numfmt.Thousands(e.Tokens), e.Reason)
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
