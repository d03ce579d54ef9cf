package agentfiles

import (
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
)

// An editor's unsaved texts replace the disk's in the set WithTexts
// returns, and only there.
func TestWithTexts(t *testing.T) {
	t.Parallel()
	dir := fsguardtest.TempTree(t, map[string]string{
		".claude/skills/a/SKILL.md": "---\nname: a\ndescription: On disk.\n---\n\nBody.\n",
		".claude/commands/go.md":    "Go.\n",
	})
	set, err := Load(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(dir, ".claude", "skills", "a", "SKILL.md")
	added := filepath.Join(dir, ".claude", "skills", "b", "SKILL.md")
	notAgent := filepath.Join(dir, "notes.md")
	got := set.WithTexts(t.Context(), map[string][]byte{
		skill:    []byte("---\nname: a\ndescription: In the editor.\n---\n\nBody.\n"),
		added:    []byte("---\nname: b\ndescription: Not saved yet.\n---\n"),
		notAgent: []byte("# Notes\n"),
	})
	desc := func(s *Set, p string) string {
		f, ok := s.File(p)
		if !ok {
			return "(none)"
		}
		return f.Meta.Description
	}
	for _, c := range []struct {
		set  *Set
		path string
		want string
	}{
		{got, skill, "In the editor."},
		{got, added, "Not saved yet."},
		{got, notAgent, "(none)"},
		{set, skill, "On disk."},
		{set, added, "(none)"},
	} {
		if d := desc(c.set, c.path); d != c.want {
			t.Errorf("%s: description %q, want %q", c.path, d, c.want)
		}
	}
	if len(got.Files) != 3 || len(set.Files) != 2 {
		t.Errorf("%d files with the texts, %d without; want 3 and 2", len(got.Files), len(set.Files))
	}
	for i := 1; i < len(got.Files); i++ {
		if got.Files[i-1].Rel > got.Files[i].Rel {
			t.Errorf("files not sorted: %s before %s", got.Files[i-1].Rel, got.Files[i].Rel)
		}
	}
	if set.WithTexts(t.Context(), nil) != set {
		t.Error("no texts made a new set")
	}
}
