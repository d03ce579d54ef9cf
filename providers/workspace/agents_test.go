package workspace

import (
	"context"
	"path/filepath"
	"slices"
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

// TestAgentFilesParsedOnce moves the workspace on by edits of a document
// that is no agent file, an unsaved edit of a skill and a skill changed on
// disk: the agent files are not read again for the edits of other
// documents, and a file whose text stayed keeps its parse in every next
// snapshot, while one whose text changed is parsed again.
func TestAgentFilesParsedOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/web/api.md":             topicText("web", "api", "API"),
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the site.\n---\nRun the deploy.\n",
		"CLAUDE.md":                      "# Project\n",
	})
	w := open(t, dir, &recorder{}, func(o *Options) { o.Watch = false })
	api := filepath.Join(dir, "context", "web", "api.md")
	skill := filepath.Join(dir, ".claude", "skills", "deploy", "SKILL.md")
	memory := filepath.Join(dir, "CLAUDE.md")

	read := func() *agentfiles.Set {
		t.Helper()
		set, err := w.Snapshot().AgentFiles(ctx)
		if err != nil || set == nil {
			t.Fatalf("AgentFiles: %v, %v", set, err)
		}
		return set
	}
	file := func(set *agentfiles.Set, p string) *agentfiles.File {
		t.Helper()
		f, ok := set.File(p)
		if !ok || f.Doc == nil {
			t.Fatalf("%s is not among the agent files", p)
		}
		return f
	}

	first := read()
	w.DidOpen(api, topicText("web", "api", "API")+"\nEdited.\n", 1)
	w.DidChange(api, topicText("web", "api", "API")+"\nEdited again.\n", 2)
	if read() != first {
		t.Error("an edit of a topic read the agent files again")
	}

	w.DidOpen(skill, "---\nname: deploy\ndescription: Deploys the site.\n---\nUnsaved.\n", 1)
	edited := read()
	if file(edited, skill).Doc == file(first, skill).Doc {
		t.Error("the skill's unsaved text was not parsed")
	}
	if file(edited, memory) != file(first, memory) {
		t.Error("an edit of the skill read CLAUDE.md again")
	}
	w.DidChange(api, topicText("web", "api", "API")+"\nAnd again.\n", 3)
	if file(read(), skill).Doc != file(edited, skill).Doc {
		t.Error("the skill's unsaved text, unchanged, was parsed again for an edit of a topic")
	}

	w.DidClose(skill)
	testtree.WriteAt(t, dir, ".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploys the site.\n---\nSaved steps.\n")
	w.AgentFilesChanged([]string{skill})
	saved := read()
	if saved == edited {
		t.Fatal("a skill changed on disk did not make the agent files be read again")
	}
	if got := string(file(saved, skill).Text); !strings.Contains(got, "Saved steps.") {
		t.Errorf("the skill as saved: %q", got)
	}
	if file(saved, memory).Doc != file(first, memory).Doc {
		t.Error("CLAUDE.md, unchanged on disk, was parsed again")
	}
}

// TestWatchedAgentFolders creates a skill on disk in a hidden folder the
// workspace's file watcher skips, with no event from a client: the
// workspace's own watch of the agent folders makes the next snapshot,
// and its update names the skill.
func TestWatchedAgentFolders(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/web/api.md":             topicText("web", "api", "API"),
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the site.\n---\nRun the deploy.\n",
	})
	rec := &recorder{}
	w := open(t, dir, rec, nil)
	before := w.Snapshot()
	if _, err := before.AgentFiles(ctx); err != nil {
		t.Fatal(err)
	}
	created := testtree.WriteAt(t, dir, ".claude/skills/release/SKILL.md", "---\nname: release\ndescription: Cuts a release.\n---\nTag it.\n")
	waitFor(t, "an update naming the created skill", func() bool {
		return slices.Contains(rec.changed(), created)
	})
	set, err := w.Snapshot().AgentFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set.File(created); !ok {
		t.Error("the snapshot after the update does not hold the created skill")
	}
	old, err := before.AgentFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := old.File(created); ok {
		t.Error("the snapshot taken before the skill was created shows it")
	}
}
