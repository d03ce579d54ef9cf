package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/session"
)

// teamProject holds files of all nine agents ctxls knows, each agent's
// with one mistake, and otherwise correct files.
const teamProject = "../../testdata/agents"

// TestNineAgents checks the team project: every mistake is reported at
// its line and nothing else is, and cost --agent X lists exactly the
// files agent X loads at start.
func TestNineAgents(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "check", "--no-cache", "--show", "hint", "--format", "json", teamProject)
	if exitCode(err) != 0 {
		t.Fatalf("check: %v", err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var d struct {
			File string `json:"file"`
			Line int    `json:"line"`
			Code string `json:"code"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, fmt.Sprintf("%s:%d %s", d.File, d.Line, d.Code))
	}
	slices.Sort(got)
	want := []string{
		".clinerules/web.md:2 cline-paths-invalid",                      // paths is a string
		".cursor/rules/style.md:1 cursor-rule-not-mdc",                  // a plain .md rule
		".github/agents/planner.agent.md:1 copilot-agent-field-missing", // no description
		".kiro/steering/api.md:2 kiro-field-invalid",                    // fileMatch without fileMatchPattern
		".windsurf/rules/decide.md:2 windsurf-field-invalid",            // model_decision without description
		"GEMINI.md:5 gemini-import-missing",                             // @./docs/gemini-extra.md
		"jobs/TEAM.md:12 agents-md-too-large",                           // the chain passes project_doc_max_bytes
		"opencode.json:5 opencode-instructions-missing",                 // docs/opencode.md
		"svc/AGENTS.md:1 agents-md-shadowed",                            // AGENTS.override.md beside it
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got  %q\n want %q", got, want)
	}

	atStart := map[string][]string{
		session.Claude:   {"CLAUDE.md", "docs/style.md"},
		session.Codex:    {"AGENTS.md"},
		session.Gemini:   {"GEMINI.md", "docs/style.md"},
		session.Cursor:   {"AGENTS.md", ".cursorrules", ".cursor/rules/always.mdc"},
		session.Copilot:  {"AGENTS.md", ".github/agents/planner.agent.md", ".github/agents/reviewer.agent.md", ".github/copilot-instructions.md"},
		session.Windsurf: {"AGENTS.md", ".windsurf/rules/always.md", ".windsurf/rules/decide.md"},
		session.Cline:    {".clinerules/general.md", "AGENTS.md"},
		session.Kiro:     {".kiro/steering/tech.md"},
		session.OpenCode: {"AGENTS.md", "CONTRIBUTING.md"},
	}
	for _, agent := range session.Agents {
		out, _, err := runCLI(t, "cost", "--agent", agent, "--format", "json", teamProject)
		if err != nil {
			t.Fatalf("cost --agent %s: %v", agent, err)
		}
		var c session.Cost
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, e := range c.AlwaysLoaded {
			files = append(files, e.File)
		}
		if !slices.Equal(files, atStart[agent]) {
			t.Errorf("cost --agent %s loads at start %q, want %q", agent, files, atStart[agent])
		}
	}

	out, _, err = runCLI(t, "cost", "--agent", "all", teamProject)
	if err != nil {
		t.Fatal(err)
	}
	header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	if want := append([]string{"loaded", "at", "start"}, session.Agents...); !slices.Equal(header, want) {
		t.Errorf("cost --agent all header %q, want a column per agent %q", header, want)
	}
	for _, row := range []string{"CLAUDE.md", "GEMINI.md", ".kiro/steering/tech.md", "CONTRIBUTING.md"} {
		if !strings.Contains(out, "\n"+row) && !strings.Contains(out, " "+row+" ") {
			t.Errorf("cost --agent all has no row for %s:\n%s", row, out)
		}
	}
}
