package agentfiles

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
)

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
			writeFile(t, dir, rel, content)
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
	p := writeFile(t, dir, "AGENTS.md", strings.Repeat("x", 2000))
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

// writeFile writes content at the slash path rel below dir and returns
// the file's path.
func writeFile(t testing.TB, dir, rel, content string) string {
	t.Helper()
	return fsguardtest.Write(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
}
