package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/agentload"
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
	// Each mistake, by the agent whose file holds it.
	mistakes := []struct{ agent, diag string }{
		{agentload.Claude, ".claude/rules/web.md:3 rule-paths-invalid"},                      // a paths glob that matches no file
		{agentload.Cline, ".clinerules/web.md:2 cline-paths-invalid"},                        // paths is a string
		{agentload.Cursor, ".cursor/rules/style.md:1 cursor-rule-not-mdc"},                   // a plain .md rule
		{agentload.Copilot, ".github/agents/planner.agent.md:1 copilot-agent-field-missing"}, // no description
		{agentload.Kiro, ".kiro/steering/api.md:2 kiro-field-invalid"},                       // fileMatch without fileMatchPattern
		{agentload.Windsurf, ".windsurf/rules/decide.md:2 windsurf-field-invalid"},           // model_decision without description
		{agentload.Windsurf, ".windsurf/rules/go-review.md:78 windsurf-rule-too-long"},       // past the per-rule cap
		{agentload.Gemini, "GEMINI.md:5 gemini-import-missing"},                              // @./docs/gemini-extra.md
		{agentload.Codex, "jobs/TEAM.md:12 agents-md-too-large"},                             // the chain passes project_doc_max_bytes
		{agentload.OpenCode, "opencode.json:5 opencode-instructions-missing"},                // docs/opencode.md
		{agentload.Codex, "svc/AGENTS.md:1 agents-md-shadowed"},                              // AGENTS.override.md beside it
	}
	var want []string
	for _, m := range mistakes {
		want = append(want, m.diag)
	}
	for _, a := range agentload.Agents {
		if !slices.ContainsFunc(mistakes, func(m struct{ agent, diag string }) bool { return m.agent == a }) {
			t.Errorf("no file of %s holds a mistake", a)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got  %q\n want %q", got, want)
	}

	atStart := map[string][]string{
		agentload.Claude:   {"CLAUDE.md", "docs/style.md"},
		agentload.Codex:    {"AGENTS.md"},
		agentload.Gemini:   {"GEMINI.md", "docs/style.md"},
		agentload.Cursor:   {"AGENTS.md", ".cursorrules", ".cursor/rules/always.mdc"},
		agentload.Copilot:  {"AGENTS.md", ".github/agents/planner.agent.md", ".github/agents/reviewer.agent.md", ".github/copilot-instructions.md"},
		agentload.Windsurf: {"AGENTS.md", ".windsurf/rules/always.md", ".windsurf/rules/decide.md"},
		agentload.Cline:    {".clinerules/general.md", "AGENTS.md"},
		agentload.Kiro:     {"AGENTS.md", "svc/AGENTS.md", ".kiro/steering/tech.md", "docs/style.md"},
		agentload.OpenCode: {"AGENTS.md", "CONTRIBUTING.md"},
	}
	for _, agent := range agentload.Agents {
		out, _, err := runCLI(t, "cost", "--agent", agent, "--format", "json", teamProject)
		if err != nil {
			t.Fatalf("cost --agent %s: %v", agent, err)
		}
		var c agentload.Cost
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
	if want := append([]string{"loaded", "at", "start"}, agentload.Agents...); !slices.Equal(header, want) {
		t.Errorf("cost --agent all header %q, want a column per agent %q", header, want)
	}
	for _, row := range []string{"CLAUDE.md", "GEMINI.md", ".kiro/steering/tech.md", "CONTRIBUTING.md"} {
		if !strings.Contains(out, "\n"+row) && !strings.Contains(out, " "+row+" ") {
			t.Errorf("cost --agent all has no row for %s:\n%s", row, out)
		}
	}
}

// TestBrokenAgentConfig breaks the team project's .codex/config.toml or
// .gemini/settings.json: check reports the mistake at its line, and cost
// says it counted with the agent's defaults, which it lists.
func TestBrokenAgentConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file, text string
		want             []string // file:line code
		agent            string
		atStart          []string
	}{
		{"codex TOML syntax", ".codex/config.toml", "project_doc_fallback_filenames = [\"TEAM.md\"\nproject_doc_max_bytes = 600\n",
			[]string{".codex/config.toml:2 toml-syntax-error"}, agentload.Codex, []string{"AGENTS.md"}},
		{"codex fallbacks a string", ".codex/config.toml", "project_doc_fallback_filenames = \"TEAM.md\"\nproject_doc_max_bytes = 600\n",
			[]string{".codex/config.toml:1 codex-config-invalid"}, agentload.Codex, []string{"AGENTS.md"}},
		{"codex fallback not a string", ".codex/config.toml", "project_doc_fallback_filenames = [\"TEAM.md\", 7]\n",
			[]string{".codex/config.toml:1 codex-config-invalid"}, agentload.Codex, []string{"AGENTS.md"}},
		{"codex max bytes a string", ".codex/config.toml", "# the chain's cap\nproject_doc_fallback_filenames = [\"TEAM.md\"]\nproject_doc_max_bytes = \"600\"\n",
			[]string{".codex/config.toml:3 codex-config-invalid"}, agentload.Codex, []string{"AGENTS.md"}},
		{"codex max bytes a float", ".codex/config.toml", "project_doc_max_bytes = 600.5\n",
			[]string{".codex/config.toml:1 codex-config-invalid"}, agentload.Codex, []string{"AGENTS.md"}},
		{"codex max bytes negative", ".codex/config.toml", "project_doc_max_bytes = -1\n",
			[]string{".codex/config.toml:1 codex-config-invalid"}, agentload.Codex, []string{"AGENTS.md"}},
		{"gemini JSON syntax", ".gemini/settings.json", "{\n  \"context\": {\"fileName\": [\"AGENTS.md\"]\n}\n",
			[]string{".gemini/settings.json:4 json-syntax-error"}, agentload.Gemini, []string{"GEMINI.md", "docs/style.md"}},
		{"gemini fileName a number", ".gemini/settings.json", "{\n  // Gemini CLI reads comments\n  \"context\": {\n    \"fileName\": 5\n  }\n}\n",
			[]string{".gemini/settings.json:4 gemini-settings-invalid"}, agentload.Gemini, []string{"GEMINI.md", "docs/style.md"}},
		{"gemini fileName entry an object", ".gemini/settings.json", "{\"context\": {\"fileName\": [\"AGENTS.md\",\n  {\"name\": \"GEMINI.md\"}]}}\n",
			[]string{".gemini/settings.json:2 gemini-settings-invalid"}, agentload.Gemini, []string{"GEMINI.md", "docs/style.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if err := copyTree(teamProject, root); err != nil {
				t.Fatal(err)
			}
			testtree.WriteAt(t, root, c.file, c.text)
			out, _, _ := runCLI(t, "check", "--no-cache", "--format", "json", root)
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
				if strings.HasPrefix(d.File, path.Dir(c.file)+"/") {
					got = append(got, fmt.Sprintf("%s:%d %s", d.File, d.Line, d.Code))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("diagnostics of %s: %q, want %q", c.file, got, c.want)
			}
			out, _, err := runCLI(t, "cost", "--agent", c.agent, "--format", "json", root)
			if err != nil {
				t.Fatal(err)
			}
			var cost agentload.Cost
			if err := json.Unmarshal([]byte(out), &cost); err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, e := range cost.AlwaysLoaded {
				files = append(files, e.File)
			}
			if !slices.Equal(files, c.atStart) {
				t.Errorf("cost --agent %s loads at start %q, want %q", c.agent, files, c.atStart)
			}
			if len(cost.Warnings) == 0 || !strings.Contains(cost.Warnings[0], c.file+" line") || !strings.Contains(cost.Warnings[0], "counted with") {
				t.Errorf("cost --agent %s warnings %q: none says it counted with the defaults because of %s", c.agent, cost.Warnings, c.file)
			}
		})
	}
}

// TestInstructionsLocations checks a *.instructions.md in .github/prompts,
// where VS Code looks for prompt files but not for instructions: it is no
// Copilot instructions file, with nothing to report and nothing counted,
// until chat.instructionsFilesLocations of .vscode/settings.json adds its
// folder.
func TestInstructionsLocations(t *testing.T) {
	t.Parallel()
	const file = ".github/prompts/upgrade.instructions.md"
	for _, c := range []struct {
		name, settings string
		want           []string // file:line code of file
		later          bool     // whether cost --agent copilot lists it
	}{
		{"no settings", "", nil, false},
		{"folder added", "{\n  // the team's prompts folder holds instructions too\n  \"chat.instructionsFilesLocations\": {\".github/prompts\": true, \"~/.copilot/instructions\": true},\n}\n",
			[]string{file + ":1 copilot-applyto-missing"}, true},
		{"folder turned off", "{\"chat.instructionsFilesLocations\": {\".github/prompts\": false}}\n", nil, false},
		{"another folder", "{\"chat.instructionsFilesLocations\": {\"docs/instructions\": true}}\n", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if err := copyTree(teamProject, root); err != nil {
				t.Fatal(err)
			}
			if c.settings != "" {
				if err := os.MkdirAll(filepath.Join(root, ".vscode"), 0o755); err != nil {
					t.Fatal(err)
				}
				testtree.WriteAt(t, root, ".vscode/settings.json", c.settings)
			}
			out, _, _ := runCLI(t, "check", "--no-cache", "--show", "hint", "--format", "json", root)
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
				if d.File == file || strings.HasPrefix(d.File, ".vscode/") {
					got = append(got, fmt.Sprintf("%s:%d %s", d.File, d.Line, d.Code))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("diagnostics %q, want %q", got, c.want)
			}
			out, _, err := runCLI(t, "cost", "--agent", "copilot", "--format", "json", root)
			if err != nil {
				t.Fatal(err)
			}
			var cost agentload.Cost
			if err := json.Unmarshal([]byte(out), &cost); err != nil {
				t.Fatal(err)
			}
			listed := slices.ContainsFunc(append(cost.AlwaysLoaded, cost.OnDemand...), func(e agentload.Entry) bool { return e.File == file })
			if listed != c.later {
				t.Errorf("cost --agent copilot lists %s: %v, want %v", file, listed, c.later)
			}
		})
	}
}
