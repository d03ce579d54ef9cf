package watcher

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ctxls/ctxls/internal/testtree"
)

func created(p string) Change    { return Change{Path: p, Kind: Created} }
func modified(p string) Change   { return Change{Path: p, Kind: Modified} }
func removed(p string) Change    { return Change{Path: p, Kind: Removed} }
func createdDir(p string) Change { return Change{Path: p, Kind: Created, IsDir: true} }
func removedDir(p string) Change { return Change{Path: p, Kind: Removed, IsDir: true} }
func rootEnv(t *testing.T) (string, *env) {
	t.Helper()
	root := t.TempDir()
	return root, start(t, Options{Roots: []string{root}})
}

func TestInitialScan(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, p := range []string{
		"index.md", "notes.txt", "python/a.md", "python/deep/b.md",
		".git/objects/x.md", "node_modules/pkg/readme.md", ".ctxls/cache.md", ".hidden/c.md",
		"python/node_modules/d.md",
	} {
		testtree.Write(t, filepath.Join(root, p), p)
	}
	e := start(t, Options{Roots: []string{root}})

	wantFiles := []string{
		filepath.Join(root, "index.md"),
		filepath.Join(root, "python/a.md"),
		filepath.Join(root, "python/deep/b.md"),
	}
	if got := e.w.Files(); !slices.Equal(got, wantFiles) {
		t.Errorf("Files() = %q, want %q", got, wantFiles)
	}
	wantWatched := []string{root, filepath.Join(root, "python"), filepath.Join(root, "python/deep")}
	if got := e.watched(); !slices.Equal(got, wantWatched) {
		t.Errorf("watched %q, want %q", got, wantWatched)
	}
}

func TestCreateModifyDelete(t *testing.T) {
	t.Parallel()
	root, e := rootEnv(t)
	a := filepath.Join(root, "a.md")

	e.expect(t, func() {
		testtree.Write(t, a, "one")
		testtree.Write(t, filepath.Join(root, "other.txt"), "not markdown")
	}, created(a))

	requireChanges(t, dedupe(e.changes(t, func() { testtree.Write(t, a, "two, longer") })), modified(a))

	// Same size, written again: still a change, since an event named it.
	requireChanges(t, dedupe(e.changes(t, func() { testtree.Write(t, a, "two, LONGER") })), modified(a))

	e.expect(t, func() {
		if err := os.Remove(a); err != nil {
			t.Fatal(err)
		}
	}, removed(a))
}

// dedupe folds repeated Modified changes of one path, which a plain
// write can produce when its truncate and write events straddle two batches.
func dedupe(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		if c.Kind == Modified && slices.Contains(out, c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func TestCreateAndDeleteWithinOneWindowReportsNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := start(t, Options{Roots: []string{root}, Debounce: 200 * time.Millisecond})
	p := filepath.Join(root, "flash.md")
	got := e.changes(t, func() {
		testtree.Write(t, p, "x")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	})
	// The two operations are microseconds apart; were they split into two
	// batches the result would be created+removed, never anything else.
	if len(got) != 0 && !(len(got) == 2 && got[0].Kind == Created && got[1].Kind == Removed) {
		t.Fatalf("changes:\n%s", formatChanges(got))
	}
}

func TestAtomicSave(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tmp string
	}{
		{"tmp not markdown", ".a.md.swp"},
		{"tmp markdown", "a.md.tmp.md"},
		{"tmp in ignored dir", ".cache/a.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			a := filepath.Join(root, "a.md")
			testtree.Write(t, a, "old")
			mkdirAll(t, filepath.Join(root, ".cache"))
			e := start(t, Options{Roots: []string{root}})

			var forA []Change
			for _, c := range e.changes(t, func() { atomicSave(t, filepath.Join(root, tt.tmp), a, "new content") }) {
				if c.Path == a {
					forA = append(forA, c)
				} else if !strings.HasSuffix(tt.tmp, ".md") || strings.HasPrefix(tt.tmp, ".") {
					t.Errorf("unexpected %v", c)
				}
			}
			requireChanges(t, forA, modified(a))
			if data, _ := os.ReadFile(a); string(data) != "new content" {
				t.Fatalf("a.md = %q", data)
			}
		})
	}
}

func TestRenameInPlace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a, b := filepath.Join(root, "a.md"), filepath.Join(root, "b.md")
	testtree.Write(t, a, "a")
	e := start(t, Options{Roots: []string{root}})
	e.expect(t, func() { rename(t, a, b) }, removed(a), created(b))
}

func TestMkdirPWithFile(t *testing.T) {
	t.Parallel()
	root, e := rootEnv(t)
	c := filepath.Join(root, "a", "b", "c")
	e.expect(t, func() {
		mkdirAll(t, c)
		testtree.Write(t, filepath.Join(c, "f.md"), "f")
		testtree.Write(t, filepath.Join(root, "a", "g.md"), "g")
	},
		createdDir(filepath.Join(root, "a")),
		createdDir(filepath.Join(root, "a", "b")),
		createdDir(c),
		created(filepath.Join(c, "f.md")),
		created(filepath.Join(root, "a", "g.md")),
	)
	// The new directories are watched: a change deep inside is seen.
	e.expect(t, func() { testtree.Write(t, filepath.Join(c, "h.md"), "h") }, created(filepath.Join(c, "h.md")))
}

func TestDirectoryRename(t *testing.T) {
	t.Parallel()
	// "zz" → "aa" renames to a name that sorts first; "dom" → "dom2" to one
	// that sorts after.
	for _, names := range [][2]string{{"dom", "dom2"}, {"zz", "aa"}} {
		t.Run(names[0]+"-"+names[1], func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			from, to := filepath.Join(root, names[0]), filepath.Join(root, names[1])
			testtree.Write(t, filepath.Join(from, "x.md"), "x")
			testtree.Write(t, filepath.Join(from, "sub", "y.md"), "y")
			e := start(t, Options{Roots: []string{root}})

			e.expect(t, func() { rename(t, from, to) },
				removedDir(from), removed(filepath.Join(from, "x.md")),
				removedDir(filepath.Join(from, "sub")), removed(filepath.Join(from, "sub", "y.md")),
				createdDir(to), created(filepath.Join(to, "x.md")),
				createdDir(filepath.Join(to, "sub")), created(filepath.Join(to, "sub", "y.md")),
			)

			// Changes inside the moved tree, at every depth, are still seen,
			// under the new names.
			e.expect(t, func() {
				testtree.Write(t, filepath.Join(to, "sub", "z.md"), "z")
				atomicSave(t, filepath.Join(to, "sub", ".y.tmp"), filepath.Join(to, "sub", "y.md"), "y2")
				testtree.Write(t, filepath.Join(to, "w.md"), "w")
			},
				created(filepath.Join(to, "sub", "z.md")),
				modified(filepath.Join(to, "sub", "y.md")),
				created(filepath.Join(to, "w.md")),
			)
			for _, p := range e.watched() {
				if within(p, from) {
					t.Errorf("stale watch on %s", p)
				}
			}

			// Away and back within one window: same directory as before, but
			// its watch was dropped on the way; it must still be watched.
			rename(t, to, from)
			rename(t, from, to)
			e.settle(t)
			e.expect(t, func() {
				testtree.Write(t, filepath.Join(to, "after.md"), "a")
				testtree.Write(t, filepath.Join(to, "sub", "after.md"), "a")
			},
				created(filepath.Join(to, "after.md")),
				created(filepath.Join(to, "sub", "after.md")),
			)
		})
	}
}

func TestDirectoryMovedIntoAndOutOfIgnored(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d := filepath.Join(root, "d")
	testtree.Write(t, filepath.Join(d, "sub", "x.md"), "x")
	mkdirAll(t, filepath.Join(root, ".trash"))
	e := start(t, Options{Roots: []string{root}})

	e.expect(t, func() { rename(t, d, filepath.Join(root, ".trash", "d")) },
		removedDir(d), removedDir(filepath.Join(d, "sub")), removed(filepath.Join(d, "sub", "x.md")))
	// No watch is left behind inside the ignored directory.
	for _, p := range e.watched() {
		if strings.Contains(p, ".trash") {
			t.Errorf("watching %s", p)
		}
	}
	e.expect(t, func() {
		testtree.Write(t, filepath.Join(root, ".trash", "d", "sub", "ignored.md"), "i")
		rename(t, filepath.Join(root, ".trash", "d"), d)
	},
		createdDir(d), createdDir(filepath.Join(d, "sub")),
		created(filepath.Join(d, "sub", "x.md")), created(filepath.Join(d, "sub", "ignored.md")))
}

func TestDirectoryDelete(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d := filepath.Join(root, "dom")
	testtree.Write(t, filepath.Join(d, "a.md"), "a")
	testtree.Write(t, filepath.Join(d, "b.txt"), "b")
	testtree.Write(t, filepath.Join(d, "sub", "c.md"), "c")
	testtree.Write(t, filepath.Join(root, "keep.md"), "k")
	e := start(t, Options{Roots: []string{root}})

	e.expect(t, func() { removeAll(t, d) },
		removedDir(d), removed(filepath.Join(d, "a.md")),
		removedDir(filepath.Join(d, "sub")), removed(filepath.Join(d, "sub", "c.md")))
	if got := e.watched(); !slices.Equal(got, []string{root}) {
		t.Errorf("watched %q", got)
	}
}

func TestIgnoredDirectoriesNeverWatched(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testtree.Write(t, filepath.Join(root, ".git", "HEAD.md"), "x")
	testtree.Write(t, filepath.Join(root, "node_modules", "p", "r.md"), "x")
	e := start(t, Options{Roots: []string{root}})

	e.expect(t, func() {
		testtree.Write(t, filepath.Join(root, ".git", "refs", "heads", "main.md"), "x")
		testtree.Write(t, filepath.Join(root, "node_modules", "p", "r.md"), "changed")
		testtree.Write(t, filepath.Join(root, "dom", "node_modules", "q", "s.md"), "x")
		testtree.Write(t, filepath.Join(root, "dom", ".ctxls", "db.md"), "x")
		testtree.Write(t, filepath.Join(root, ".vscode", "settings.md"), "x")
	}, createdDir(filepath.Join(root, "dom")))
	want := []string{root, filepath.Join(root, "dom")}
	if got := e.watched(); !slices.Equal(got, want) {
		t.Errorf("watched %q, want %q", got, want)
	}
	if got := e.w.Watched(); !slices.Equal(got, want) {
		t.Errorf("Watched() = %q, want %q", got, want)
	}
	// A notification for a path in an ignored directory is ignored too.
	e.expect(t, func() {
		e.w.Notify(filepath.Join(root, ".git", "HEAD.md"), filepath.Join(root, "node_modules", "p", "r.md"))
	})
}

func TestCustomMatchAndIgnore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := start(t, Options{
		Roots:     []string{root},
		Match:     func(p string) bool { return strings.HasSuffix(p, ".txt") },
		IgnoreDir: func(p string) bool { return filepath.Base(p) == "skip" },
	})
	m := e.c.mark()
	testtree.Write(t, filepath.Join(root, "a.txt"), "a")
	testtree.Write(t, filepath.Join(root, "b.md"), "b")
	testtree.Write(t, filepath.Join(root, "skip", "c.txt"), "c")
	testtree.Write(t, filepath.Join(root, ".dot", "d.txt"), "d")
	p := filepath.Join(root, "end.txt")
	testtree.Write(t, p, "end")
	e.c.waitUntil(t, "end.txt", func() bool { return e.c.files[p] })
	requireChanges(t, e.c.since(m),
		created(filepath.Join(root, "a.txt")),
		createdDir(filepath.Join(root, ".dot")), created(filepath.Join(root, ".dot", "d.txt")),
		created(p))
}

func TestNotify(t *testing.T) {
	t.Parallel()
	t.Run("after the watcher reported it", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		a := filepath.Join(root, "a.md")
		testtree.Write(t, a, "a")
		e := start(t, Options{Roots: []string{root}})
		m := e.c.mark()
		atomicSave(t, filepath.Join(root, "a.tmp"), a, "a2")
		e.c.waitUntil(t, "a.md modified", func() bool { return len(e.c.log) > m })
		e.w.Notify(a)
		e.settle(t)
		requireChanges(t, e.c.since(m), modified(a))
	})
	t.Run("within the same window", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		a := filepath.Join(root, "a.md")
		testtree.Write(t, a, "a")
		e := start(t, Options{Roots: []string{root}})
		e.expect(t, func() {
			atomicSave(t, filepath.Join(root, "a.tmp"), a, "a2")
			e.w.Notify(a)
		}, modified(a))
	})
	t.Run("what the watcher cannot see", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		sub := filepath.Join(root, "sub")
		a := filepath.Join(sub, "a.md")
		testtree.Write(t, a, "a")
		// Only the root gets a watch; sub is polled, but not within the test.
		e := start(t, Options{Roots: []string{root}, MaxWatches: 1, PollInterval: time.Hour})
		m := e.c.mark()
		testtree.Write(t, a, "a changed")
		b := filepath.Join(sub, "new", "b.md")
		testtree.Write(t, b, "b")
		e.w.Notify(a, b)
		e.c.waitUntil(t, "notified changes", func() bool { return len(e.c.log) >= m+3 })
		requireChanges(t, e.c.since(m), modified(a), createdDir(filepath.Dir(b)), created(b))
	})
	t.Run("outside the roots", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		outside := filepath.Join(t.TempDir(), "o.md")
		testtree.Write(t, outside, "o")
		e := start(t, Options{Roots: []string{root}})
		e.expect(t, func() { e.w.Notify(outside, "relative.md", root+"-sibling/x.md") })
	})
}

func TestWatchLimitFallback(t *testing.T) {
	t.Parallel()
	root, e, limits := startAtLimit(t, Options{MaxWatches: 2, PollInterval: 30 * time.Millisecond}, 2)
	if got := e.w.Watched(); !slices.Equal(got, e.watched()) {
		t.Errorf("Watched() = %q, want %q", got, e.watched())
	}
	if got := e.w.Files(); len(got) != 4 {
		t.Fatalf("Files() = %q", got)
	}

	exerciseFallback(t, e, root)
	requireLimitWarned(t, e, limits, "watch limit reached: 2 directories watched", "fs.inotify.max_user_watches")
	if n := len(e.watched()); n > 2 {
		t.Errorf("%d watches over the cap of 2", n)
	}
}

// exerciseFallback changes directories that are partly polled and checks
// each change is reported and the consumer then equals the disk. It expects
// directories a, b, c and c/d below root, each holding f.md.
func exerciseFallback(t *testing.T, e *env, root string) {
	t.Helper()
	ops := []func(){
		func() { testtree.Write(t, filepath.Join(root, "c", "d", "f.md"), "changed") },
		func() { testtree.Write(t, filepath.Join(root, "c", "g.md"), "new") },
		func() { removeAll(t, filepath.Join(root, "b", "f.md")) },
		func() { testtree.Write(t, filepath.Join(root, "c", "n1", "n2", "h.md"), "deep") },
		func() { rename(t, filepath.Join(root, "c", "d"), filepath.Join(root, "a", "moved")) },
		func() { testtree.Write(t, filepath.Join(root, "new", "i.md"), "i") },
		func() { removeAll(t, filepath.Join(root, "c")) },
	}
	for i, op := range ops {
		m := e.c.mark()
		op()
		e.c.waitUntil(t, fmt.Sprintf("op %d reported and consumer equal to disk", i), func() bool {
			return len(e.c.log) > m && e.c.equalsDisk(walkDisk(t, e.opts.Roots, nil))
		})
	}
}

func TestRescan(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	testtree.Write(t, filepath.Join(sub, "a.md"), "a")
	e := start(t, Options{Roots: []string{root}, MaxWatches: 1, PollInterval: time.Hour})

	// sub is polled (hourly): only a rescan finds these.
	m := e.c.mark()
	testtree.Write(t, filepath.Join(sub, "a.md"), "a changed")
	testtree.Write(t, filepath.Join(sub, "b.md"), "b")
	e.w.Rescan()
	e.c.waitUntil(t, "rescan batch", func() bool { return len(e.c.batches) > 0 && e.c.batches[len(e.c.batches)-1].Rescan })
	requireChanges(t, e.c.since(m), modified(filepath.Join(sub, "a.md")), created(filepath.Join(sub, "b.md")))
	e.requireDisk(t)

	// An event-queue overflow reported by fsnotify leads to the same.
	m = e.c.mark()
	n := len(e.c.batches)
	removeAll(t, filepath.Join(sub, "a.md"))
	e.w.handleError(fsnotify.ErrEventOverflow)
	e.c.waitUntil(t, "overflow rescan", func() bool { return len(e.c.batches) > n && e.c.batches[len(e.c.batches)-1].Rescan })
	requireChanges(t, e.c.since(m), removed(filepath.Join(sub, "a.md")))
	if e.logs.count(slog.LevelWarn, "overflow") != 1 {
		t.Errorf("overflow not logged:\n%s", e.logs)
	}
}

func TestExtraFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	ctx := filepath.Join(ws, "context")
	mkdirAll(t, ctx)
	cfg := filepath.Join(ws, ".ctxls.yaml")
	e := start(t, Options{Roots: []string{ctx}, Files: []string{cfg}})

	e.expect(t, func() {
		testtree.Write(t, cfg, "tokenizer: estimate\n")
		testtree.Write(t, filepath.Join(ws, "README.md"), "outside the roots")
	}, created(cfg))

	e.expect(t, func() { atomicSave(t, filepath.Join(ws, ".ctxls.yaml.tmp"), cfg, "tokenizer: o200k_base\n") }, modified(cfg))

	e.expect(t, func() {
		if err := os.Remove(cfg); err != nil {
			t.Fatal(err)
		}
	}, removed(cfg))
	for _, f := range e.w.Files() {
		if !strings.Contains(f, "zz-barrier") {
			t.Errorf("Files() has %s", f)
		}
	}
}

func TestExtraFileInsideRoot(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	cfg := filepath.Join(ws, ".ctxls.yaml")
	testtree.Write(t, cfg, "a: 1\n")
	e := start(t, Options{Roots: []string{ws}, Files: []string{cfg}})
	requireChanges(t, dedupe(e.changes(t, func() { testtree.Write(t, cfg, "a: 2\n") })), modified(cfg))
	if got := e.watched(); !slices.Equal(got, []string{ws}) {
		t.Errorf("watched %q", got)
	}
}

func TestRootRemovedAndRecreated(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	root := filepath.Join(parent, "context")
	testtree.Write(t, filepath.Join(root, "d", "a.md"), "a")
	e := start(t, Options{Roots: []string{root}, PollInterval: 30 * time.Millisecond})

	m := e.c.mark()
	removeAll(t, root)
	e.waitDisk(t)
	requireChanges(t, e.c.since(m),
		removedDir(root), removedDir(filepath.Join(root, "d")), removed(filepath.Join(root, "d", "a.md")))

	m = e.c.mark()
	testtree.Write(t, filepath.Join(root, "d", "b.md"), "b")
	e.waitDisk(t)
	requireChanges(t, e.c.since(m),
		createdDir(root), createdDir(filepath.Join(root, "d")), created(filepath.Join(root, "d", "b.md")))
	// Watched again.
	e.settle(t)
}

func TestMissingRootAtStart(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "later")
	e := start(t, Options{Roots: []string{root}, PollInterval: 30 * time.Millisecond})
	if got := e.w.Files(); len(got) != 0 {
		t.Fatalf("Files() = %q", got)
	}
	testtree.Write(t, filepath.Join(root, "a.md"), "a")
	e.waitDisk(t)
	e.settle(t)
}

func TestNestedRoots(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	inner := filepath.Join(ws, ".hidden", "context")
	testtree.Write(t, filepath.Join(inner, "a.md"), "a")
	testtree.Write(t, filepath.Join(ws, "b.md"), "b")
	e := start(t, Options{Roots: []string{ws, inner}})
	want := []string{filepath.Join(inner, "a.md"), filepath.Join(ws, "b.md")}
	if got := e.w.Files(); !slices.Equal(got, want) {
		t.Fatalf("Files() = %q, want %q", got, want)
	}
	m := e.c.mark()
	testtree.Write(t, filepath.Join(inner, "c.md"), "c")
	e.c.barrier(t, inner)
	e.settle(t)
	requireChanges(t, e.c.since(m), created(filepath.Join(inner, "c.md")))
}

func TestMaxWaitFlushesEndlessStream(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := start(t, Options{Roots: []string{root}, Debounce: 200 * time.Millisecond, MaxWait: 400 * time.Millisecond})
	p := filepath.Join(root, "busy.md")
	// Write every 20ms (well under the debounce) until a batch arrives.
	e.stepUntil(t, "a batch while events kept coming", 20*time.Millisecond,
		func(i int) { testtree.Write(t, p, strings.Repeat("x", i)) },
		func() bool { return len(e.c.batches) > 0 })
}

func TestClose(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w, _ := newWatcher(t, Options{Roots: []string{root}, Debounce: time.Millisecond})
	// A batch nobody receives must not keep Close waiting.
	testtree.Write(t, filepath.Join(root, "a.md"), "a")
	deadline := time.Now().Add(waitTimeout)
	for len(w.Files()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, ok := <-w.Batches(); ok {
		t.Error("Batches not closed")
	}
	w.Notify(filepath.Join(root, "a.md"))
	w.Rescan()
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{}); err == nil {
		t.Error("New with nothing to watch succeeded")
	}
}

func TestSymlinks(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (root, outside string) {
		root = t.TempDir()
		outside = t.TempDir()
		testtree.Write(t, filepath.Join(root, "dom", "a.md"), "a")
		testtree.Write(t, filepath.Join(outside, "o.md"), "o")
		for link, target := range map[string]string{
			"dom/loop":  root,    // a loop back to the root
			"dom/self":  ".",     // a loop to itself
			"ext":       outside, // a directory outside the root
			"file.md":   filepath.Join(outside, "o.md"),
			"dangling":  filepath.Join(outside, "nope"),
			"dom/chain": "chain", // a link to itself
		} {
			if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
		}
		return root, outside
	}
	t.Run("not followed", func(t *testing.T) {
		t.Parallel()
		root, _ := setup(t)
		e := start(t, Options{Roots: []string{root}})
		want := []string{filepath.Join(root, "dom", "a.md"), filepath.Join(root, "file.md")}
		if got := e.w.Files(); !slices.Equal(got, want) {
			t.Fatalf("Files() = %q, want %q", got, want)
		}
		e.settle(t)
	})
	t.Run("followed", func(t *testing.T) {
		t.Parallel()
		root, outside := setup(t)
		w, logs := newWatcher(t, Options{Roots: []string{root}, FollowSymlinks: true})
		defer w.Close()
		want := []string{filepath.Join(root, "dom", "a.md"), filepath.Join(root, "ext", "o.md"), filepath.Join(root, "file.md")}
		if got := w.Files(); !slices.Equal(got, want) {
			t.Fatalf("Files() = %q, want %q", got, want)
		}
		if logs.count(slog.LevelWarn, "reached twice") < 2 {
			t.Errorf("loops not reported:\n%s", logs)
		}
		// Changes in the linked directory are seen under the link's path.
		testtree.Write(t, filepath.Join(outside, "p.md"), "p")
		p := filepath.Join(root, "ext", "p.md")
		timeout := time.After(waitTimeout)
		for seen := false; !seen; {
			select {
			case b := <-w.Batches():
				seen = slices.Contains(b.Changes, created(p))
			case <-timeout:
				t.Fatalf("%s not reported", p)
			}
		}
	})
}

func TestChangeKindString(t *testing.T) {
	t.Parallel()
	for k, want := range map[ChangeKind]string{Created: "created", Modified: "modified", Removed: "removed", 9: "ChangeKind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{"/w/.git": true, "/w/node_modules": true, "/w/.ctxls": true, "/w/.x": true, "/w/python": false, "/w/git": false} {
		if got := defaultIgnoreDir(p); got != want {
			t.Errorf("defaultIgnoreDir(%q) = %v", p, got)
		}
	}
	for p, want := range map[string]bool{"/w/a.md": true, "/w/a.mdx": false, "/w/a.txt": false} {
		if got := defaultMatch(p); got != want {
			t.Errorf("defaultMatch(%q) = %v", p, got)
		}
	}
}

// TestIrrelevantWritesDoNotDelay: a file that does not match, written in a
// loop (a build log), must not keep the debounce from ending.
func TestIrrelevantWritesDoNotDelay(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := start(t, Options{Roots: []string{root}, Debounce: 500 * time.Millisecond, MaxWait: time.Hour})
	log := filepath.Join(root, "build.log")
	testtree.Write(t, log, "start")
	p := filepath.Join(root, "topic.md")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Append every 5ms (far under the debounce) until the markdown change
	// comes out; with MaxWait an hour only the debounce can end it.
	e.stepUntil(t, "the change to a markdown file while another file was being written", 5*time.Millisecond,
		func(i int) {
			if _, err := f.WriteString("line\n"); err != nil {
				t.Fatal(err)
			}
			if i == 5 {
				testtree.Write(t, p, "# Topic\n")
			}
		},
		func() bool { return slices.ContainsFunc(e.c.log, func(c Change) bool { return c.Path == p }) })
}
