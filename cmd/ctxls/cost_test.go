package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

var claudeProject = filepath.Join("..", "..", "providers", "agentload", "testdata", "claude")

func TestCostCommand(t *testing.T) {
	t.Parallel()
	out, stderr, err := runCLI(t, "cost", claudeProject, "--format", "json")
	if err != nil {
		t.Fatalf("cost: %v\n%s", err, stderr)
	}
	var c agentload.Cost
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("output is not the JSON object: %v\n%s", err, out)
	}
	if c.Agent != "claude" || len(c.AlwaysLoaded) != 8 || c.AlwaysLoaded[0].File != "CLAUDE.md" || c.AlwaysLoaded[0].Reason != "project memory" {
		t.Errorf("cost = %+v", c)
	}
	sum := 0
	for _, e := range c.AlwaysLoaded {
		sum += e.Tokens
		if strings.Contains(e.File, `\`) || filepath.IsAbs(e.File) {
			t.Errorf("file %q is not relative with forward slashes", e.File)
		}
	}
	if sum != c.TotalAlwaysLoaded || sum == 0 {
		t.Errorf("totalAlwaysLoaded %d, sum %d", c.TotalAlwaysLoaded, sum)
	}

	text, _, err := runCLI(t, "cost", "--dir", claudeProject, "--context-window", "3000")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"claude session: ", "Loaded at start", "docs/style.md", "imported by CLAUDE.md (hop 1)", "Loaded later", "warning: the listing"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

func TestCostCommandAgents(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"AGENTS.md": "# Agents\n\nRun make.\n"})
	out, _, err := runCLI(t, "cost", dir, "--agent", "codex", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `{"agent":"codex","alwaysLoaded":[{"file":"AGENTS.md","tokens":`) {
		t.Errorf("codex cost: %s", out)
	}
	for _, args := range [][]string{
		{"cost", dir, "--agent", "vim"},
		{"cost", dir, "--context-window", "0"},
		{"cost", dir, "--format", "xml"},
		{"cost", dir, dir},
	} {
		if _, _, err := runCLI(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		} else if _, ok := err.(usageError); !ok {
			t.Errorf("%v: %v is not a usage error", args, err)
		}
	}
}

// The example library's session, as its README describes it: the memory
// and the two imports Claude Code follows (not the one with a trailing
// colon), one listing entry per skill, command and subagent; Cursor gets
// its rule by glob.
func TestCostExampleLibrary(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "examples", "library")
	files := func(agent string) (always, later []string) {
		t.Helper()
		out, stderr, err := runCLI(t, "cost", dir, "--agent", agent, "--format", "json")
		if err != nil {
			t.Fatalf("cost --agent %s: %v\n%s", agent, err, stderr)
		}
		var c agentload.Cost
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		for _, e := range c.AlwaysLoaded {
			always = append(always, e.File+" "+e.Reason)
		}
		for _, e := range c.OnDemand {
			later = append(later, e.File)
		}
		return always, later
	}
	always, later := files("claude")
	want := []string{
		"CLAUDE.md project memory",
		"context/loading_protocol.md imported by CLAUDE.md (hop 1)",
		"context/git/commit_conventions.md imported by CLAUDE.md (hop 1)",
		".claude/agents/reviewer.md subagent listing",
		".claude/commands/ship.md command listing",
		".claude/skills/release-notes/SKILL.md skill listing",
		".claude/skills/review-pr/SKILL.md skill listing",
	}
	if strings.Join(always, "\n") != strings.Join(want, "\n") {
		t.Errorf("claude loads at start:\n%s\nwant:\n%s", strings.Join(always, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Contains(later, ".claude/rules/python.md") {
		t.Errorf("claude loads later %q, want the Python rule among them", later)
	}
	always, later = files("cursor")
	if len(always) != 0 || !slices.Equal(later, []string{".cursor/rules/python.mdc"}) {
		t.Errorf("cursor: at start %q, later %q", always, later)
	}
}
