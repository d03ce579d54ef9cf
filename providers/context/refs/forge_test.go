package refs

import (
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/context/document"
)

func TestTemplatesAreNotReferences(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"getReference(\"{domain}\", \"{topic}\")",
		"getReference(\"python\", \"<topic>\")",
		"Load python:{topic} now.",
		"Load python:<topic_name> and {domain}:fastapi_patterns.",
		"---\ncontext: [\"{domain}/index\", \"<language>\"]\n---\nBody.\n",
	} {
		d := document.Parse("x.md", []byte(src))
		refs := Scan(d, testOpts())
		checkRefs(t, d, refs)
		for _, r := range refs {
			t.Errorf("%q: %s is a template, not a reference", src, show(d, r))
		}
	}
	// A real reference next to a template is kept.
	d := document.Parse("x.md", []byte("Load python:{topic}, then python:fastapi_patterns."))
	if refs := Scan(d, testOpts()); len(refs) != 1 || refs[0].Topic != "fastapi_patterns" {
		t.Errorf("refs = %v", refs)
	}
}

func TestForgeSkillContext(t *testing.T) {
	t.Parallel()
	src := "---\nname: deps\ncontext:\n  primary: [python]\n  topics: [dependency_management, security/secrets, venvs.md]\n---\nBody.\n"
	d := document.Parse("SKILL.md", []byte(src))
	refs := Scan(d, testOpts())
	checkRefs(t, d, refs)
	var got []string
	for _, r := range refs {
		got = append(got, show(d, r))
	}
	want := []string{
		`domain/frontmatter "python" d="python" field="context"`,
		`id/frontmatter "dependency_management" d="python" t="dependency_management" field="context"`,
		`id/frontmatter "security/secrets" d="security" t="secrets" field="context"`,
		`id/frontmatter "venvs.md" d="python" t="venvs" field="context"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("refs:\n got  %q\n want %q", got, want)
	}
	// With two primary domains a bare topic's domain is unknown.
	d = document.Parse("SKILL.md", []byte("---\ncontext:\n  primary: [python, security]\n  topics: [x]\n---\n"))
	if refs := Scan(d, testOpts()); len(refs) != 2 {
		t.Errorf("two primaries: refs = %v", refs)
	}
}
