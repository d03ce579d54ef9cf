package agentwatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// recorder keeps the paths reported, one call's worth a slice.
type recorder struct {
	watchertest.Recorder[[]string]
}

// seen returns every path reported so far.
func (r *recorder) seen() []string { return slices.Concat(r.All()...) }

// TestWatchReportsAgentFiles drives a real watcher on a temporary
// workspace: files that may be agent files are reported when written,
// changed or removed, in a folder there at the start or created later;
// other files, node_modules and folders that are not agent folders are
// not; nothing is reported after Close.
func TestWatchReportsAgentFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skill := filepath.Join(dir, ".claude", "skills", "deploy", "SKILL.md")
	testtree.Write(t, skill, "---\nname: deploy\n---\n")
	var rec recorder
	w, err := Watch(dir, Options{Debounce: 20 * time.Millisecond, PollInterval: 50 * time.Millisecond}, rec.Add)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	waitFor := func(p string) {
		t.Helper()
		watchertest.WaitFor(t, p+" reported", func() bool { return slices.Contains(rec.seen(), p) })
	}
	ignored := []string{
		filepath.Join(dir, ".claude", "notes.txt"),
		filepath.Join(dir, ".claude", "node_modules", "pkg", "README.md"),
		filepath.Join(dir, ".vscode", "settings.json"),
		filepath.Join(dir, "docs", "guide.md"),
	}
	for _, p := range ignored {
		testtree.Write(t, p, "x")
	}
	testtree.Write(t, skill, "---\nname: deploy\ndescription: Changed.\n---\n")
	waitFor(skill)
	rule := filepath.Join(dir, ".cursor", "rules", "style.mdc") // .cursor did not exist
	testtree.Write(t, rule, "# Style\n")
	waitFor(rule)
	manifest := filepath.Join(dir, ".claude-plugin", "plugin.json")
	testtree.Write(t, manifest, "{}")
	waitFor(manifest)
	// Counted before the removal: a report that comes between the two
	// would otherwise be missed.
	before := len(rec.seen())
	if err := os.RemoveAll(filepath.Dir(skill)); err != nil {
		t.Fatal(err)
	}
	watchertest.WaitFor(t, "the removal of "+skill+" reported", func() bool { return slices.Contains(rec.seen()[before:], skill) })
	for _, p := range rec.seen() {
		if slices.Contains(ignored, p) || filepath.Ext(p) == "" {
			t.Errorf("reported %s, which is not an agent file", p)
		}
	}
	for _, c := range rec.All() {
		if len(c) == 0 {
			t.Error("a call without paths")
		}
	}

	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	n := len(rec.seen())
	testtree.Write(t, filepath.Join(dir, ".github", "copilot-instructions.md"), "# After close\n")
	time.Sleep(200 * time.Millisecond) // ten debounces: a call would have come
	if got := rec.seen(); len(got) != n {
		t.Errorf("reported after Close: %v", got[n:])
	}
}
