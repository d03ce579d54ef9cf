//go:build linux

package watcher

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
)

// cpu returns the user+system CPU time used so far by the process, or by
// the calling OS thread when thread is set.
func cpu(thread bool) time.Duration {
	who := syscall.RUSAGE_SELF
	if thread {
		who = 1 // RUSAGE_THREAD
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// meter accumulates wall and CPU time over the measured parts of a
// benchmark. The writer's own CPU (the thread running the benchmark, locked
// to it) is measured apart so that the watcher's share can be reported.
type meter struct {
	wall, tail, total, writer time.Duration
	batches                   int
}

func (m *meter) report(b *testing.B) {
	n := float64(b.N)
	ms := float64(time.Millisecond)
	watcher := m.total - m.writer
	b.ReportMetric(float64(m.batches)/n, "batches/op")
	b.ReportMetric(float64(m.tail)/ms/n, "after-burst-ms/op")
	b.ReportMetric(float64(m.total)/ms/n, "cpu-ms/op")
	b.ReportMetric(float64(watcher)/ms/n, "watcher-cpu-ms/op")
	b.ReportMetric(float64(watcher)/float64(m.wall), "watcher-cores")
}

// measure runs burst (the disk changes) and then wait (until the watcher
// delivered them), timing the whole and, apart, the wait after the burst.
func (m *meter) measure(burst func(), wait func() int) {
	start, total0, writer0 := time.Now(), cpu(false), cpu(true)
	burst()
	writer1 := cpu(true)
	burstEnd := time.Now()
	m.batches += wait()
	m.wall += time.Since(start)
	m.tail += time.Since(burstEnd)
	m.total += cpu(false) - total0
	m.writer += writer1 - writer0
}

// collect receives batches until every path in want has been reported with
// kind, and returns how many batches it took.
func collect(b *testing.B, w *Watcher, kind ChangeKind, want map[string]bool) int {
	left := len(want)
	seen := make(map[string]bool, len(want))
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	n := 0
	for left > 0 {
		select {
		case batch, ok := <-w.Batches():
			if !ok {
				b.Fatal("batches closed")
			}
			n++
			for _, c := range batch.Changes {
				if c.Kind == kind && want[c.Path] && !seen[c.Path] {
					seen[c.Path] = true
					left--
				}
			}
		case <-timeout.C:
			b.Fatalf("%d of %d changes not reported", left, len(want))
		}
	}
	return n
}

func benchWatcher(b *testing.B, root string) *Watcher {
	b.Helper()
	w, err := New(Options{Roots: []string{root}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

// BenchmarkOneFileChange measures the time from writing one file to
// receiving the batch that reports it, with the default debounce (100ms).
func BenchmarkOneFileChange(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	root := b.TempDir()
	var files []string
	for i := range 10 {
		p := filepath.Join(root, "dom", fmt.Sprintf("t%d.md", i))
		testtree.Write(b, p, "x")
		files = append(files, p)
	}
	w := benchWatcher(b, root)
	var m meter
	b.ResetTimer()
	for i := range b.N {
		p := files[i%len(files)]
		m.measure(
			func() { testtree.Write(b, p, fmt.Sprintf("content %d", i)) },
			func() int { return collect(b, w, Modified, map[string]bool{p: true}) },
		)
	}
	b.StopTimer()
	m.report(b)
}

const (
	checkoutDirs    = 50
	checkoutPerDir  = 100
	checkoutContent = "---\ntitle: topic\n---\n# Topic\n\nSome text of a plausible size for a topic file.\n"
)

// checkoutTree returns the paths of 5,000 files in 50 directories below dir.
func checkoutTree(dir string) (dirs []string, files map[string]bool) {
	files = make(map[string]bool)
	for d := range checkoutDirs {
		sub := filepath.Join(dir, fmt.Sprintf("domain%02d", d))
		dirs = append(dirs, sub)
		for f := range checkoutPerDir {
			files[filepath.Join(sub, fmt.Sprintf("topic%03d.md", f))] = true
		}
	}
	return dirs, files
}

func writeTree(b *testing.B, dirs []string, files map[string]bool, content string) {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for p := range files {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckout5000 measures a git-checkout-like burst touching 5,000
// files in 50 directories: the time from the first write to the batch that
// completes the picture, how many batches that took, and the CPU used.
func BenchmarkCheckout5000(b *testing.B) {
	benchBursts(b, "create", nil, func(b *testing.B, i int, root string, w *Watcher, m *meter) {
		dirs, files := checkoutTree(filepath.Join(root, fmt.Sprint("co", i)))
		m.measure(
			func() { writeTree(b, dirs, files, checkoutContent) },
			func() int { return collect(b, w, Created, files) },
		)
		b.StopTimer()
		removeAll(b, filepath.Join(root, fmt.Sprint("co", i)))
		collect(b, w, Removed, files)
		b.StartTimer()
	})

	var dirs []string
	var files map[string]bool
	benchBursts(b, "modify", func(b *testing.B, root string) {
		dirs, files = checkoutTree(root)
		writeTree(b, dirs, files, checkoutContent)
	}, func(b *testing.B, i int, root string, w *Watcher, m *meter) {
		m.measure(
			func() { writeTree(b, dirs, files, fmt.Sprintf("%s\nrevision %d\n", checkoutContent, i)) },
			func() int { return collect(b, w, Modified, files) },
		)
	})

	benchBursts(b, "delete", nil, func(b *testing.B, i int, root string, w *Watcher, m *meter) {
		b.StopTimer()
		dir := filepath.Join(root, fmt.Sprint("co", i))
		dirs, files := checkoutTree(dir)
		writeTree(b, dirs, files, checkoutContent)
		collect(b, w, Created, files)
		b.StartTimer()
		m.measure(
			func() { removeAll(b, dir) },
			func() int { return collect(b, w, Removed, files) },
		)
	})
}

// benchBursts runs the sub-benchmark name: prepare, when not nil, fills a
// new root before a watcher starts on it, and burst runs one measured
// burst of iteration i.
func benchBursts(b *testing.B, name string, prepare func(b *testing.B, root string), burst func(b *testing.B, i int, root string, w *Watcher, m *meter)) {
	b.Run(name, func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		root := b.TempDir()
		if prepare != nil {
			prepare(b, root)
		}
		w := benchWatcher(b, root)
		var m meter
		b.ResetTimer()
		for i := range b.N {
			burst(b, i, root, w, &m)
		}
		b.StopTimer()
		m.report(b)
	})
}
