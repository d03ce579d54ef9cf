package agentfiles

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/document"
)

// TestFixes applies each fix and checks the fixed file: the diagnostic is
// gone and nothing new appears.
func TestFixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, content, code string
		want                     string // a line of the fixed file
	}{
		{"quote a description holding a colon", "skills/x/SKILL.md",
			"---\nname: x\ndescription: Use when: the user says \"ship\"\n---\nBody.\n", "frontmatter-parse-error",
			`description: "Use when: the user says \"ship\""`},
		{"quote a value starting with a backquote", "skills/x/SKILL.md",
			"---\nname: x\ndescription: `x` formats code\n---\nBody.\n", "frontmatter-parse-error",
			"description: \"`x` formats code\""},
		{"indent with spaces", "skills/x/SKILL.md",
			"---\nname: x\ndescription: X.\nmetadata:\n\tauthor: me\n---\nBody.\n", "frontmatter-parse-error",
			"  author: me"},
		{"quote a value starting with a bracket", "skills/x/SKILL.md",
			"---\nname: x\ndescription: [WIP] Formats code\n---\nBody.\n", "frontmatter-parse-error",
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
			p := writeFile(t, dir, tc.rel, tc.content)
			s := mustLoad(t, dir, nil)
			ds := s.Check(context.Background())[p]
			if len(ds) != 1 || ds[0].Code != tc.code || ds[0].Fix == nil {
				t.Fatalf("diagnostics = %+v, want one %s with a fix", ds, tc.code)
			}
			fixed, err := ApplyEdits([]byte(tc.content), ds[0].Fix.Edits)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(fixed), "\n"+tc.want+"\n") {
				t.Errorf("fixed text lacks %q:\n%s", tc.want, fixed)
			}
			_, after := s.CheckFile(context.Background(), p, fixed)
			if len(after) != 0 {
				t.Errorf("after %q: %+v", ds[0].Fix.Title, after)
			}
		})
	}
}

func TestApplyEditsRejectsOverlaps(t *testing.T) {
	t.Parallel()
	_, err := ApplyEdits([]byte("abcdef"), []Edit{{Span: document.Span{Start: 1, End: 4}}, {Span: document.Span{Start: 3, End: 5}}})
	if err == nil {
		t.Fatal("overlapping edits were applied")
	}
	got, err := ApplyEdits([]byte("abcdef"), []Edit{{Span: document.Span{Start: 4, End: 5}, NewText: "E"}, {Span: document.Span{Start: 0, End: 1}, NewText: "A"}})
	if err != nil || string(got) != "AbcdEf" {
		t.Fatalf("ApplyEdits = %q, %v", got, err)
	}
}
