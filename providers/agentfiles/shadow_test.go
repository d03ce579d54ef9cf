package agentfiles

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// A command a skill shadows names the skill, and the related place is
// the skill's file.
func TestCommandShadowedNamesSkill(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/codes/command-shadowed", nil)
	want := map[string]string{
		".claude/commands/review.md":      ".claude/skills/review/SKILL.md",
		".claude/commands/folder-name.md": ".claude/skills/folder-name/SKILL.md",
	}
	for p, ds := range s.Check(context.Background()) {
		f, _ := s.File(p)
		for _, d := range ds {
			if d.Code != diag.CommandShadowed {
				continue
			}
			skill, ok := want[f.Rel]
			if !ok {
				t.Errorf("%s: %s", f.Rel, d.Message)
				continue
			}
			delete(want, f.Rel)
			if !strings.Contains(d.Message, skill) {
				t.Errorf("%s: message %q does not name %s", f.Rel, d.Message, skill)
			}
			sk, _ := s.File(filepath.Join(s.Root, filepath.FromSlash(skill)))
			if len(d.Related) != 1 || sk == nil || d.Related[0].Path != sk.Path {
				t.Errorf("%s: related %+v, want the skill %s", f.Rel, d.Related, skill)
			}
		}
	}
	for rel := range want {
		t.Errorf("%s: no command-shadowed", rel)
	}
}
