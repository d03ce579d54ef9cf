package workspace

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestSnapshotAgentFiles changes the agent files under snapshots already
// taken, by an unsaved edit and by a skill created on disk: each snapshot
// keeps answering with the agent files it first read, and the next one
// shows the change.
func TestSnapshotAgentFiles(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/web/api.md":              topicText("web", "api", "API"),
		".claude/skills/deploy/SKILL.md":  "---\nname: deploy\ndescription: Deploys the site.\n---\nRun the deploy.\n",
		".claude/skills/deploy/notes.txt": "notes\n",
		"CLAUDE.md":                       "# Project\n",
	})
	rec := &recorder{}
	w := open(t, dir, rec, func(o *Options) { o.Watch = false })
	skill := filepath.Join(dir, ".claude", "skills", "deploy", "SKILL.md")
	created := filepath.Join(dir, ".claude", "skills", "release", "SKILL.md")

	read := func(s *Snapshot) *agentfiles.Set {
		t.Helper()
		set, err := s.AgentFiles(ctx)
		if err != nil || set == nil {
			t.Fatalf("AgentFiles: %v, %v", set, err)
		}
		return set
	}
	text := func(set *agentfiles.Set, p string) string {
		f, ok := set.File(p)
		if !ok {
			return ""
		}
		return string(f.Text)
	}

	first := w.Snapshot()
	if got := text(read(first), skill); !strings.Contains(got, "Run the deploy.") {
		t.Fatalf("the skill as read: %q", got)
	}
	if read(first) != read(first) {
		t.Error("one snapshot read its agent files twice")
	}

	w.DidChange(skill, "---\nname: deploy\ndescription: Deploys the site.\n---\nUnsaved steps.\n", 2)
	edited := w.Snapshot()
	if got := text(read(edited), skill); !strings.Contains(got, "Unsaved steps.") {
		t.Errorf("the snapshot after an unsaved edit: %q", got)
	}
	if got := text(read(first), skill); strings.Contains(got, "Unsaved steps.") {
		t.Errorf("the snapshot before the edit changed under it: %q", got)
	}

	testtree.WriteAt(t, dir, ".claude/skills/release/SKILL.md", "---\nname: release\ndescription: Cuts a release.\n---\nTag it.\n")
	w.AgentFilesChanged([]string{created})
	if _, ok := read(edited).File(created); ok {
		t.Error("the snapshot before the skill was created shows it")
	}
	now := read(w.Snapshot())
	if _, ok := now.File(created); !ok {
		t.Error("the snapshot after the skill was created lacks it")
	}
	if got := text(now, skill); !strings.Contains(got, "Unsaved steps.") {
		t.Errorf("the open skill's unsaved text is lost on a disk change: %q", got)
	}
	waitFor(t, "the update naming the created skill", func() bool {
		for _, p := range rec.changed() {
			if p == created {
				return true
			}
		}
		return false
	})
}
