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
	for _, s := range []string{"", "---\nname: x\n---\n", "{\"name\": 1}", "[mcp_servers.a]\ncommand = 1\n[[mcp_servers.a.b]]\n", "{\"servers\": {\"a\": {\"url\": \"${input:x}\"}}, // c\n}", "---\nglobs: *.ts\n---\n", "---\na: [\n---\n", "[x](../../..)\n@a/b.md", "---\nargument-hint: [a] [\"b\"]\nname: x\n---\n", "---\nglobs: *.ts, *.{a,b}\napplyTo: **/*.py\n---\n"} {
		f.Add(s)
	}
	s, err := Load(context.Background(), f.TempDir(), nil)
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"skills/x/SKILL.md", ".claude/commands/c.md", ".claude/agents/a.md", ".claude-plugin/plugin.json",
		".claude-plugin/marketplace.json", ".mcp.json", ".lsp.json", "AGENTS.md", ".cursor/rules/r.mdc",
		".github/instructions/i.instructions.md", ".github/prompts/p.prompt.md",
		".cursor/mcp.json", ".vscode/mcp.json", ".gemini/settings.json", ".codex/config.toml"}
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
				if len(d.Fixes) > 0 {
					if _, err := ApplyEdits(file.Text, d.Fixes[0].Edits); err != nil {
						t.Fatalf("%s: fix of %s: %v", rel, d.Code, err)
					}
				}
			}
		}
	})
}

// FuzzCompleteFrontmatter completes at every offset of arbitrary text: the
// spans it returns lie in the text and end at the offset or at the key.
func FuzzCompleteFrontmatter(f *testing.F) {
	for _, s := range []string{"", "---", "---\n", "---\r\nname: x\r\n---\r\n", "---\nskills:\n  - a\n  -\n---\n", "---\n: x\n-\n#c\n", "---\nk: [a, b\n"} {
		f.Add(s)
	}
	set := &Set{Files: []*File{{Rel: "skills/x/SKILL.md", Kind: KindSkill}}}
	f.Fuzz(func(t *testing.T, text string) {
		for off := 0; off <= len(text); off++ {
			for _, k := range []Kind{KindSkill, KindSubagent, KindCursorRule} {
				_, rep, ok := set.CompleteFrontmatter(k, []byte(text), off)
				if ok && (rep.Start < 0 || rep.Start > rep.End || rep.End > len(text)) {
					t.Fatalf("offset %d: replace %+v outside the text", off, rep)
				}
			}
		}
	})
}
