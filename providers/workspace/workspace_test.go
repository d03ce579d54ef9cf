package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

func TestOpenIndexes(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	var progress int
	w := open(t, dir, nil, func(o *Options) { o.Progress = func(done, total int) { progress = total } })
	for _, id := range []string{"python/async", "git/commits", "git/branches"} {
		if !hasTopic(w, id) {
			t.Errorf("topic %s missing after Open", id)
		}
	}
	if _, ok := w.Snapshot().Library().Command("implement"); !ok {
		t.Error("command implement missing after Open")
	}
	if progress == 0 {
		t.Error("Progress was never called with a total")
	}
	if got, want := snapshot(w.Snapshot().Library()), snapshot(fresh(t, dir)); got != want {
		t.Errorf("Open differs from library.Load:\n%s", diffLines(got, want))
	}
}

func TestFileChanges(t *testing.T) {
	t.Parallel()
	dir, rec, w := openBase(t, nil)
	commits := filepath.Join(dir, "context/git/commits.md")

	// In turn: each case edits the tree the next one reads, and all share rec.
	t.Run("create", func(t *testing.T) {
		rec.Reset()
		p := testtree.WriteAt(t, dir, "context/git/tags.md", topicText("git", "tags", "Tags"))
		waitFor(t, "git/tags to appear", func() bool { return hasTopic(w, "git/tags") })
		waitFor(t, "an update naming tags.md", func() bool { return slices.Contains(rec.changed(), p) })
	})

	t.Run("modify affects referrers", func(t *testing.T) {
		rec.Reset()
		testtree.WriteAt(t, dir, "context/git/commits.md", topicText("git", "commits", "Commit Messages"))
		waitFor(t, "the new title", func() bool {
			tp, ok := w.Snapshot().Library().Topic("git/commits")
			return ok && tp.Meta.Title == "Commit Messages"
		})
		waitFor(t, "an update naming commits.md", func() bool { return slices.Contains(rec.changed(), commits) })
		aff := rec.affected()
		for _, rel := range []string{"context/git/branches.md", "context/python/async.md", "commands/implement.md"} {
			if p := filepath.Join(dir, rel); !slices.Contains(aff, p) {
				t.Errorf("Affected lacks %s, which refers to git:commits; got %v", rel, aff)
			}
		}
		// An update of the creation above may still come after the reset
		// (the write of tags.md after its creation): only the updates of
		// this change count.
		for _, u := range rec.All() {
			if slices.Contains(u.Changed, commits) && len(u.Changed) != 1 {
				t.Errorf("Changed = %v, want only commits.md", u.Changed)
			}
		}
	})

	t.Run("atomic save", func(t *testing.T) {
		rec.Reset()
		tmp := filepath.Join(dir, "context/git/commits.md.tmp~")
		if err := os.WriteFile(tmp, []byte(topicText("git", "commits", "Atomic Commits")), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, commits); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the atomic save", func() bool {
			tp, ok := w.Snapshot().Library().Topic("git/commits")
			return ok && tp.Meta.Title == "Atomic Commits"
		})
		waitFor(t, "its update", func() bool { return slices.Contains(rec.changed(), commits) })
		if ch := rec.changed(); !slices.Equal(ch, []string{commits}) {
			t.Errorf("an atomic save changed %v, want only the target", ch)
		}
	})

	t.Run("rename in place", func(t *testing.T) {
		rec.Reset()
		old := filepath.Join(dir, "context/git/tags.md")
		nw := filepath.Join(dir, "context/git/labels.md")
		if err := os.Rename(old, nw); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "git/labels to replace git/tags", func() bool { return hasTopic(w, "git/labels") && !hasTopic(w, "git/tags") })
		waitFor(t, "both paths reported", func() bool {
			ch := rec.changed()
			return slices.Contains(ch, old) && slices.Contains(ch, nw)
		})
	})

	t.Run("delete affects referrers", func(t *testing.T) {
		rec.Reset()
		if err := os.Remove(commits); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "git/commits to go", func() bool { return !hasTopic(w, "git/commits") })
		branches := filepath.Join(dir, "context/git/branches.md")
		waitFor(t, "branches.md to be affected", func() bool { return slices.Contains(rec.affected(), branches) })
		if !hasCode(w.Snapshot().Library().Diagnose(branches), library.CodeUnresolved) {
			t.Errorf("branches.md refers to the removed git:commits but has no %s diagnostic", library.CodeUnresolved)
		}
	})
	waitInSync(t, w)
}

func hasCode(ds []diag.Diagnostic, code string) bool {
	return slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return d.Code == code })
}

func TestDirectories(t *testing.T) {
	t.Parallel()
	dir, _, w := openBase(t, nil)

	// In turn: cases move or remove what earlier ones made.
	t.Run("new domain with mkdir -p", func(t *testing.T) {
		testtree.WriteAt(t, dir, "context/rust/deep/nested/ownership.md", "# Ownership\n")
		testtree.WriteAt(t, dir, "context/rust/index.md", "# Rust\n")
		testtree.WriteAt(t, dir, "context/rust/lifetimes.md", topicText("rust", "lifetimes", "Lifetimes", "rust:index"))
		waitFor(t, "the rust domain", func() bool {
			return hasTopic(w, "rust/lifetimes") && hasTopic(w, "rust/index") && hasTopic(w, "rust/deep/nested/ownership")
		})
		if !w.Snapshot().Library().IsDomain("rust") {
			t.Error("rust is not a domain")
		}
	})

	t.Run("rename directory", func(t *testing.T) {
		if err := os.Rename(filepath.Join(dir, "context/rust"), filepath.Join(dir, "context/oxide")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "rust → oxide", func() bool {
			return hasTopic(w, "oxide/lifetimes") && hasTopic(w, "oxide/deep/nested/ownership") && !hasTopic(w, "rust/lifetimes")
		})
		// The moved tree must stay watched at its new place.
		testtree.WriteAt(t, dir, "context/oxide/deep/nested/borrowing.md", "# Borrowing\n")
		waitFor(t, "a file in the moved tree", func() bool { return hasTopic(w, "oxide/deep/nested/borrowing") })
	})

	t.Run("remove directory", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(dir, "context/oxide")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "oxide to go", func() bool { return !w.Snapshot().Library().IsDomain("oxide") && !hasTopic(w, "oxide/lifetimes") })
	})

	t.Run("new context root", func(t *testing.T) {
		testtree.WriteAt(t, dir, "docs/context/web/http.md", topicText("web", "http", "HTTP"))
		waitFor(t, "a second context root", func() bool { return hasTopic(w, "web/http") })
	})

	t.Run("ignored directories", func(t *testing.T) {
		testtree.WriteAt(t, dir, "node_modules/pkg/context/x/y.md", "# Y\n")
		testtree.WriteAt(t, dir, ".git/context/x/z.md", "# Z\n")
		testtree.WriteAt(t, dir, "context/git/ignored_sentinel.md", "# S\n")
		waitFor(t, "the sentinel", func() bool { return hasTopic(w, "git/ignored_sentinel") })
		for _, f := range w.Snapshot().Library().Files() {
			if strings.Contains(f.Path, "node_modules") || strings.Contains(f.Path, ".git"+string(filepath.Separator)) {
				t.Errorf("indexed %s in an ignored directory", f.Path)
			}
		}
		files := w.watcher.Load().Files()
		for _, f := range files {
			if strings.Contains(f, "node_modules") {
				t.Errorf("the watcher knows %s in an ignored directory", f)
			}
		}
	})

	t.Run("remove and restore a context root", func(t *testing.T) {
		ctxDir := filepath.Join(dir, "docs/context")
		if err := os.Rename(ctxDir, filepath.Join(dir, "docs/old")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "web/http to go", func() bool { return !hasTopic(w, "web/http") })
		waitInSync(t, w)
		if err := os.Rename(filepath.Join(dir, "docs/old"), ctxDir); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "web/http back", func() bool { return hasTopic(w, "web/http") })
	})
	waitInSync(t, w)
}

func TestOverlayPrecedence(t *testing.T) {
	t.Parallel()
	dir, rec, w := openBase(t, nil)
	p := filepath.Join(dir, "context/git/commits.md")
	edited := topicText("git", "commits", "Edited In Editor")

	w.DidOpen(p, edited, 1)
	if got, _ := textOf(w, p); got != edited {
		t.Fatalf("after DidOpen the library holds %q, want the editor's text", got)
	}
	if txt, v, ok := w.Snapshot().Overlay(p); !ok || txt != edited || v != 1 {
		t.Fatalf("Overlay = %q, %d, %v", txt, v, ok)
	}
	waitFor(t, "an update for the opened document", func() bool { return slices.Contains(rec.changed(), p) })

	edited2 := edited + "\nMore.\n"
	w.DidChange(p, edited2, 2)
	if got, _ := textOf(w, p); got != edited2 {
		t.Fatalf("after DidChange the library holds %q", got)
	}

	// A disk write to the open document is ignored; a write elsewhere in
	// the same moment is applied, which tells that the batch was handled.
	disk := topicText("git", "commits", "Written On Disk")
	testtree.WriteAt(t, dir, "context/git/commits.md", disk)
	testtree.WriteAt(t, dir, "context/git/sentinel.md", "# Sentinel\n")
	waitFor(t, "the sentinel", func() bool { return hasTopic(w, "git/sentinel") })
	if got, _ := textOf(w, p); got != edited2 {
		t.Fatalf("a disk write replaced the open document's text: %q", got)
	}
	w.NotifyWatched([]string{p})
	w.watcher.Load().Rescan()
	testtree.WriteAt(t, dir, "context/git/sentinel2.md", "# Sentinel\n")
	w.NotifyWatched([]string{filepath.Join(dir, "context/git/sentinel2.md")})
	waitFor(t, "the second sentinel", func() bool { return hasTopic(w, "git/sentinel2") })
	if got, _ := textOf(w, p); got != edited2 {
		t.Fatalf("a notification replaced the open document's text: %q", got)
	}

	// A configuration change rebuilds the library from disk; the open
	// document must survive it.
	testtree.WriteAt(t, dir, ".ctxls.yaml", "tokenizer: o200k_base\ndriftThreshold: 0.5\n")
	waitFor(t, "the new drift threshold", func() bool { return w.Snapshot().Library().Config().DriftThreshold == 0.5 })
	if got, _ := textOf(w, p); got != edited2 {
		t.Fatalf("a reload replaced the open document's text: %q", got)
	}

	w.DidClose(p)
	if _, _, ok := w.Snapshot().Overlay(p); ok {
		t.Fatal("Overlay still set after DidClose")
	}
	if got, _ := textOf(w, p); got != disk {
		t.Fatalf("after DidClose the library holds %q, want the disk's text", got)
	}

	// An unsaved new document exists only while open.
	nw := filepath.Join(dir, "context/git/unsaved.md")
	w.DidOpen(nw, topicText("git", "unsaved", "Unsaved"), 1)
	if !hasTopic(w, "git/unsaved") {
		t.Fatal("an open unsaved document is not a topic")
	}
	w.DidClose(nw)
	if hasTopic(w, "git/unsaved") {
		t.Fatal("an unsaved document is still a topic after DidClose")
	}
	waitInSync(t, w)
}

func TestNotifyWatchedWithoutWatcher(t *testing.T) {
	t.Parallel()
	dir, rec, w := openBase(t, func(o *Options) { o.Watch = false })
	// The same change notified again, with another file in the same
	// notification: only the other file is applied.
	if n := notifyTwice(t, dir, w, rec, "Notified"); n != 1 {
		t.Errorf("commits.md was applied %d times, want once", n)
	}

	// A notification naming a removed directory removes what was below.
	if err := os.RemoveAll(filepath.Join(dir, "context/python")); err != nil {
		t.Fatal(err)
	}
	w.NotifyWatched([]string{filepath.Join(dir, "context/python")})
	waitFor(t, "python to go", func() bool { return !hasTopic(w, "python/async") })

	// A notification naming a new directory reads what is in it.
	testtree.WriteAt(t, dir, "context/go/a/b.md", "# B\n")
	w.NotifyWatched([]string{filepath.Join(dir, "context/go")})
	waitFor(t, "go/a/b", func() bool { return hasTopic(w, "go/a/b") })
	waitInSync(t, w)
}

func TestNotifyWatchedDedupe(t *testing.T) {
	t.Parallel()
	dir, rec, w := openBase(t, nil)
	// The notification joined the watcher's debounce: once a later change
	// sent both ways is through, commits.md has been looked at by both.
	if n := notifyTwice(t, dir, w, rec, "Both Ways"); n != 1 {
		t.Errorf("a change seen by the watcher and the client was applied %d times, want once: %+v", n, rec.All())
	}
}

// notifyTwice writes git/commits titled title, notifies it and waits for
// the title, then notifies it again together with a new sentinel file and
// waits for the sentinel. It returns how many updates named commits.md.
func notifyTwice(t *testing.T, dir string, w *Workspace, rec *recorder, title string) int {
	t.Helper()
	// Written whole (renamed over), so that the watcher sees one change:
	// an in-place write is two events, which a loaded machine can split
	// across two batches.
	p := filepath.Join(dir, "context/git/commits.md")
	testtree.WriteAt(t, dir, "context/git/commits.md.tmp~", topicText("git", "commits", title))
	if err := os.Rename(p+".tmp~", p); err != nil {
		t.Fatal(err)
	}
	w.NotifyWatched([]string{p})
	waitFor(t, "the notified change", func() bool {
		tp, ok := w.Snapshot().Library().Topic("git/commits")
		return ok && tp.Meta.Title == title
	})
	s := testtree.WriteAt(t, dir, "context/git/sentinel.md", "# Sentinel\n")
	w.NotifyWatched([]string{p, s})
	waitFor(t, "the sentinel", func() bool { return hasTopic(w, "git/sentinel") })
	n := 0
	for _, u := range rec.All() {
		if slices.Contains(u.Changed, p) {
			n++
		}
	}
	return n
}

func TestConfigChanges(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	testtree.WriteAt(t, dir, "docs/web/http.md", topicText("web", "http", "HTTP"))
	testtree.WriteAt(t, dir, "context/drafts/wip.md", "# WIP\n")
	rec := &recorder{}
	w := open(t, dir, rec, nil)
	if hasTopic(w, "web/http") {
		t.Fatal("docs is a context root before the configuration says so")
	}

	cfgPath := filepath.Join(dir, ".ctxls.yaml")
	testtree.WriteAt(t, dir, ".ctxls.yaml", "tokenizer: o200k_base\ncontextRoots: [docs]\nignore: [drafts]\n")
	waitFor(t, "docs as a context root", func() bool { return hasTopic(w, "web/http") })
	waitFor(t, "drafts ignored", func() bool { return !hasTopic(w, "drafts/wip") })
	waitFor(t, "a reload update naming .ctxls.yaml", func() bool {
		return slices.ContainsFunc(rec.All(), func(u Update) bool { return u.Reloaded && slices.Contains(u.Changed, cfgPath) })
	})

	// The watcher is started again without the ignored directory; new
	// files there stay out, files elsewhere come in.
	testtree.WriteAt(t, dir, "context/drafts/more.md", "# More\n")
	testtree.WriteAt(t, dir, "docs/web/tls.md", topicText("web", "tls", "TLS"))
	waitFor(t, "web/tls", func() bool { return hasTopic(w, "web/tls") })
	if hasTopic(w, "drafts/more") {
		t.Error("a file in an ignored directory was indexed")
	}

	// Client settings override the file and survive its changes.
	if err := w.SetSettings(context.Background(), json.RawMessage(`{"ctxls":{"tokenizer":"estimate","driftThreshold":0.9}}`)); err != nil {
		t.Fatal(err)
	}
	if c := w.Snapshot().Library().Config(); c.Tokenizer != "estimate" || c.DriftThreshold != 0.9 {
		t.Fatalf("after SetSettings tokenizer=%q drift=%v", c.Tokenizer, c.DriftThreshold)
	}
	testtree.WriteAt(t, dir, ".ctxls.yaml", "tokenizer: o200k_base\ncontextRoots: [docs]\nbudget: {files: 3}\n")
	waitFor(t, "the file's new budget", func() bool { return w.Snapshot().Library().Config().Budget.Files == 3 })
	if c := w.Snapshot().Library().Config(); c.Tokenizer != "estimate" || c.DriftThreshold != 0.9 {
		t.Errorf("a file change dropped the settings: tokenizer=%q drift=%v", c.Tokenizer, c.DriftThreshold)
	}
	waitFor(t, "drafts back", func() bool { return hasTopic(w, "drafts/wip") && hasTopic(w, "drafts/more") })

	if err := w.SetSettings(context.Background(), json.RawMessage(`{"tokenizer": 3}`)); err == nil {
		t.Error("SetSettings accepted a malformed tokenizer")
	}

	// Problems in the file are kept for diagnostics of .ctxls.yaml.
	testtree.WriteAt(t, dir, ".ctxls.yaml", "tokenizer: o200k_base\ncontextRoots: [docs]\ndriftThreshold: lots\n")
	waitFor(t, "a configuration problem", func() bool { return len(w.Snapshot().Library().ConfigProblems()) > 0 })
}

func TestWatchLimit(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	logs := &logBuffer{}
	w := open(t, dir, nil, func(o *Options) {
		o.MaxWatches = 2
		o.Logger = textLogger(logs)
	})
	testtree.WriteAt(t, dir, "context/python/polled.md", topicText("python", "polled", "Polled"))
	testtree.WriteAt(t, dir, "context/newdomain/x.md", "# X\n")
	waitFor(t, "changes in polled directories", func() bool { return hasTopic(w, "python/polled") && hasTopic(w, "newdomain/x") })
	if n := logs.count("watch limit reached"); n != 1 {
		t.Errorf("the watch limit was reported %d times, want once", n)
	}
	waitInSync(t, w)

	// A new ignore pattern starts the watcher again: still one report.
	restartWatcher(t, w, dir, "tokenizer: o200k_base\nignore: [drafts]\n")
	testtree.WriteAt(t, dir, "context/python/polled2.md", "# Polled\n")
	waitFor(t, "a change seen by the new watcher", func() bool { return hasTopic(w, "python/polled2") })
	if n := logs.count("watch limit reached"); n != 1 {
		t.Errorf("the watch limit was reported %d times, want once", n)
	}
}

func TestSymlinkLoopAndUnreadable(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	if err := os.Symlink("..", filepath.Join(dir, "context/python/loop")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if err := os.Symlink("loop2", filepath.Join(dir, "context/python/loop2")); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	w := open(t, dir, nil, func(o *Options) { o.Logger = textLogger(logs) })
	if n := logs.count("symbolic link"); n == 0 {
		t.Errorf("no warning about symbolic links; log:\n%s", strings.Join(logs.All(), ""))
	}
	testtree.WriteAt(t, dir, "context/python/after.md", "# After\n")
	waitFor(t, "a change beside the loop", func() bool { return hasTopic(w, "python/after") })
	waitInSync(t, w)
}

func TestNoGoroutineLeak(t *testing.T) {
	t.Parallel()
	// The subtests run in turn: they all watch and write dir.
	dir := libtest.WriteTree(t, baseTree())
	t.Run("close twice", func(t *testing.T) {
		watchertest.CheckGoroutines(t)
		rec := &recorder{}
		w, err := Open(context.Background(), dir, Options{Watch: true, OnUpdate: rec.Add, Debounce: 20_000_000})
		if err != nil {
			t.Fatal(err)
		}
		waitWatching(t, w)
		testtree.WriteAt(t, dir, "context/git/leak.md", "# Leak\n")
		w.NotifyWatched([]string{filepath.Join(dir, "context/git/leak.md")})
		waitFor(t, "the change", func() bool { return hasTopic(w, "git/leak") })
		w.DidOpen(filepath.Join(dir, "README.md"), "# Changed\n", 1)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
	})
	// Nor a watcher started again for a new ignore list.
	t.Run("watcher restarted", func(t *testing.T) {
		watchertest.CheckGoroutines(t)
		w, err := Open(context.Background(), dir, Options{Watch: true, Debounce: 20_000_000})
		if err != nil {
			t.Fatal(err)
		}
		waitWatching(t, w)
		restartWatcher(t, w, dir, "tokenizer: o200k_base\nignore: [drafts]\n")
		// Changed again at once: Close may meet a watcher still starting.
		testtree.WriteAt(t, dir, ".ctxls.yaml", "tokenizer: o200k_base\n")
		waitFor(t, "the ignore list to go", func() bool { return len(w.Snapshot().Library().Config().Ignore) == 0 })
		w.Close()
	})
	// Closing while the watcher is still starting must not leak either.
	t.Run("closed while starting", func(t *testing.T) {
		watchertest.CheckGoroutines(t)
		w, err := Open(context.Background(), dir, Options{Watch: true})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
	})
}

func TestReloadThreshold(t *testing.T) {
	t.Parallel()
	dir, rec, w := openBase(t, func(o *Options) { o.ReloadThreshold = 3 })
	doc := filepath.Join(dir, "context/git/branches.md")
	edited := topicText("git", "branches", "Open Branches")
	w.DidOpen(doc, edited, 1)
	for i := range 6 {
		testtree.WriteAt(t, dir, "context/burst/t"+string(rune('a'+i))+".md", "# Burst\n")
	}
	waitFor(t, "a reloading update", func() bool {
		return slices.ContainsFunc(rec.All(), func(u Update) bool { return u.Reloaded })
	})
	waitFor(t, "the burst", func() bool { return hasTopic(w, "burst/tf") && hasTopic(w, "burst/ta") })
	if got, _ := textOf(w, doc); got != edited {
		t.Errorf("the reload dropped the open document's text: %q", got)
	}
	w.DidClose(doc)
	waitInSync(t, w)
}

// TestChangesWhileStarting changes the disk while the watcher is still
// reading the tree: whatever the timing, the library ends equal to the disk.
func TestChangesWhileStarting(t *testing.T) {
	t.Parallel()
	files := baseTree()
	for i := range 300 {
		files["context/many/t"+strconv.Itoa(i)+".md"] = topicText("many", "t"+strconv.Itoa(i), "Many")
	}
	dir := libtest.WriteTree(t, files)
	w, err := Open(context.Background(), dir, Options{Watch: true, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	testtree.WriteAt(t, dir, "context/git/commits.md", topicText("git", "commits", "Early"))
	os.Remove(filepath.Join(dir, "context/git/branches.md"))
	testtree.WriteAt(t, dir, "context/early/x.md", "# Early\n")
	for i := range 50 {
		os.Remove(filepath.Join(dir, "context/many/t"+strconv.Itoa(i)+".md"))
	}
	waitWatching(t, w)
	waitInSync(t, w)
}

// TestRebuildDuringBurst rebuilds the library (new settings) while the
// watcher holds events it has not applied: a directory created before the
// rebuild's scan is removed before the watcher looks at it. The watcher
// never knew the directory, so its batch says nothing about it; the
// library, which read it, must lose it all the same. The watcher runs on a
// manual clock, which stands still until the directory is gone.
func TestRebuildDuringBurst(t *testing.T) {
	t.Parallel()
	clk := watchertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	dir, _, w := openBase(t, func(o *Options) { o.clock = clk })
	brief := filepath.Join(dir, "context/brief")
	testtree.WriteAt(t, dir, "context/brief/a.md", topicText("brief", "a", "Brief"))
	waitFor(t, "the event of the new directory", func() bool { return w.watcher.Load().Waiting(brief) })
	if err := w.SetSettings(t.Context(), json.RawMessage(`{"driftThreshold":0.5}`)); err != nil {
		t.Fatal(err)
	}
	if !hasTopic(w, "brief/a") {
		t.Fatal("the rebuild did not read the new directory")
	}
	if err := os.RemoveAll(brief); err != nil {
		t.Fatal(err)
	}
	advanceUntil(t, clk, "the removed directory to leave the library", func() bool { return !hasTopic(w, "brief/a") })
	advanceUntil(t, clk, "the library to equal the disk", func() bool {
		return snapshot(w.Snapshot().Library()) == snapshot(fresh(t, dir))
	})
}

func TestUnreadableDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("permissions do not apply to root")
	}
	dir := libtest.WriteTree(t, baseTree())
	locked := filepath.Join(dir, "context/locked")
	testtree.WriteAt(t, dir, "context/locked/x.md", "# X\n")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	logs := &logBuffer{}
	w := open(t, dir, nil, func(o *Options) { o.Logger = textLogger(logs) })
	if logs.count("locked") == 0 {
		t.Errorf("no warning about the unreadable directory; log:\n%s", strings.Join(logs.All(), ""))
	}
	testtree.WriteAt(t, dir, "context/git/after.md", "# After\n")
	waitFor(t, "a change beside it", func() bool { return hasTopic(w, "git/after") })
}

func TestTypeChange(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	w := open(t, dir, nil, nil)
	p := filepath.Join(dir, "context/git/shape.md")
	testtree.WriteAt(t, dir, "context/git/shape.md", "# File\n")
	waitFor(t, "the file", func() bool { return hasTopic(w, "git/shape") })
	// The file becomes a directory holding a topic, then a file again.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	testtree.WriteAt(t, dir, "context/git/shape.md/inner.md", "# Inner\n")
	waitFor(t, "the directory's topic", func() bool { return hasTopic(w, "git/shape.md/inner") })
	waitInSync(t, w)
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	testtree.WriteAt(t, dir, "context/git/shape.md", "# File again\n")
	waitFor(t, "the file again", func() bool { return hasTopic(w, "git/shape") && !hasTopic(w, "git/shape.md/inner") })
	waitInSync(t, w)
}

// TestExampleLibrary follows a change in the example library: the update
// names every file that refers to the changed topic.
func TestExampleLibrary(t *testing.T) {
	t.Parallel()
	dir := libtest.CopyExample(t)
	rec := &recorder{}
	w := open(t, dir, rec, nil)
	waitInSync(t, w)
	tp, ok := w.Snapshot().Library().Topic("python/fastapi_patterns")
	if !ok {
		t.Fatal("the example library has no python/fastapi_patterns")
	}
	refs := w.Snapshot().Library().References(tp.ID)
	if len(refs) == 0 {
		t.Fatal("nothing refers to python/fastapi_patterns")
	}
	text, err := os.ReadFile(tp.Path)
	if err != nil {
		t.Fatal(err)
	}
	testtree.WriteAt(t, dir, "context/python/fastapi_patterns.md", strings.Replace(string(text), "## Testing", "## Tests", 1))
	waitFor(t, "the update", func() bool { return slices.Contains(rec.changed(), tp.Path) })
	aff := rec.affected()
	for _, loc := range refs {
		if !slices.Contains(aff, loc.File.Path) {
			t.Errorf("%s refers to %s but is not in Affected", loc.File.Rel, tp.ID)
		}
	}
	waitInSync(t, w)
}

// TestCreateResolvesWaitingReferences: a new topic affects the files that
// referred to it before it existed, whose unresolved references now resolve.
func TestCreateResolvesWaitingReferences(t *testing.T) {
	t.Parallel()
	files := baseTree()
	files["context/python/waiting.md"] = topicText("python", "waiting", "Waiting", "git:tags")
	dir := libtest.WriteTree(t, files)
	rec := &recorder{}
	w := open(t, dir, rec, nil)
	waiting := filepath.Join(dir, "context/python/waiting.md")
	if !hasCode(w.Snapshot().Library().Diagnose(waiting), library.CodeUnresolved) {
		t.Fatal("waiting.md has no unresolved reference to begin with")
	}
	testtree.WriteAt(t, dir, "context/git/tags.md", topicText("git", "tags", "Tags"))
	waitFor(t, "git/tags", func() bool { return hasTopic(w, "git/tags") })
	waitFor(t, "the update", func() bool { return slices.Contains(rec.changed(), filepath.Join(dir, "context/git/tags.md")) })
	if !slices.Contains(rec.affected(), waiting) {
		t.Errorf("Affected %v lacks waiting.md, whose reference now resolves", rec.affected())
	}
	if hasCode(w.Snapshot().Library().Diagnose(waiting), library.CodeUnresolved) {
		t.Error("waiting.md still has an unresolved reference")
	}
}

// TestNewRootFromFileRebuildsAside: a file notified inside a new context
// root (its directory never named) makes a new library built aside, with
// the open documents laid over it, rather than a scan in place.
func TestNewRootFromFileRebuildsAside(t *testing.T) {
	t.Parallel()
	dir, _, w := openBase(t, func(o *Options) { o.Watch = false })
	doc := filepath.Join(dir, "context/git/commits.md")
	edited := topicText("git", "commits", "Open")
	w.DidOpen(doc, edited, 1)
	before := w.Snapshot().Library()
	p := testtree.WriteAt(t, dir, "extra/context/web/http.md", topicText("web", "http", "HTTP"))
	w.NotifyWatched([]string{p})
	waitFor(t, "web/http", func() bool { return hasTopic(w, "web/http") })
	if w.Snapshot().Library() == before {
		t.Error("a new root was scanned in place, not rebuilt aside")
	}
	if got, _ := textOf(w, doc); got != edited {
		t.Errorf("the open document's text was lost: %q", got)
	}
	w.DidClose(doc)
	waitInSync(t, w)
}
