package agentfiles

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// TestSkillLinks follows symbolic links to skill folders that stay in the
// workspace, as Claude Code lists them: a .claude/skills that is a link,
// and skill folders that are links, each checked once, on the file the
// link leads to, with the places it is loaded from.
func TestSkillLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skill := "---\nname: %s\ndescription: Does %s. Use when asked.\n---\n\nSee [the notes](references/notes.md).\n"
	testtree.WriteFiles(t, dir, map[string]string{
		// A skill of Codex's folder, without a name: Codex skips it, and
		// Claude Code reads it too through the link.
		".agents/skills/opentui/SKILL.md":            "---\ndescription: Builds TUIs. Use when asked.\n---\n\nSee [the notes](references/notes.md).\n",
		".agents/skills/opentui/references/notes.md": "# Notes\n",
		".cline/skills/publish/SKILL.md":             fmt.Sprintf(skill, "publish", "publishing"),
		".cline/skills/publish/references/notes.md":  "# Notes\n",
		"shared/skills/review/SKILL.md":              fmt.Sprintf(skill, "review", "reviews"),
		"shared/skills/review/references/notes.md":   "# Notes\n",
	})
	fsguardtest.Links(t, dir, map[string]string{
		".claude/skills/opentui": "../../.agents/skills/opentui",
		".claude/skills/publish": "../../.cline/skills/publish",
		".claude/skills/loop":    "..",
		".claude/skills/away":    filepath.Dir(fsguardtest.Outside(t, "away/SKILL.md", fmt.Sprintf(skill, "away", "away things"))),
		".github/skills":         "../shared/skills",
	})
	s := mustLoad(t, dir, nil)
	var rels []string
	for _, f := range s.Files {
		rels = append(rels, f.Rel)
	}
	want := []string{
		".agents/skills/opentui/SKILL.md",
		".claude/skills/opentui/SKILL.md",
		".claude/skills/publish/SKILL.md",
		".cline/skills/publish/SKILL.md",
		".github/skills/review/SKILL.md",
		"shared/skills/review/SKILL.md",
	}
	if !slices.Equal(rels, want) {
		t.Errorf("files %v, want %v", rels, want)
	}
	got := map[string][]string{}
	for p, ds := range s.Check(t.Context()) {
		f, _ := s.File(p)
		for _, d := range ds {
			got[f.Rel] = append(got[f.Rel], d.Code)
		}
	}
	// The links resolve inside the linked folders, and each problem is
	// reported once, on the original.
	if len(got) != 1 || !slices.Equal(got[".agents/skills/opentui/SKILL.md"], []string{"skill-not-loaded"}) {
		t.Errorf("diagnostics %v, want one skill-not-loaded on .agents/skills/opentui/SKILL.md", got)
	}
	// The editor opening the file through the link sees the same.
	linked := filepath.Join(dir, ".claude/skills/opentui/SKILL.md")
	if f, ds := s.CheckFile(t.Context(), linked, nil); f == nil || len(ds) != 1 || ds[0].Code != "skill-not-loaded" {
		t.Errorf("CheckFile through the link: %v, %+v", f, ds)
	}
}
