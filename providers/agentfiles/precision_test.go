package agentfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
)

// Each folder of testdata/precision is a workspace shaped like a real
// repository's files that ctxls once flagged wrongly, or flagged twice;
// each folder of testdata/recall one shaped like a real repository's
// files with a defect ctxls once missed or reported as another. Its
// want.txt lists every diagnostic the workspace must produce, one
// "file:line code" a line (often none), and nothing else may be produced.
func TestPrecisionFixtures(t *testing.T) {
	t.Parallel()
	for _, top := range []string{"testdata/precision", "testdata/recall"} {
		dirs, err := os.ReadDir(top)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			t.Run(filepath.Base(top)+"/"+d.Name(), func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(top, d.Name())
				data, err := os.ReadFile(filepath.Join(dir, "want.txt"))
				if err != nil {
					t.Fatal(err)
				}
				want := strings.Fields(strings.ReplaceAll(string(data), " ", "|"))
				if got := diagnosticLines(t, dir); !slices.Equal(got, want) {
					t.Errorf("diagnostics:\n got  %v\n want %v", got, want)
				}
			})
		}
	}
}

// TestDiagnosticText checks the words of diagnostics a person acts on:
// the single message and the fix each case gets.
func TestDiagnosticText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, content string
		code, message, fix string // fix: the file's text after the fix, "" for none
	}{
		{
			name: "quoted boolean", rel: ".cursor/rules/a.mdc", content: "---\nalwaysApply: \"true\"\n---\nAlways.\n",
			code: "cursor-field-invalid", message: `alwaysApply is the string "true", not the boolean true; remove the quotes`,
			fix: "---\nalwaysApply: true\n---\nAlways.\n",
		},
		{
			name: "excludeAgent list", rel: ".github/instructions/a.instructions.md", content: "---\napplyTo: '**'\nexcludeAgent: ['coding-agent']\n---\nA.\n",
			code: "copilot-field-invalid", message: "excludeAgent takes one agent as a string, code-review or coding-agent, not a list: GitHub documents no list form",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			testtree.WriteAt(t, dir, tc.rel, tc.content)
			s := mustLoad(t, dir, nil)
			ds := s.Check(context.Background())[filepath.Join(s.Root, filepath.FromSlash(tc.rel))]
			if len(ds) != 1 || ds[0].Code != tc.code || ds[0].Message != tc.message {
				t.Fatalf("diagnostics %+v, want one %s: %s", ds, tc.code, tc.message)
			}
			switch fixes := ds[0].Fixes; {
			case tc.fix == "" && len(fixes) > 0:
				t.Errorf("fixes %+v, want none", fixes)
			case tc.fix != "" && len(fixes) == 0:
				t.Errorf("no fix, want one")
			case tc.fix != "":
				if got, err := diag.ApplyEdits([]byte(tc.content), fixes[0].Edits); err != nil || string(got) != tc.fix {
					t.Errorf("fixed text %q (%v), want %q", got, err, tc.fix)
				}
			}
		})
	}
}

// TestLinesAfterQuotedValue checks that a diagnostic of a file whose
// frontmatter Claude Code reads only once it has quoted a value is on the
// line it names: the body's 501st line of a skill shaped like Payload's
// ui4 (a description holding "Usage: /ui4", a body of 641 lines), and a
// broken link of that body.
func TestLinesAfterQuotedValue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var body strings.Builder
	body.WriteString("\n# UI reskin\n\nRead [the tokens](references/tokens.md) first.\n")
	for i := range 637 {
		fmt.Fprintf(&body, "Step %d: restyle the next component.\n", i)
	}
	testtree.WriteAt(t, dir, ".claude/skills/ui4/SKILL.md", "---\nname: ui4\ndescription: Manually invoked skill for reskinning Payload UI components. Requires Figma URL. Usage: /ui4\n---\n"+body.String())
	got := diagnosticLines(t, dir)
	want := []string{
		".claude/skills/ui4/SKILL.md:3|frontmatter-lenient-yaml",
		".claude/skills/ui4/SKILL.md:505|skill-body-too-long",
		".claude/skills/ui4/SKILL.md:8|skill-link-broken",
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got  %v\n want %v", got, want)
	}
}

// TestGlobCompiledOnce checks that a glob many rules share is compiled
// once for the set, by the check of one of them or by the pass that
// matches every glob against the files.
func TestGlobCompiledOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.WriteAt(t, dir, "src/a.ts", "")
	for i := range 8 {
		testtree.WriteAt(t, dir, fmt.Sprintf(".cursor/rules/r%d.mdc", i), "---\nglobs: src/**/*.ts\n---\nRule.\n")
		testtree.WriteAt(t, dir, fmt.Sprintf(".github/instructions/i%d.instructions.md", i), "---\napplyTo: \"src/**/*.ts\"\n---\nRule.\n")
	}
	s := mustLoad(t, dir, nil)
	if ds := s.Check(t.Context()); len(ds) != 0 {
		t.Fatalf("diagnostics %v, want none", ds)
	}
	if n := len(s.compiled); n != 2 {
		t.Errorf("%d globs compiled, want 2: one pattern read as Cursor and as VS Code read it", n)
	}
	a, _ := s.compile("src/**/*.ts", applyToOptions)
	b, _ := s.compile("src/**/*.ts", applyToOptions)
	if a != b {
		t.Error("the same glob compiled twice")
	}
}

// TestMemoryFileOverCodexCap checks that only AGENTS.md, which Codex
// reads, is held to Codex's cap: a GEMINI.md as large is Gemini CLI's.
func TestMemoryFileOverCodexCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() <= 40_000; i++ {
		fmt.Fprintf(&b, "## Convention %d\n\nKeep functions short and name them after what they return.\n\n", i)
	}
	testtree.WriteAt(t, dir, "AGENTS.md", b.String())
	testtree.WriteAt(t, dir, "GEMINI.md", b.String())
	got := diagnosticLines(t, dir)
	if len(got) != 1 || !strings.HasPrefix(got[0], "AGENTS.md:") || !strings.HasSuffix(got[0], "|agents-md-too-large") {
		t.Errorf("diagnostics %v, want one agents-md-too-large on AGENTS.md", got)
	}
}
