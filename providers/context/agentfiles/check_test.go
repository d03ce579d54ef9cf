package agentfiles

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestValidFilesAreClean checks that the valid fixtures, which use every
// documented field and form, produce no diagnostic at all.
func TestValidFilesAreClean(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/valid", nil)
	seen := map[Kind]int{}
	for _, f := range s.Files {
		seen[f.Kind]++
	}
	for k := KindSkill; k <= KindCopilotPrompt; k++ {
		if seen[k] == 0 && k != KindMemory && k != KindRule {
			t.Errorf("testdata/valid has no file of kind %v", k)
		}
	}
	for p, ds := range s.Check(context.Background()) {
		for _, d := range ds {
			f, _ := s.File(p)
			t.Errorf("%s:%d: %s %s", f.Rel, f.Lines.LineOf(d.Span.Start)+1, d.Code, d.Message)
		}
	}
}

func TestCheckFile(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/valid", nil)
	skill := filepath.Join(s.Root, ".claude/skills/deploy/SKILL.md")
	f, ds := s.CheckFile(context.Background(), skill, []byte("---\nname: other\ndescription: X.\n---\n"))
	if f == nil || len(ds) != 1 || ds[0].Code != "skill-name-mismatch" {
		t.Errorf("unsaved text: file %v, diagnostics %+v", f, ds)
	}
	// A skill created after Load is an agent file too.
	f, ds = s.CheckFile(context.Background(), filepath.Join(s.Root, "skills/new/SKILL.md"), []byte("# no frontmatter\n"))
	if f == nil || f.Kind != KindSkill || len(ds) != 1 || ds[0].Code != "frontmatter-missing" {
		t.Errorf("new skill: file %v, diagnostics %+v", f, ds)
	}
	if f, _ := s.CheckFile(context.Background(), filepath.Join(s.Root, "skills/gone/SKILL.md"), nil); f != nil {
		t.Errorf("a skill that is not on disk was checked: %+v", f)
	}
	if f, _ := s.CheckFile(context.Background(), filepath.Join(s.Root, "README.md"), nil); f != nil {
		t.Errorf("README.md is not an agent file: %+v", f)
	}
	if f, _ := s.CheckFile(context.Background(), "/elsewhere/AGENTS.md", []byte("x")); f != nil {
		t.Errorf("a file outside the workspace was checked: %+v", f)
	}
}

// An unquoted glob is read as Cursor reads it, and diagnostics point at
// the file's own text.
func TestUnquotedGlobSpans(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/codes/cursor-field-invalid", nil)
	f, ds := s.CheckFile(context.Background(), filepath.Join(s.Root, ".cursor/rules/unquoted.mdc"), nil)
	if f == nil || len(f.Meta.Globs) != 1 || f.Meta.Globs[0] != "*.rs" {
		t.Fatalf("file %+v", f)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.Code+" "+string(f.Text[d.Span.Start:d.Span.End]))
	}
	want := []string{"cursor-rule-never-loads *.rs", `cursor-field-invalid "yes"`}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics cover %q, want %q", got, want)
	}
}

// A field spelt with the wrong separator or case is named in the hint.
func TestUnknownFieldSuggestsSpelling(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/valid", nil)
	cmd := filepath.Join(s.Root, ".claude/commands/new.md")
	tests := []struct{ text, want string }{
		{"---\nallowed_tools: Read\n---\nDo it.\n", "did you mean allowed-tools?"},
		{"---\nArgument-Hint: x\n---\nDo it.\n", "did you mean argument-hint?"},
		{"---\nflavour: x\n---\nDo it.\n", ""},
	}
	for _, tt := range tests {
		_, ds := s.CheckFile(context.Background(), cmd, []byte(tt.text))
		if len(ds) != 1 || ds[0].Code != "agent-unknown-field" {
			t.Errorf("%q: diagnostics %+v, want one agent-unknown-field", tt.text, ds)
			continue
		}
		if got := ds[0].Message; tt.want == "" && strings.Contains(got, "did you mean") || !strings.Contains(got, tt.want) {
			t.Errorf("%q: message %q, want it to hold %q", tt.text, got, tt.want)
		}
	}
}

// A metadata value that is a list or a map is not cured by quoting, and
// the message says what is.
func TestMetadataMessages(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/valid", nil)
	skill := filepath.Join(s.Root, ".claude/skills/deploy/SKILL.md")
	head := "---\nname: deploy\ndescription: Deploys. Use when shipping.\nmetadata:\n"
	tests := []struct{ meta, want string }{
		{"  tags:\n    - a\n    - b\n", "not a list"},
		{"  owner:\n    team: x\n", "not a map"},
		{"  version: 2\n", "quote it"},
	}
	for _, tt := range tests {
		_, ds := s.CheckFile(context.Background(), skill, []byte(head+tt.meta+"---\nBody.\n"))
		if len(ds) != 1 || ds[0].Code != "skill-metadata-invalid" || !strings.Contains(ds[0].Message, tt.want) {
			t.Errorf("%q: diagnostics %+v, want one skill-metadata-invalid saying %q", tt.meta, ds, tt.want)
		}
	}
}
