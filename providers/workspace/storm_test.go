package workspace

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// storm applies random file operations to the tree at dir.
type storm struct {
	t   *testing.T
	dir string
	rnd *rand.Rand
	n   int // names handed out
}

func (s *storm) ctx(rel ...string) string {
	return filepath.Join(append([]string{s.dir, "context"}, rel...)...)
}

// domains lists the current domain directories.
func (s *storm) domains() []string {
	ents, _ := os.ReadDir(s.ctx())
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// files lists the markdown files below the context root and the commands.
func (s *storm) files() []string {
	var out []string
	for _, root := range []string{s.ctx(), filepath.Join(s.dir, "commands")} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

func (s *storm) name(prefix string) string {
	s.n++
	return fmt.Sprintf("%s%d", prefix, s.n)
}

func pick[T any](r *rand.Rand, xs []T) (T, bool) {
	var zero T
	if len(xs) == 0 {
		return zero, false
	}
	return xs[r.IntN(len(xs))], true
}

// content returns a topic for domain/name referring to random topics, some
// of them missing.
func (s *storm) content(domain, name string) string {
	var refs []string
	for range s.rnd.IntN(4) {
		if f, ok := pick(s.rnd, s.files()); ok && strings.HasPrefix(f, s.ctx()+string(filepath.Separator)) {
			rel, _ := filepath.Rel(s.ctx(), f)
			parts := strings.SplitN(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", 2)
			if len(parts) == 2 {
				refs = append(refs, parts[0]+":"+parts[1])
			}
		}
		if s.rnd.IntN(4) == 0 {
			refs = append(refs, "nowhere:"+s.name("missing"))
		}
	}
	title := fmt.Sprintf("Topic %s %d", name, s.rnd.IntN(1000))
	txt := topicText(domain, name, title, refs...)
	for range s.rnd.IntN(3) {
		txt += fmt.Sprintf("\n## Section %d\n\n%s\n", s.rnd.IntN(100), strings.Repeat("word ", s.rnd.IntN(50)))
	}
	return txt
}

func (s *storm) write(p, content string) {
	testtree.Write(s.t, p, content)
}

// step performs one random operation.
func (s *storm) step() {
	r := s.rnd
	switch op := r.IntN(106); {
	case op < 20: // create a topic
		d, ok := pick(r, s.domains())
		if !ok || r.IntN(5) == 0 {
			d = s.name("dom")
		}
		n := s.name("t")
		s.write(s.ctx(d, n+".md"), s.content(d, n))
	case op < 40: // modify in place
		if f, ok := pick(r, s.files()); ok {
			s.write(f, s.content(filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".md")))
		}
	case op < 50: // atomic save: write a temporary file, rename it over
		if f, ok := pick(r, s.files()); ok {
			tmp := f + ".tmp" + fmt.Sprint(r.IntN(1000))
			s.write(tmp, s.content(filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".md")))
			if err := os.Rename(tmp, f); err != nil {
				s.t.Fatal(err)
			}
		}
	case op < 60: // delete a file
		if f, ok := pick(r, s.files()); ok {
			os.Remove(f)
		}
	case op < 68: // rename a file, maybe to another domain
		if f, ok := pick(r, s.files()); ok && strings.HasPrefix(f, s.ctx()) {
			d, _ := pick(r, s.domains())
			if d == "" {
				d = filepath.Base(filepath.Dir(f))
			}
			dst := s.ctx(d, s.name("mv")+".md")
			os.Rename(f, dst)
		}
	case op < 76: // mkdir -p a new domain with nested files
		d := s.name("dom")
		for i := range 1 + r.IntN(5) {
			sub := strings.Repeat(fmt.Sprintf("sub%d/", i%2), r.IntN(3))
			n := s.name("t")
			s.write(s.ctx(d, filepath.FromSlash(sub), n+".md"), s.content(d, n))
		}
	case op < 83: // rename a domain directory
		if d, ok := pick(r, s.domains()); ok {
			os.Rename(s.ctx(d), s.ctx(s.name("ren")))
		}
	case op < 88: // remove a domain directory
		if d, ok := pick(r, s.domains()); ok && len(s.domains()) > 2 {
			os.RemoveAll(s.ctx(d))
		}
	case op < 94: // a command
		n := s.name("cmd")
		ctx := ""
		if f, ok := pick(r, s.files()); ok {
			if rel, err := filepath.Rel(s.ctx(), f); err == nil && !strings.HasPrefix(rel, "..") {
				ctx = strings.Replace(strings.TrimSuffix(filepath.ToSlash(rel), ".md"), "/", ":", 1)
			}
		}
		s.write(filepath.Join(s.dir, "commands", n+".md"), fmt.Sprintf("---\ndescription: %s\ncontext: [%s]\n---\n\nUse `%s`.\n", n, ctx, ctx))
	case op < 97: // a file in an ignored directory
		s.write(filepath.Join(s.dir, "node_modules", s.name("m"), "context", "x.md"), "# X\n")
	case op < 100: // a non-markdown file
		s.write(s.ctx(s.name("notes")+".txt"), "text")
	case op < 103: // the configuration: ignore a domain or not
		cfg := fmt.Sprintf("tokenizer: o200k_base\ndriftThreshold: 0.%d\n", 1+r.IntN(9))
		if d, ok := pick(r, s.domains()); ok && r.IntN(2) == 0 {
			cfg += "ignore: [" + d + "]\n"
		}
		s.write(filepath.Join(s.dir, ".ctxls.yaml"), cfg)
	default: // a file becomes a directory of the same name, or back
		if f, ok := pick(r, s.files()); ok && strings.HasPrefix(f, s.ctx()) {
			os.Remove(f)
			n := s.name("t")
			s.write(filepath.Join(f, n+".md"), "# Inner\n")
		}
	}
}

func TestStorm(t *testing.T) {
	t.Parallel()
	seeds := []uint64{1, 2, 3}
	ops := 300
	if testing.Short() {
		seeds, ops = seeds[:1], 100
	}
	type run struct {
		seed       uint64
		maxWatches int // above zero: most directories are polled
	}
	var runs []run
	for _, seed := range seeds {
		runs = append(runs, run{seed, 0})
	}
	runs = append(runs, run{seeds[0] + 100, 3})
	for _, rn := range runs {
		seed := rn.seed
		t.Run(fmt.Sprintf("seed%d-maxwatches%d", seed, rn.maxWatches), func(t *testing.T) {
			t.Parallel()
			dir := libtest.WriteTree(t, baseTree())
			rec := &recorder{}
			w := open(t, dir, rec, func(o *Options) {
				o.Debounce = 10 * time.Millisecond
				o.MaxWatches = rn.maxWatches
				o.PollInterval = 50 * time.Millisecond
			})
			s := &storm{t: t, dir: dir, rnd: rand.New(rand.NewPCG(seed, seed*7919))}
			for i := range ops {
				s.step()
				// Pauses now and then split the storm into several
				// batches, some of them mid-way through an operation.
				if i%25 == 0 {
					time.Sleep(time.Duration(s.rnd.IntN(40)) * time.Millisecond)
				}
				if s.rnd.IntN(10) == 0 {
					if f, ok := pick(s.rnd, s.files()); ok {
						w.NotifyWatched([]string{f, filepath.Dir(f)})
					}
				}
			}
			waitInSync(t, w)
			if len(rec.All()) == 0 {
				t.Error("no update was published")
			}
			// Updates are coalesced: far fewer than the operations.
			t.Logf("%d operations, %d updates, %d topics", ops, len(rec.All()), len(w.Snapshot().Library().Topics()))
			for _, u := range rec.All() {
				if !slices.IsSorted(u.Changed) {
					t.Errorf("Changed is not sorted: %v", u.Changed)
				}
			}
		})
	}
}

// TestCheckoutIsOnePass: a burst rewriting 1,000 topic files, as a git
// checkout does, is applied in one pass and published as one update, with
// the server's default debounce. That is thirty times the paths that make
// a burst of the watcher's, under the workspace's reload threshold, as a
// larger checkout is. The watcher runs on a manual clock that stands
// still during the burst, so the count of passes does not depend on how
// fast the machine writes. Both checkouts run on one tree, one after the
// other, since writing and removing the files is most of the test's
// time: git's from branch a to b, then plain writes back to a.
func TestCheckoutIsOnePass(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,000 files")
	}
	t.Parallel()
	dir := t.TempDir()
	type checkout struct {
		name string
		to   string // the variant it leaves on disk
		run  func()
	}
	var checkouts []checkout
	var paths []string
	if git, ok := gitIn(dir); ok {
		// Variant b on branch b, variant a on branch a, checked out.
		// fast-import writes them as one pack: adding and committing
		// them would write and later remove 10,000 loose objects.
		git(t, nil, "init", "-q", "-b", "a")
		git(t, benchCommits(checkoutDomains, checkoutTopics, "b", "a"), "fast-import", "--quiet")
		paths = benchTree(t, dir, checkoutDomains, checkoutTopics, "a")
		git(t, nil, "reset", "-q")
		checkouts = append(checkouts,
			checkout{"git checkout", "b", func() { git(t, nil, "checkout", "-q", "b") }},
			checkout{"writes", "a", func() { benchTree(t, dir, checkoutDomains, checkoutTopics, "a") }})
	} else {
		t.Log("git not installed: plain writes only")
		paths = benchTree(t, dir, checkoutDomains, checkoutTopics, "a")
		checkouts = append(checkouts, checkout{"writes", "b", func() { benchTree(t, dir, checkoutDomains, checkoutTopics, "b") }})
	}
	for _, co := range checkouts {
		t.Run(co.name, func(t *testing.T) {
			rec := &recorder{}
			clk := watchertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			w := open(t, dir, rec, func(o *Options) {
				o.Debounce = 0 // the default
				o.clock = clk
			})
			// The sentinel comes out after the start-up reconciliation.
			// Its update is delivered after the library has it, maybe after
			// the reset: the count below leaves it out.
			sentinel := moveFile(t, dir, "context/d000/sentinel.md", topicText("d000", "sentinel", "Sentinel"))
			advanceUntil(t, clk, "the sentinel", func() bool {
				tp, ok := w.Snapshot().Library().Topic("d000/sentinel")
				return ok && tp.Meta.Title == "Sentinel"
			})
			rec.Reset()

			co.run()
			// A last file written after the burst: once the watcher has
			// received its event it has received the whole burst's.
			end := moveFile(t, dir, "context/d000/zz-end.md", topicText("d000", "zz-end", "End "+co.to))
			waitFor(t, "the event of the last file", func() bool {
				wt := w.watcher.Load()
				return wt != nil && wt.Waiting(end)
			})
			advanceUntil(t, clk, "every topic at variant "+co.to+", and its update", func() bool {
				for _, tp := range w.Snapshot().Library().Topics() {
					if tp.ID != "d000/sentinel" && !strings.HasSuffix(tp.Meta.Title, " "+co.to) {
						return false
					}
				}
				changed := rec.changed()
				for _, p := range append(paths, end) {
					if _, ok := slices.BinarySearch(changed, p); !ok {
						return false
					}
				}
				return true
			})
			ups := slices.DeleteFunc(rec.All(), func(u Update) bool { return slices.Equal(u.Changed, []string{sentinel}) })
			if len(ups) != 1 {
				for i, u := range ups {
					t.Logf("update %d: %d changed, reloaded %v", i, len(u.Changed), u.Reloaded)
				}
				t.Fatalf("the checkout took %d updates, want 1", len(ups))
			}
			if got := len(ups[0].Changed); got != len(paths)+1 {
				t.Errorf("the update names %d changed files, want %d", got, len(paths)+1)
			}
			// The next checkout starts without this one's two files.
			w.Close()
			for _, p := range []string{sentinel, end} {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// moveFile writes content to a file outside dir and renames it to rel
// below dir, and returns its path. The watcher receives one event for it:
// a file written in place raises a second one for its content, which a
// slow watcher could receive after it applied the first, as a change of
// its own.
func moveFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	written := testtree.WriteAt(t, t.TempDir(), "moved.md", content)
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.Rename(written, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkoutDomains and checkoutTopics make the tree of TestCheckoutIsOnePass:
// checkoutTopics topics in each of checkoutDomains domains.
const checkoutDomains, checkoutTopics = 20, 50

// advanceUntil moves clk on until cond holds, or fails the test at the
// deadline.
func advanceUntil(t testing.TB, clk *watchertest.Clock, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		clk.Advance(time.Second)
		time.Sleep(5 * time.Millisecond)
	}
}

// gitIn returns a function running git in dir, with stdin as its input,
// without the user's configuration of name, e-mail and signing; false
// when git is not installed.
func gitIn(dir string) (func(t *testing.T, stdin []byte, args ...string), bool) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, false
	}
	return func(t *testing.T, stdin []byte, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}, true
}

// benchCommits returns a git fast-import stream committing benchFiles of
// each variant on a branch of its name, each commit on top of the one
// before.
func benchCommits(domains, topics int, variants ...string) []byte {
	var b bytes.Buffer
	for i, v := range variants {
		fmt.Fprintf(&b, "commit refs/heads/%s\ncommitter t <t@t> 1767225600 +0000\ndata 0\n", v)
		if i > 0 {
			fmt.Fprintf(&b, "from refs/heads/%s\n", variants[i-1])
		}
		files := benchFiles(domains, topics, v)
		for _, rel := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", rel, len(files[rel]), files[rel])
		}
	}
	return b.Bytes()
}
