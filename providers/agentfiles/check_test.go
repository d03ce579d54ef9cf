package agentfiles

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
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
	for k := KindSkill; k <= KindOutputStyle; k++ {
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

// TestRepositoryPluginIsClean checks the Claude Code plugin and
// marketplace the repository ships: each file is found as its kind and has
// no diagnostic.
func TestRepositoryPluginIsClean(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, root, nil)
	diags := s.Check(t.Context())
	for rel, kind := range map[string]Kind{
		"claude-plugin/.claude-plugin/plugin.json": KindPlugin,
		"claude-plugin/.mcp.json":                  KindMCP,
		"claude-plugin/.lsp.json":                  KindLSP,
		".claude-plugin/marketplace.json":          KindMarketplace,
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		f, ok := s.File(p)
		if !ok || f.Kind != kind {
			t.Errorf("%s: not found as a %s file", rel, kind)
			continue
		}
		for _, d := range diags[p] {
			t.Errorf("%s: %s: %s", rel, d.Code, d.Message)
		}
	}
}

func TestCheckFile(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/valid", nil)
	skill := filepath.Join(s.Root, ".claude/skills/deploy/SKILL.md")
	f, ds := s.CheckFile(context.Background(), skill, []byte("---\nname: other\ndescription: \"\"\n---\n"))
	if f == nil || len(ds) != 1 || ds[0].Code != "skill-description-missing" {
		t.Errorf("unsaved text: file %v, diagnostics %+v", f, ds)
	}
	// A skill created after Load is an agent file too.
	f, ds = s.CheckFile(context.Background(), filepath.Join(s.Root, "skills/new/SKILL.md"), []byte("# no frontmatter\n"))
	if f == nil || f.Kind != KindSkill || len(ds) != 1 || ds[0].Code != "skill-description-missing" {
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
	// A skill of a collection, which agents following the specification read.
	skill := filepath.Join(s.Root, "skills/deploy/SKILL.md")
	head := "---\nname: deploy\ndescription: Deploys. Use when shipping.\nmetadata:\n"
	tests := []struct{ meta, want string }{
		{"  tags:\n    - a\n    - b\n", "is a list"},
		{"  owner:\n    team: x\n", "is a map"},
		{"  version: 2\n", "quote it"},
	}
	for _, tt := range tests {
		_, ds := s.CheckFile(context.Background(), skill, []byte(head+tt.meta+"---\nBody.\n"))
		if len(ds) != 1 || ds[0].Code != "skill-metadata-invalid" || !strings.Contains(ds[0].Message, tt.want) {
			t.Errorf("%q: diagnostics %+v, want one skill-metadata-invalid saying %q", tt.meta, ds, tt.want)
		}
	}
}

// TestFixes applies each fix and checks the fixed file: the diagnostic is
// gone and nothing new appears.
func TestFixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, content, code string
		want                     string // a line of the fixed file
	}{
		{"quote a description holding a colon", "skills/x/SKILL.md",
			"---\nname: x\ndescription: Use when: the user says \"ship\"\n---\nBody.\n", "frontmatter-lenient-yaml",
			`description: "Use when: the user says \"ship\""`},
		{"quote a description holding a colon that Codex loads", ".agents/skills/x/SKILL.md",
			"---\nname: x\ndescription: Use when: the user says \"ship\"\n---\nBody.\n", "frontmatter-parse-error",
			`description: "Use when: the user says \"ship\""`},
		{"quote a subagent's description written as Claude Code's generator writes it", ".claude/agents/r.md",
			"---\nname: r\ndescription: Use this agent to review. Examples:\\n\\n- user: 'Review this'\\n  assistant: 'I will'\ntools: Read, Grep\n---\nBody.\n", "frontmatter-lenient-yaml",
			`description: "Use this agent to review. Examples:\\n\\n- user: 'Review this'\\n  assistant: 'I will'"`},
		{"quote a value starting with a backquote", "skills/x/SKILL.md",
			"---\nname: x\ndescription: `x` formats code\n---\nBody.\n", "frontmatter-lenient-yaml",
			"description: \"`x` formats code\""},
		{"indent with spaces", "skills/x/SKILL.md",
			"---\nname: x\ndescription: X.\nmetadata:\n\tauthor: me\n---\nBody.\n", "frontmatter-parse-error",
			"  author: me"},
		{"quote a value starting with a bracket", "skills/x/SKILL.md",
			"---\nname: x\ndescription: [WIP] Formats code\n---\nBody.\n", "frontmatter-lenient-yaml",
			`description: "[WIP] Formats code"`},
		{"requote a value with an apostrophe", "skills/x/SKILL.md",
			"---\nname: x\ndescription: 'Don't format generated code'\n---\nBody.\n", "frontmatter-parse-error",
			`description: "Don't format generated code"`},
		{"indent a continued description", "skills/x/SKILL.md",
			"---\nname: x\ndescription: Formats code with the project's formatter\nwhen asked to tidy up.\n---\nBody.\n", "frontmatter-parse-error",
			"  when asked to tidy up."},
		{"two causes at once", "skills/x/SKILL.md",
			"---\nname: x\ndescription: Use when: tidying\nmetadata:\n\tauthor: me\n---\nBody.\n", "frontmatter-parse-error",
			"  author: me"},
		{"rename a skill whose argument hint is read leniently", "skills/deploy/SKILL.md",
			"---\nargument-hint: [env] [\"region\"]\nname: deploy-app\ndescription: Deploys.\n---\nBody.\n", "skill-name-mismatch",
			"name: deploy"},
		{"rename the skill to its folder", "skills/deploy/SKILL.md",
			"---\nname: \"deploy-app\"\ndescription: Deploys.\n---\nBody.\n", "skill-name-mismatch",
			"name: deploy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := testtree.WriteAt(t, dir, tc.rel, tc.content)
			s := mustLoad(t, dir, nil)
			ds := s.Check(context.Background())[p]
			if len(ds) != 1 || ds[0].Code != tc.code || len(ds[0].Fixes) == 0 {
				t.Fatalf("diagnostics = %+v, want one %s with a fix", ds, tc.code)
			}
			fixed, err := diag.ApplyEdits([]byte(tc.content), ds[0].Fixes[0].Edits)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(fixed), "\n"+tc.want+"\n") {
				t.Errorf("fixed text lacks %q:\n%s", tc.want, fixed)
			}
			_, after := s.CheckFile(context.Background(), p, fixed)
			if len(after) != 0 {
				t.Errorf("after %q: %+v", ds[0].Fixes[0].Title, after)
			}
		})
	}
}

// TestBrokenFilesNeverCrash feeds every kind broken content: each gives
// diagnostics or none, never a panic.
func TestBrokenFilesNeverCrash(t *testing.T) {
	t.Parallel()
	contents := []string{
		"",
		"\n",
		"---\n",
		"---\n---\n",
		"---\n- a list\n- not a map\n---\nBody\n",
		"---\nname: [unclosed\n---\n",
		"---\nname:\n  nested: map\ndescription: {a: 1}\nmetadata: [1, 2]\nskills: {x: y}\napplyTo: 12\nglobs: [1, {a: b}]\nalwaysApply: maybe\n---\n",
		"\x00\x01\x02binary",
		"\xef\xbb\xbf---\nname: bom\n---\n",
		"{", "[", "}", "null", "\"str\"", "{\"name\": }", strings.Repeat("[", 10000), strings.Repeat("{\"a\":", 300) + "1" + strings.Repeat("}", 300),
		"{\"name\": \"x\", \"plugins\": [1, null, {\"source\": 5}], \"owner\": \"me\", \"mcpServers\": []}",
		"{\"mcpServers\": {\"a\": 1, \"b\": {\"command\": 2, \"args\": \"x\"}}}",
		"[link](%zz) [x](<>) [y](#) @ @/ @../../../../etc/passwd scripts/.x",
	}
	paths := []string{"skills/x/SKILL.md", ".claude/commands/c.md", ".claude/agents/a.md", ".claude-plugin/plugin.json",
		".claude-plugin/marketplace.json", ".mcp.json", ".lsp.json", "AGENTS.md", ".cursor/rules/r.mdc",
		".github/instructions/i.instructions.md", ".github/prompts/p.prompt.md", "CLAUDE.md", ".claude/rules/r.md"}
	for i, content := range contents {
		dir := t.TempDir()
		for _, rel := range paths {
			testtree.WriteAt(t, dir, rel, content)
		}
		s, err := Load(context.Background(), dir, nil)
		if err != nil {
			t.Fatalf("content %d: %v", i, err)
		}
		if len(s.Files) != len(paths) {
			t.Errorf("content %d: %d files found, want %d", i, len(s.Files), len(paths))
		}
		for p, ds := range s.Check(context.Background()) {
			f, _ := s.File(p)
			for _, d := range ds {
				if d.Span.Start < 0 || d.Span.End > len(f.Text) || d.Span.Start > d.Span.End {
					t.Errorf("content %d: %s: %s span %v outside the text", i, f.Rel, d.Code, d.Span)
				}
			}
		}
	}
}

func TestTooLargeFileIsSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := testtree.WriteAt(t, dir, "AGENTS.md", strings.Repeat("x", 2000))
	cfg := config.Default()
	cfg.MaxFileSize = 1000
	s := mustLoad(t, dir, cfg)
	ds := s.Check(context.Background())[p]
	if len(ds) != 1 || ds[0].Code != "file-skipped" {
		t.Fatalf("diagnostics = %+v, want one file-skipped", ds)
	}
}

func TestDisabledCodes(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Disable = []string{"skill-name-mismatch"}
	s := mustLoad(t, "testdata/codes/skill-name-mismatch", cfg)
	if got := s.Check(context.Background()); len(got) != 0 {
		t.Fatalf("a disabled code was reported: %+v", got)
	}
}
