package agentfiles

import (
	"context"
	"path/filepath"
	"testing"
)

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"", "/", ".", "README.md", "agents", "a/agents/README.md", ".claude/skills/x/SKILL.md", "plugins/p/commands/c.md", "../x/SKILL.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		Classify(rel, func(string) bool { return true })
		Classify(rel, nil)
	})
}

// FuzzCheckFile checks arbitrary content as every kind of agent file.
func FuzzCheckFile(f *testing.F) {
	for _, s := range []string{"", "---\nname: x\n---\n", "{\"name\": 1}", "---\nglobs: *.ts\n---\n", "---\na: [\n---\n", "[x](../../..)\n@a/b.md"} {
		f.Add(s)
	}
	s, err := Load(context.Background(), f.TempDir(), nil)
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"skills/x/SKILL.md", ".claude/commands/c.md", ".claude/agents/a.md", ".claude-plugin/plugin.json",
		".claude-plugin/marketplace.json", ".mcp.json", ".lsp.json", "AGENTS.md", ".cursor/rules/r.mdc",
		".github/instructions/i.instructions.md", ".github/prompts/p.prompt.md"}
	f.Fuzz(func(t *testing.T, content string) {
		for _, rel := range paths {
			file, ds := s.CheckFile(context.Background(), filepath.Join(s.Root, filepath.FromSlash(rel)), []byte(content))
			if file == nil {
				t.Fatalf("%s is not an agent file", rel)
			}
			for _, d := range ds {
				if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(file.Text) {
					t.Fatalf("%s: %s span %v outside %d bytes", rel, d.Code, d.Span, len(file.Text))
				}
				if d.Fix != nil {
					if _, err := ApplyEdits(file.Text, d.Fix.Edits); err != nil {
						t.Fatalf("%s: fix of %s: %v", rel, d.Code, err)
					}
				}
			}
		}
	})
}
