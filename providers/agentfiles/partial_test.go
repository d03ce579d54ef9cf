package agentfiles

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
)

// A partial set finds what a file names as the whole set does, and never
// reports what only the whole workspace could show.
func TestLoadForAgreesWithLoad(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		".claude/skills/s1/SKILL.md":     "---\nname: s1\ndescription: Deploys the service.\n---\n\nSee [the reference](reference.md), [the guide](../../../docs/guide.md),\n[a missing page](missing.md) and [a missing doc](../../../docs/gone.md).\n",
		".claude/skills/s1/reference.md": "# Reference\n",
		".claude/skills/s2/SKILL.md":     "---\nname: s2\ndescription: Builds the service.\n---\n\nBuild it.\n",
		".claude/agents/builder.md":      "---\nname: builder\ndescription: Builds things.\nskills: [s2, nosuch]\n---\n\nBuild.\n",
		".cursor/rules/ts.mdc":           "---\ndescription: TypeScript\nglobs: src/**/*.ts, lib/**/*.zz\n---\n\nUse strict mode.\n",
		"docs/guide.md":                  "# Guide\n",
		"src/a/index.ts":                 "export {}\n",
	}
	testtree.WriteFiles(t, root, files)
	ctx := context.Background()
	full, err := Load(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".claude/skills/s1/SKILL.md", ".claude/agents/builder.md", ".cursor/rules/ts.mdc"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		part, err := LoadFor(ctx, root, nil, []string{p, filepath.Join(root, "README.md")})
		if err != nil {
			t.Fatal(err)
		}
		if !part.Partial() || len(part.Files) != 1 {
			t.Fatalf("%s: partial %v, files %d; want one file of a partial set", rel, part.Partial(), len(part.Files))
		}
		_, want := full.CheckFile(ctx, p, nil)
		_, got := part.CheckFile(ctx, p, nil)
		key := func(d diag.Diagnostic) string { return d.Code + " " + d.Message }
		wantKeys := map[string]bool{}
		for _, d := range want {
			wantKeys[key(d)] = true
		}
		for _, d := range got {
			if !wantKeys[key(d)] {
				t.Errorf("%s: the partial set reports %q, which the whole set does not", rel, key(d))
			}
		}
		if rel == ".claude/skills/s1/SKILL.md" {
			if len(got) != len(want) {
				t.Errorf("%s: partial %v, whole %v; want the same", rel, got, want)
			}
			broken := 0
			for _, d := range got {
				if d.Code == "skill-link-broken" {
					broken++
				}
			}
			if broken != 2 {
				t.Errorf("%s: %d broken links found, want 2: %v", rel, broken, got)
			}
		}
	}
	// The whole set does report what the partial one leaves out, so the
	// comparison above has something to leave out.
	_, ds := full.CheckFile(ctx, filepath.Join(root, ".claude/agents/builder.md"), nil)
	if !slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return d.Code == "subagent-skill-missing" }) {
		t.Errorf("the whole set misses the unknown skill: %v", ds)
	}
}
