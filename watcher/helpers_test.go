package watcher

import (
	"context"
	"fmt"
	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/watcher/watchertest"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitTimeout bounds every wait on the watcher; generous because the machine
// is small, shared and the tests also run under -race.
const waitTimeout = 30 * time.Second

// logRecorder is a slog.Handler keeping every record for assertions.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", rec.Level, rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	r.mu.Lock()
	r.lines = append(r.lines, b.String())
	r.mu.Unlock()
	return nil
}

// count returns how many records at level contain substr.
func (r *logRecorder) count(level slog.Level, substr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range r.lines {
		if strings.HasPrefix(l, level.String()+" ") && strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

func (r *logRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// diskState is an independent walk of the disk: what a fresh scan finds.
type diskState struct {
	files map[string]bool
	dirs  map[string]bool
}

func walkDisk(t testing.TB, roots, extras []string) diskState {
	t.Helper()
	s := diskState{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, root := range roots {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return err
				}
				return filepath.SkipDir // unreadable: a fresh scan skips it
			}
			switch {
			case d.IsDir():
				if p != root && defaultIgnoreDir(p) {
					return filepath.SkipDir
				}
				if p != root && slices.Contains(roots, p) {
					return filepath.SkipDir // walked as its own root
				}
				if _, err := os.ReadDir(p); err != nil {
					return filepath.SkipDir
				}
				s.dirs[p] = true
			case d.Type().IsRegular():
				if defaultMatch(p) && !slices.Contains(extras, p) {
					s.files[p] = true
				}
			case d.Type()&fs.ModeSymlink != 0:
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && defaultMatch(p) {
					s.files[p] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", root, err)
		}
	}
	for _, x := range extras {
		if fi, err := os.Stat(x); err == nil && fi.Mode().IsRegular() {
			s.files[x] = true
		}
	}
	return s
}

// consumer applies every batch to its own picture of the disk, checking on
// the way that each change is consistent with what it was told before.
type consumer struct {
	mu      sync.Mutex
	files   map[string]bool
	dirs    map[string]bool
	log     []Change
	batches []Batch
	errs    []string
	updated chan struct{}
	done    chan struct{}
}

func newConsumer(w *Watcher, initial diskState) *consumer {
	c := &consumer{
		files:   initial.files,
		dirs:    initial.dirs,
		updated: make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		for b := range w.Batches() {
			c.apply(b)
		}
	}()
	return c
}

func (c *consumer) apply(b Batch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches = append(c.batches, b)
	seen := map[changeKey]bool{}
	for i, ch := range b.Changes {
		k := changeKey{ch.Path, ch.IsDir}
		if seen[k] {
			c.errs = append(c.errs, fmt.Sprintf("batch %d: %v reported twice", len(c.batches), ch))
		}
		seen[k] = true
		if i > 0 && b.Changes[i-1].Path > ch.Path {
			c.errs = append(c.errs, fmt.Sprintf("batch %d: changes not sorted at %s", len(c.batches), ch.Path))
		}
		set := c.files
		if ch.IsDir {
			set = c.dirs
		}
		switch ch.Kind {
		case Created:
			if set[ch.Path] {
				c.errs = append(c.errs, fmt.Sprintf("batch %d: %v but it was there already", len(c.batches), ch))
			}
			set[ch.Path] = true
		case Modified:
			if ch.IsDir || !set[ch.Path] {
				c.errs = append(c.errs, fmt.Sprintf("batch %d: %v of something unknown", len(c.batches), ch))
			}
		case Removed:
			if !set[ch.Path] {
				c.errs = append(c.errs, fmt.Sprintf("batch %d: %v of something unknown", len(c.batches), ch))
			}
			delete(set, ch.Path)
		default:
			c.errs = append(c.errs, fmt.Sprintf("batch %d: bad kind in %v", len(c.batches), ch))
		}
		c.log = append(c.log, ch)
	}
	select {
	case c.updated <- struct{}{}:
	default:
	}
}

// waitUntil waits until cond, called with c.mu held, holds.
func (c *consumer) waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(waitTimeout)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		ok := cond()
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.updated:
		case <-c.done:
			c.mu.Lock()
			ok := cond()
			c.mu.Unlock()
			if !ok {
				t.Fatalf("batches ended before %s", what)
			}
			return
		case <-timeout.C:
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("timed out waiting for %s; changes so far:\n%s", what, formatChanges(c.log))
		}
	}
}

// mark returns a position in the change log for since.
func (c *consumer) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.log)
}

// since returns the changes after mark, leaving out barrier files.
func (c *consumer) since(mark int) []Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Change
	for _, ch := range c.log[mark:] {
		if !strings.Contains(ch.Path, "zz-barrier-") {
			out = append(out, ch)
		}
	}
	return out
}

var barrierSeq struct {
	sync.Mutex
	n int
}

// barrier writes a new file in dir (which must be watched) and waits for it
// to be reported. Events reach the watcher in order, so everything that
// happened before in watched directories has been reported by then.
func (c *consumer) barrier(t testing.TB, dir string) {
	t.Helper()
	barrierSeq.Lock()
	barrierSeq.n++
	p := filepath.Join(dir, fmt.Sprintf("zz-barrier-%d.md", barrierSeq.n))
	barrierSeq.Unlock()
	testtree.Write(t, p, "barrier")
	c.waitUntil(t, "barrier "+p, func() bool { return c.files[p] })
}

// check reports the consumer's consistency errors.
func (c *consumer) check(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.errs {
		t.Error(e)
	}
}

// equalsDisk reports (with c.mu held) whether the consumer matches disk.
func (c *consumer) equalsDisk(d diskState) bool {
	return maps.Equal(c.files, d.files) && maps.Equal(c.dirs, d.dirs)
}

func (c *consumer) diff(d diskState) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, pair := range []struct {
		name      string
		got, want map[string]bool
	}{{"file", c.files, d.files}, {"dir", c.dirs, d.dirs}} {
		for p := range pair.want {
			if !pair.got[p] {
				fmt.Fprintf(&b, "missing %s %s\n", pair.name, p)
			}
		}
		for p := range pair.got {
			if !pair.want[p] {
				fmt.Fprintf(&b, "extra %s %s\n", pair.name, p)
			}
		}
	}
	return b.String()
}

func formatChanges(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "  %v\n", c)
	}
	return b.String()
}

func (c Change) String() string {
	d := ""
	if c.IsDir {
		d = "/"
	}
	return c.Kind.String() + " " + c.Path + d
}

// env is one watcher under test with its consumer and log.
type env struct {
	w    *Watcher
	c    *consumer
	logs *logRecorder
	opts Options
}

// start creates a watcher with opts and a consumer seeded with a fresh walk
// of the disk; cleanups close it and check for leaked goroutines.
func start(t testing.TB, opts Options) *env {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	initial := walkDisk(t, opts.Roots, opts.Files)
	w, logs := newWatcher(t, opts)
	c := newConsumer(w, initial)
	e := &env{w: w, c: c, logs: logs, opts: opts}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		select {
		case <-c.done:
		case <-time.After(waitTimeout):
			t.Fatal("the consumer of batches did not end after Close")
		}
		c.check(t)
		if t.Failed() {
			t.Logf("log:\n%s", logs)
		}
	})
	return e
}

// newWatcher creates a watcher with opts, logging to the returned recorder
// unless opts has a logger, and checks when the test ends that it left no
// goroutine running.
func newWatcher(t testing.TB, opts Options) (*Watcher, *logRecorder) {
	t.Helper()
	watchertest.CheckGoroutines(t)
	logs := &logRecorder{}
	if opts.Logger == nil {
		opts.Logger = slog.New(logs)
	}
	w, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return w, logs
}

// settle waits for a barrier and checks the consumer equals the disk.
func (e *env) settle(t testing.TB) {
	t.Helper()
	e.c.barrier(t, e.opts.Roots[0])
	e.requireDisk(t)
}

// changes runs act, settles, and returns the changes reported meanwhile.
func (e *env) changes(t testing.TB, act func()) []Change {
	t.Helper()
	m := e.c.mark()
	act()
	e.settle(t)
	return e.c.since(m)
}

// expect runs act, settles, and fails unless the changes reported meanwhile
// are want, in any order.
func (e *env) expect(t testing.TB, act func(), want ...Change) {
	t.Helper()
	requireChanges(t, e.changes(t, act), want...)
}

func (e *env) requireDisk(t testing.TB) {
	t.Helper()
	d := walkDisk(t, e.opts.Roots, e.opts.Files)
	e.c.mu.Lock()
	ok := e.c.equalsDisk(d)
	e.c.mu.Unlock()
	if !ok {
		t.Fatalf("consumer differs from disk:\n%s", e.c.diff(d))
	}
}

// waitDisk waits until the consumer equals the disk (for changes only a poll
// or rescan can find).
func (e *env) waitDisk(t testing.TB) {
	t.Helper()
	var d diskState
	e.c.waitUntil(t, "consumer equal to disk", func() bool {
		d = walkDisk(t, e.opts.Roots, e.opts.Files)
		return e.c.equalsDisk(d)
	})
}

func mkdirAll(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func rename(t testing.TB, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func removeAll(t testing.TB, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// atomicSave writes content to tmp and renames it over target, as editors do.
func atomicSave(t testing.TB, tmp, target, content string) {
	t.Helper()
	testtree.Write(t, tmp, content)
	rename(t, tmp, target)
}

// changeSet makes changes comparable regardless of order.
func changeSet(cs []Change) map[string]int {
	m := map[string]int{}
	for _, c := range cs {
		m[c.String()]++
	}
	return m
}

func requireChanges(t testing.TB, got []Change, want ...Change) {
	t.Helper()
	g, w := changeSet(got), changeSet(want)
	if len(g) != len(w) || len(got) != len(want) {
		t.Fatalf("changes:\n%swant:\n%s", formatChanges(got), formatChanges(want))
	}
	for k, n := range w {
		if g[k] != n {
			t.Fatalf("changes:\n%swant:\n%s", formatChanges(got), formatChanges(want))
		}
	}
}

// watched returns the directories fsnotify watches, sorted.
func (e *env) watched() []string {
	l := e.w.fsw.WatchList()
	slices.Sort(l)
	return l
}

// startAtLimit writes a file in each of four directories below a new root
// and starts a watcher on it with opts, which must let it watch only want
// of them; it returns the root, the watcher's environment and what the
// watcher gave OnLimit.
func startAtLimit(t *testing.T, opts Options, want int) (string, *env, *watchertest.Recorder[string]) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c", "c/d"} {
		testtree.Write(t, filepath.Join(root, d, "f.md"), d)
	}
	limits := new(watchertest.Recorder[string])
	opts.Roots, opts.OnLimit = []string{root}, limits.Add
	e := start(t, opts)
	if n := len(e.watched()); n != want {
		t.Fatalf("%d watches, want %d", n, want)
	}
	return root, e, limits
}

// requireLimitWarned fails unless the watcher logged one warning holding
// every one of msgs, and gave OnLimit that message once.
func requireLimitWarned(t *testing.T, e *env, limits *watchertest.Recorder[string], msgs ...string) {
	t.Helper()
	for _, msg := range msgs {
		if n := e.logs.count(slog.LevelWarn, msg); n != 1 {
			t.Errorf("%d watch-limit warnings holding %q, want 1:\n%s", n, msg, e.logs)
		}
	}
	got := limits.All()
	if len(got) != 1 {
		t.Fatalf("OnLimit called with %q, want the warning once", got)
	}
	for _, msg := range msgs {
		if !strings.Contains(got[0], msg) {
			t.Errorf("OnLimit called with %q, want it to hold %q", got[0], msg)
		}
	}
}

// stepUntil calls step with 0, 1, 2… every interval until cond holds
// (under the consumer's lock), and fails the test when it does not within
// waitTimeout.
func (e *env) stepUntil(t testing.TB, what string, every time.Duration, step func(i int), cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for i := 0; ; i++ {
		step(i)
		e.c.mu.Lock()
		ok := cond()
		e.c.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			e.c.mu.Lock()
			defer e.c.mu.Unlock()
			t.Fatalf("timed out waiting for %s; changes so far:\n%s", what, formatChanges(e.c.log))
		}
		time.Sleep(every)
	}
}

// endBurst ends a burst written below root while clk stood still: it
// moves one more file there and waits until the watcher has received it,
// and so every event before it, then moves clk on until cond holds (under
// the consumer's lock). The file is written elsewhere and renamed in, so
// that it raises one event: a file written in place raises a second one
// for its content, which a slow watcher could receive after the batch.
func (e *env) endBurst(t testing.TB, clk *watchertest.Clock, root, what string, cond func() bool) {
	t.Helper()
	last := filepath.Join(root, "zz-end-of-burst.md")
	written := filepath.Join(t.TempDir(), "end.md")
	testtree.Write(t, written, "end")
	rename(t, written, last)
	watchertest.WaitFor(t, "the watcher to receive the event for "+last, func() bool { return e.w.Waiting(last) })
	e.stepUntil(t, what, time.Millisecond, func(int) { clk.Advance(time.Second) }, cond)
}
