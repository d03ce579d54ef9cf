package watcher

import (
	"flag"
	"fmt"
	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/watcher/watchertest"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var stormSeed = flag.Uint64("storm.seed", 0, "run the randomized storm with this seed too")

// TestStorm applies several hundred random file-system operations, some in
// bursts and some with pauses that split them across batches, and checks
// that a consumer applying every batch ends up with what a fresh scan of the
// disk finds (and that every change was consistent when it was delivered).
func TestStorm(t *testing.T) {
	t.Parallel()
	seeds := []uint64{1, 2, 3}
	if *stormSeed != 0 {
		seeds = append(seeds, *stormSeed)
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			s := newStorm(t, root, seed)
			s.populate(40)
			e := start(t, Options{Roots: []string{root}, Debounce: stormDebounce})
			s.run(400, e.w)
			e.settle(t)
			// Every directory must still be watched under its current name:
			// a new file in each is reported without any poll or rescan.
			s.probe()
			e.settle(t)
			if got, want := len(e.w.Files()), len(walkDisk(t, []string{root}, nil).files); got != want {
				t.Errorf("Files() has %d files, disk %d", got, want)
			}
			t.Logf("seed %d: %d batches, %d changes", seed, len(e.c.batches), len(e.c.log))
		})
	}
}

// TestStormWithWatchLimit is the storm with too few watches: most
// directories are polled, new ones come and go between polls.
func TestStormWithWatchLimit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := newStorm(t, root, 7)
	s.rescans = true
	s.populate(40)
	e := start(t, Options{Roots: []string{root}, MaxWatches: 4, PollInterval: 2 * stormDebounce, Debounce: stormDebounce})
	s.run(300, e.w)
	e.waitDisk(t)
	s.probe()
	e.waitDisk(t)
}

// stormDebounce is the debounce of the storms' watchers. The pauses of a
// storm last up to 2.4 times as long: as with the default timings, some
// outlast the quiet time that ends a small batch, none the five times
// longer one that ends a burst.
const stormDebounce = 20 * time.Millisecond

type storm struct {
	t    *testing.T
	root string
	rng  *rand.Rand
	n    int
	// rescans mixes Rescan calls into the operations. Off where a rescan
	// would repair (and so hide) a missed event.
	rescans bool
}

func newStorm(t *testing.T, root string, seed uint64) *storm {
	return &storm{t: t, root: root, rng: rand.New(rand.NewPCG(seed, seed*7919+1))}
}

func (s *storm) name(prefix, ext string) string {
	s.n++
	return fmt.Sprintf("%s%d%s", prefix, s.n, ext)
}

// probe writes a new file in every directory on disk, which a watcher
// that still watches each of them reports.
func (s *storm) probe() {
	dirs, _ := s.scan()
	for _, d := range dirs {
		testtree.Write(s.t, filepath.Join(d, "probe.md"), "probe")
	}
}

// scan lists the directories (root included, ignored ones left out) and
// regular files currently on disk.
func (s *storm) scan() (dirs, files []string) {
	filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != s.root && defaultIgnoreDir(p) {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
		} else if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	return dirs, files
}

func (s *storm) pick(list []string) string { return list[s.rng.IntN(len(list))] }

func (s *storm) content() string {
	return strings.Repeat("x", s.rng.IntN(200))
}

func (s *storm) fileName() string {
	if s.rng.IntN(10) == 0 {
		return s.name("f", ".txt")
	}
	return s.name("f", ".md")
}

func (s *storm) populate(n int) {
	for range n / 5 {
		dirs, _ := s.scan()
		mkdirAll(s.t, filepath.Join(s.pick(dirs), s.name("d", "")))
	}
	for range n {
		dirs, _ := s.scan()
		testtree.Write(s.t, filepath.Join(s.pick(dirs), s.fileName()), s.content())
	}
	testtree.Write(s.t, filepath.Join(s.root, ".git", "HEAD"), "ref")
}

// run performs n operations. Errors from operations that race with nothing
// (everything is sequential here) fail the test.
func (s *storm) run(n int, w *Watcher) {
	t := s.t
	for range n {
		dirs, files := s.scan()
		sub := dirs[1:] // never the root itself
		switch op := s.rng.IntN(100); {
		case op < 20: // create a file
			testtree.Write(t, filepath.Join(s.pick(dirs), s.fileName()), s.content())
		case op < 34 && len(files) > 0: // modify, sometimes to the same size
			p := s.pick(files)
			c := s.content()
			if s.rng.IntN(3) == 0 {
				if old, err := os.ReadFile(p); err == nil {
					c = strings.Repeat("y", len(old))
				}
			}
			testtree.Write(t, p, c)
		case op < 42 && len(files) > 0: // delete
			removeAll(t, s.pick(files))
		case op < 50 && len(files) > 0: // rename, maybe over another file
			from := s.pick(files)
			to := filepath.Join(s.pick(dirs), s.fileName())
			if s.rng.IntN(3) == 0 {
				to = s.pick(files)
			}
			if from != to {
				rename(t, from, to)
			}
		case op < 60 && len(files) > 0: // atomic save
			target := s.pick(files)
			tmp := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".swp")
			if s.rng.IntN(2) == 0 {
				tmp = filepath.Join(filepath.Dir(target), s.name("tmp", ".md"))
			}
			atomicSave(t, tmp, target, s.content())
		case op < 76: // mkdir -p, with files inside
			p := s.pick(dirs)
			for range 1 + s.rng.IntN(3) {
				p = filepath.Join(p, s.name("d", ""))
			}
			mkdirAll(t, p)
			for range s.rng.IntN(4) {
				testtree.Write(t, filepath.Join(p, s.fileName()), s.content())
			}
		case op < 79 && len(sub) > 0: // remove a directory tree
			removeAll(t, s.pick(sub))
		case op < 94 && len(sub) > 0: // move a directory tree
			from := s.pick(sub)
			var targets []string
			for _, d := range dirs {
				if !within(d, from) {
					targets = append(targets, d)
				}
			}
			rename(t, from, filepath.Join(s.pick(targets), s.name("m", "")))
		case op < 97: // noise in ignored directories
			testtree.Write(t, filepath.Join(s.root, ".git", "objects", s.name("o", ".md")), s.content())
			testtree.Write(t, filepath.Join(s.pick(dirs), "node_modules", s.name("n", ".md")), s.content())
		case op < 98 && w != nil && s.rescans: // a rescan in the middle of it all
			w.Rescan()
		default: // a client notification for a random path
			if w != nil && len(files) > 0 {
				w.Notify(s.pick(files), filepath.Join(s.pick(dirs), "not-there.md"))
			}
		}
		// Mostly bursts; now and then a pause (see stormDebounce).
		if s.rng.IntN(25) == 0 {
			time.Sleep(time.Duration(s.rng.IntN(int(stormDebounce*12/5/time.Millisecond))) * time.Millisecond)
		}
	}
}

// TestBurstIsOneBatch: a burst of writes such as a checkout, even one that
// creates directories (whose files raise no event until the directory is
// watched), comes out as one batch with the default timings. The watcher
// runs on a manual clock that stands still during the burst, so the count
// of batches does not depend on how fast the machine writes.
func TestBurstIsOneBatch(t *testing.T) {
	t.Parallel()
	const dirs, perDir = 20, 20
	tree := func(root string) (paths []string) {
		for d := range dirs {
			for f := range perDir {
				paths = append(paths, filepath.Join(root, "co", fmt.Sprintf("d%02d", d), fmt.Sprintf("t%02d.md", f)))
			}
		}
		return paths
	}
	tests := []struct {
		name     string
		existing bool // the files exist before the burst
		burst    func(t *testing.T, paths []string)
		kind     ChangeKind
	}{
		{"directories first, then files", false, func(t *testing.T, paths []string) {
			for i := 0; i < len(paths); i += perDir {
				mkdirAll(t, filepath.Dir(paths[i]))
			}
			for _, p := range paths {
				testtree.Write(t, p, "new")
			}
		}, Created},
		{"directory by directory", false, func(t *testing.T, paths []string) {
			for _, p := range paths {
				testtree.Write(t, p, "new") // creates the directory with its first file
			}
		}, Created},
		{"rewrite", true, func(t *testing.T, paths []string) {
			for _, p := range paths {
				testtree.Write(t, p, "changed")
			}
		}, Modified},
		{"remove and create again", true, func(t *testing.T, paths []string) {
			for _, p := range paths {
				removeAll(t, p)
				testtree.Write(t, p, "checked out")
			}
		}, Modified},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			paths := tree(root)
			if tc.existing {
				for _, p := range paths {
					testtree.Write(t, p, "old")
				}
			}
			clk := watchertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			e := start(t, Options{Roots: []string{root}, Debounce: DefaultDebounce, Clock: clk})
			m := e.c.mark()
			tc.burst(t, paths)
			e.endBurst(t, clk, root, "every file reported", func() bool {
				n := 0
				for _, c := range e.c.log[m:] {
					if c.Kind == tc.kind && !c.IsDir {
						n++
					}
				}
				return n >= len(paths)
			})
			e.c.mu.Lock()
			n := len(e.c.batches)
			e.c.mu.Unlock()
			if n != 1 {
				t.Errorf("the burst came out in %d batches, want 1", n)
			}
			e.requireDisk(t)
		})
	}
}
