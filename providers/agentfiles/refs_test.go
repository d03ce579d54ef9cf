package agentfiles

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// FileRefs names only files of the project that are there: not a link
// out of the project, not a glob, not a URL, not a missing file.
func TestFileRefs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testtree.WriteFiles(t, root, map[string]string{
		"docs/a.md":                              "# A\n",
		".github/agents/x.agent.md":              "---\nname: Xavier\ndescription: X.\n---\nBody.\n",
		".github/agents/helper.agent.md":         "---\ndescription: Helps.\n---\nBody.\n",
		".github/prompts/p.prompt.md":            "---\nagent: Xavier\n---\nBody.\n",
		".github/prompts/q.prompt.md":            "---\nagent: helper\n---\nBody.\n",
		".github/prompts/r.prompt.md":            "---\nagent: nobody\n---\nBody.\n",
		".kiro/steering/s.md":                    "---\ninclusion: always\n---\n#[[file:docs/a.md]] #[[file:../../docs/a.md]] #[[file:none.md]]\n\n```\n#[[file:docs/a.md]]\n```\n",
		".windsurf/rules/w.md":                   "---\ntrigger: always_on\n---\n[a](../../docs/a.md) [b](../../docs/b.md) [web](https://x.dev/a.md) [out](../../../x.md)\n",
		"opencode.json":                          "{\"instructions\": [\"docs/a.md\", \"./docs/a.md\", \"docs/*.md\", \"https://x.dev/a.md\", \"../x.md\", 3]}\n",
		"CLAUDE.md":                              "See [a](docs/a.md).\n",
		".cursor/rules/c.mdc":                    "---\nalwaysApply: true\n---\n[a](../../docs/a.md)\n",
		".clinerules/general.md":                 "[a](../docs/a.md)\n",
		".github/instructions/i.instructions.md": "---\napplyTo: \"**\"\n---\n[a](../../docs/a.md)\n",
	})
	s := mustLoad(t, root, nil)
	for rel, want := range map[string][]string{
		".github/prompts/p.prompt.md":            {"custom agent .github/agents/x.agent.md"},
		".github/prompts/q.prompt.md":            {"custom agent .github/agents/helper.agent.md"},
		".github/prompts/r.prompt.md":            nil,
		".kiro/steering/s.md":                    {"file reference docs/a.md", "file reference docs/a.md"},
		".windsurf/rules/w.md":                   {"link docs/a.md"},
		"opencode.json":                          {"instructions entry docs/a.md", "instructions entry docs/a.md"},
		"CLAUDE.md":                              {"link docs/a.md"},
		".cursor/rules/c.mdc":                    {"link docs/a.md"},
		".clinerules/general.md":                 {"link docs/a.md"},
		".github/instructions/i.instructions.md": {"link docs/a.md"},
		"docs/a.md":                              nil, // no agent file
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range s.FileRefs(p, text) {
			got = append(got, r.What+" "+s.show(r.Target))
			if r.Span.End > len(text) || r.Span.Start >= r.Span.End {
				t.Errorf("%s: span %+v", rel, r.Span)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", rel, got, want)
		}
	}
}
