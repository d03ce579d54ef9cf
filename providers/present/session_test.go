package present

import (
	"testing"

	"github.com/ctxls/ctxls/providers/agentload"
)

func TestSessionCost(t *testing.T) {
	t.Parallel()
	one := &agentload.Cost{Agent: "claude", Tokenizer: "claude-5", TokenizerNote: "counted in Claude's",
		AlwaysLoaded:      []agentload.Entry{{File: "CLAUDE.md", Tokens: 12480, Reason: "project memory"}},
		TotalAlwaysLoaded: 12480,
		NotCounted:        []string{"the system prompt"}, Warnings: []string{"the listing is cut"}}
	all := &agentload.Cost{Agent: agentload.All, Agents: []agentload.AgentCost{
		{Agent: "claude", Tokenizer: "claude-5", TotalAlwaysLoaded: 30, AlwaysLoaded: []agentload.Entry{{File: "CLAUDE.md", Tokens: 30}}},
		{Agent: "codex", Tokenizer: "o200k_base", TotalAlwaysLoaded: 1500, AlwaysLoaded: []agentload.Entry{{File: "AGENTS.md", Tokens: 1500}}},
	}}
	tests := []struct {
		name   string
		c      *agentload.Cost
		window int
		want   string
	}{
		{"one agent", one, 0, `claude session: 12,480 tokens loaded at start, 6.2 % of a 200,000-token window (claude-5)
tokenizer: counted in Claude's

Loaded at start
  CLAUDE.md  12,480  project memory

Loaded later
  (none)

Not counted: a real session also loads
  the system prompt

warning: the listing is cut
`},
		{"a window of its own", &agentload.Cost{Agent: "codex", Tokenizer: "o200k_base", TotalAlwaysLoaded: 0}, 1000, `codex session: 0 tokens loaded at start, 0.0 % of a 1,000-token window (o200k_base)

Loaded at start
  (none)

Loaded later
  (none)
`},
		{"every agent", all, 0, `  loaded at start    claude       codex
  CLAUDE.md              30           -
  AGENTS.md               -       1,500
  files                   1           1
  tokens                 30       1,500
  of the window       0.0 %       0.8 %
  tokenizer        claude-5  o200k_base
`},
		{"no agent", &agentload.Cost{Agent: agentload.All}, 0, "no agent is configured here: no CLAUDE.md, AGENTS.md, GEMINI.md, .cursor, Copilot, Windsurf, Cline, Kiro or OpenCode file\n"},
	}
	for _, tt := range tests {
		if got := SessionCost(tt.c, tt.window); got != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}
