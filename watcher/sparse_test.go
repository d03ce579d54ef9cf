package watcher

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// sparseTree writes a tree where only a/ and x/y/ hold markdown; b/, b/src
// and b/src/lib hold other files only. It returns the root.
func sparseTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testtree.Write(t, filepath.Join(root, "a", "README.md"), "a")
	testtree.Write(t, filepath.Join(root, "x", "y", "notes.md"), "y")
	testtree.Write(t, filepath.Join(root, "b", "package.json"), "{}")
	testtree.Write(t, filepath.Join(root, "b", "src", "m.ts"), "export {}")
	testtree.Write(t, filepath.Join(root, "b", "src", "lib", "n.ts"), "export {}")
	return root
}

// A sparse watcher watches the directories that hold a matching file and
// those on the way to one; the others it reads again now and then, and
// watches once a matching file turns up in them.
func TestSparseWatchesOnlyWhatMatters(t *testing.T) {
	t.Parallel()
	root := sparseTree(t)
	e := start(t, Options{Roots: []string{root}, Sparse: true, PollInterval: 20 * time.Millisecond, QuietPoll: 40 * time.Millisecond})
	want := []string{root, filepath.Join(root, "a"), filepath.Join(root, "x"), filepath.Join(root, "x", "y")}
	if got := e.watched(); !slices.Equal(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
	if got := e.w.Watched(); !slices.Equal(got, want) {
		t.Errorf("Watched() = %q, want %q", got, want)
	}
	// A watched directory reports at once; a quiet one on its next read.
	e.expect(t, func() { testtree.Write(t, filepath.Join(root, "a", "new.md"), "n") },
		Change{Path: filepath.Join(root, "a", "new.md"), Kind: Created})
	m := e.c.mark()
	testtree.Write(t, filepath.Join(root, "b", "src", "lib", "doc.md"), "d")
	e.c.waitUntil(t, "the file in a quiet directory reported", func() bool {
		return len(e.c.log) > m && e.c.equalsDisk(walkDisk(t, e.opts.Roots, nil))
	})
	watchertest.WaitFor(t, "b/src/lib and the folders above it watched", func() bool {
		return slices.Contains(e.w.Watched(), filepath.Join(root, "b", "src", "lib")) &&
			slices.Contains(e.w.Watched(), filepath.Join(root, "b"))
	})
	if slices.Contains(e.watched(), filepath.Join(root, "b", "src", "lib")) != true {
		t.Errorf("the kernel does not watch b/src/lib: %q", e.watched())
	}
}

// A file a client names in a quiet directory is reported and wakes the
// directory: later files there come through the kernel, not a rescan.
func TestSparseNotifyWakesQuietDirectory(t *testing.T) {
	t.Parallel()
	root := sparseTree(t)
	e := start(t, Options{Roots: []string{root}, Sparse: true, PollInterval: time.Hour})
	src := filepath.Join(root, "b", "src")
	if slices.Contains(e.watched(), src) {
		t.Fatalf("b/src is watched before any markdown is in it: %q", e.watched())
	}
	first := filepath.Join(src, "first.md")
	e.expect(t, func() {
		testtree.Write(t, first, "1")
		e.w.Notify(first)
	}, Change{Path: first, Kind: Created})
	if !slices.Contains(e.watched(), src) {
		t.Fatalf("b/src not watched after a markdown file turned up in it: %q", e.watched())
	}
	second := filepath.Join(src, "second.md")
	e.expect(t, func() { testtree.Write(t, second, "2") }, Change{Path: second, Kind: Created})
}

// The watch limit counts the directories that matter only: a tree with
// more directories than the limit, but few that hold markdown, is watched
// through the kernel whole; past the limit the rest is polled, with the
// warning.
func TestSparseWatchLimit(t *testing.T) {
	t.Parallel()
	root := sparseTree(t)
	limits := new(watchertest.Recorder[string])
	e := start(t, Options{Roots: []string{root}, Sparse: true, MaxWatches: 4, PollInterval: 20 * time.Millisecond, OnLimit: limits.Add})
	if got := limits.All(); len(got) != 0 {
		t.Fatalf("limit reached with 4 directories that matter of 7: %q", got)
	}
	if n := len(e.watched()); n != 4 {
		t.Fatalf("%d watches, want 4", n)
	}
	m := e.c.mark()
	testtree.Write(t, filepath.Join(root, "b", "doc.md"), "d") // b wakes: one watch too many
	e.c.waitUntil(t, "the file in b reported", func() bool {
		return len(e.c.log) > m && e.c.equalsDisk(walkDisk(t, e.opts.Roots, nil))
	})
	requireLimitWarned(t, e, limits, "watch limit reached: 4 directories watched")
	testtree.Write(t, filepath.Join(root, "b", "more.md"), "m") // b is polled now
	e.waitDisk(t)
}
