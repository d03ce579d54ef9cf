//go:build unix

package workspace

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the user and system CPU time this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// updateSink receives updates, computes the diagnostics of the affected
// files as the server does before publishing them, and records what
// changed.
type updateSink struct {
	w       func() *Workspace
	mu      sync.Mutex
	changed map[string]bool
	diags   int
	updates int // calls of onUpdate: passes, unless some were merged while it ran
	signal  chan struct{}
}

func newSink() *updateSink {
	return &updateSink{changed: make(map[string]bool), signal: make(chan struct{}, 1)}
}

func (s *updateSink) onUpdate(u Update) {
	lib := s.w().Snapshot().Library()
	t0 := time.Now()
	n := 0
	for _, p := range u.Affected {
		n += len(lib.Diagnose(p))
	}
	if os.Getenv("CTXLS_BENCH_LOG") != "" {
		fmt.Fprintf(os.Stderr, "%s diagnosed %d files in %v\n", time.Now().Format("15:04:05.000"), len(u.Affected), time.Since(t0))
	}
	s.mu.Lock()
	for _, p := range u.Changed {
		s.changed[p] = true
	}
	s.diags += n
	s.updates++
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *updateSink) reset() {
	s.mu.Lock()
	clear(s.changed)
	s.mu.Unlock()
}

// count returns the number of updates received so far.
func (s *updateSink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates
}

// wait blocks until every path in want was reported changed and, when
// given, cond holds after an update.
func (s *updateSink) wait(tb testing.TB, want []string, cond func() bool) {
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		all := true
		for _, p := range want {
			if !s.changed[p] {
				all = false
				break
			}
		}
		s.mu.Unlock()
		if all && (cond == nil || cond()) {
			return
		}
		select {
		case <-s.signal:
		case <-deadline:
			tb.Fatalf("timed out waiting for %d changes", len(want))
		}
	}
}

func openBench(b *testing.B, dir string, sink *updateSink, mod func(*Options)) *Workspace {
	var w *Workspace
	sink.w = func() *Workspace { return w }
	opts := Options{Watch: true, OnUpdate: sink.onUpdate}
	if os.Getenv("CTXLS_BENCH_LOG") != "" {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if mod != nil {
		mod(&opts)
	}
	w, err := Open(context.Background(), dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	waitWatching(b, w)
	// Let the start-up reconciliation pass settle.
	time.Sleep(200 * time.Millisecond)
	return w
}

// BenchmarkOneFileChange measures the time from writing one topic file to
// the update with the diagnostics of every affected file computed, with
// the server's default debounce (100ms), in a workspace of 2,000 topics.
func BenchmarkOneFileChange(b *testing.B) {
	dir := b.TempDir()
	paths := benchTree(b, dir, 20, 100, "a")
	sink := newSink()
	openBench(b, dir, sink, nil)
	target := paths[len(paths)/2]
	var cpu, wall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sink.reset()
		txt := topicText("d010", "t0050", fmt.Sprintf("Changed %d", i), "d011:t0050", "d010:t0051")
		c0, t0 := cpuTime(b), time.Now()
		if err := os.WriteFile(target, []byte(txt), 0o644); err != nil {
			b.Fatal(err)
		}
		sink.wait(b, []string{target}, nil)
		wall += time.Since(t0)
		cpu += cpuTime(b) - c0
	}
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "ms/change")
	b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
}

// BenchmarkCheckout measures a git-checkout-like burst: 5,000 topic files
// of a 5,000-topic workspace rewritten by another process (cp), from the
// start of the copy to the update(s) with every affected file's diagnostics
// computed; ms-after-copy is the part after the copy ended. cpu-cores is
// this process's CPU time over the whole wall time (the copying process is
// not counted). updates/op counts the updates published for one checkout:
// each is a re-index pass, and one is the goal.
func BenchmarkCheckout(b *testing.B) {
	benchModes(b, "reload", func(b *testing.B, threshold int, dir string, paths []string) {
		versions := [2]string{b.TempDir(), b.TempDir()}
		benchTree(b, versions[0], 50, 100, "a")
		benchTree(b, versions[1], 50, 100, "b")
		sink := newSink()
		w := openBench(b, dir, sink, func(o *Options) { o.ReloadThreshold = threshold })
		var cpu, wall, after time.Duration
		var updates int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sink.reset()
			n0 := sink.count()
			src := versions[(i+1)%2]
			c0, t0 := cpuTime(b), time.Now()
			if os.Getenv("CTXLS_BENCH_LOG") != "" {
				fmt.Fprintf(os.Stderr, "%s checkout\n", t0.Format("15:04:05.000"))
			}
			cmd := exec.Command("cp", "-r", src+string(filepath.Separator)+".", dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("cp: %v\n%s", err, out)
			}
			t1 := time.Now()
			// A rebuild reports every file at once, copied yet or
			// not: wait for the library to hold the new version.
			variant := " " + []string{"a", "b"}[(i+1)%2]
			sink.wait(b, paths, func() bool {
				for _, t := range w.Snapshot().Library().Topics() {
					if !strings.HasSuffix(t.Meta.Title, variant) {
						return false
					}
				}
				return true
			})
			wall += time.Since(t0)
			after += time.Since(t1)
			cpu += cpuTime(b) - c0
			updates += sink.count() - n0
		}
		b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "ms/checkout")
		b.ReportMetric(float64(after.Milliseconds())/float64(b.N), "ms-after-copy")
		b.ReportMetric(float64(updates)/float64(b.N), "updates/op")
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
	})
}

// benchModes runs bench on a new workspace of 5,000 topics as two
// sub-benchmarks: "apply", with a reload threshold of 0 (changes applied
// file by file), and reload, with a threshold of 1 (the workspace read
// again).
func benchModes(b *testing.B, reload string, bench func(b *testing.B, threshold int, dir string, paths []string)) {
	for _, mode := range []struct {
		name      string
		threshold int
	}{{"apply", 0}, {reload, 1}} {
		b.Run(mode.name, func(b *testing.B) {
			dir := b.TempDir()
			bench(b, mode.threshold, dir, benchTree(b, dir, 50, 100, "a"))
		})
	}
}

// BenchmarkDidChange measures applying the editor's text of an open topic
// (the library holds it when DidChange returns) in a workspace of 2,000
// topics, and the diagnostics of the files it affects.
func BenchmarkDidChange(b *testing.B) {
	dir := b.TempDir()
	paths := benchTree(b, dir, 20, 100, "a")
	w, err := Open(context.Background(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	target := paths[len(paths)/2]
	w.DidOpen(target, topicText("d010", "t0050", "Open", "d011:t0050"), 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.DidChange(target, topicText("d010", "t0050", fmt.Sprintf("Typed %d", i), "d011:t0050", "d010:t0051"), int32(i+2))
		for _, p := range []string{target, paths[len(paths)/2-100]} {
			w.Snapshot().Library().Diagnose(p)
		}
	}
}

// BenchmarkPass measures one pass over a 5,000-file change in a 5,000-topic
// workspace without the watcher: reading and comparing the files, then
// applying them file by file ("apply") or scanning the workspace again
// ("rebuild"), with the affected files' diagnostics. It is the part of a
// checkout's latency that does not depend on how fast the files are written.
func BenchmarkPass(b *testing.B) {
	benchModes(b, "rebuild", func(b *testing.B, threshold int, dir string, paths []string) {
		var diags int
		w, err := Open(context.Background(), dir, Options{
			ReloadThreshold: threshold,
			OnUpdate:        func(Update) {},
		})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		var cpu, wall time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			benchTree(b, dir, 50, 100, []string{"b", "a"}[i%2])
			b.StartTimer()
			c0, t0 := cpuTime(b), time.Now()
			w.applyMu.Lock()
			w.applyPaths(w.ctx, paths, true)
			w.applyMu.Unlock()
			lib := w.Snapshot().Library()
			for _, p := range paths {
				diags += len(lib.Diagnose(p))
			}
			wall += time.Since(t0)
			cpu += cpuTime(b) - c0
		}
		b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cpu-cores")
		if t, _ := w.Snapshot().Library().Topic("d000/t0000"); !strings.HasSuffix(t.Meta.Title, []string{" b", " a"}[(b.N-1)%2]) {
			b.Fatalf("the pass did not apply the change: %q", t.Meta.Title)
		}
	})
}
