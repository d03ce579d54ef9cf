package library_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libgen"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// The benchmarks share one generated library of 10,000 topics (about
// 40 MB over 50 domains), written once per process. Run with
//
//	go test ./providers/library -run '^$' -bench . -benchtime 5x
var (
	benchOnce sync.Once
	benchDir  string
	benchOpts = libgen.Options{Topics: benchTopics(), Domains: 50, TopicBytes: 3000, Seed: 7}
	benchErr  error
	benchKeep bool
)

func benchLibrary(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		// CTXLS_BENCH_DIR keeps the generated library between runs.
		if d := os.Getenv("CTXLS_BENCH_DIR"); d != "" {
			benchKeep = true
			if _, err := os.Stat(filepath.Join(d, "context")); err == nil {
				benchDir = d
				return
			}
			benchDir = d
		} else {
			benchDir, benchErr = os.MkdirTemp("", "ctxls-bench-")
		}
		if benchErr == nil {
			_, benchErr = libgen.Generate(benchDir, benchOpts)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" && !benchKeep {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func benchConfig(tokenizer string) *config.Config {
	cfg := config.Default()
	cfg.Tokenizer = tokenizer
	return cfg
}

// BenchmarkColdIndex measures a full scan: walk, parse, measure tokens with
// the real o200k_base tokenizer, scan and index references, on all cores.
func BenchmarkColdIndex(b *testing.B) {
	for _, tok := range []string{"o200k_base", "estimate"} {
		b.Run(tok, func(b *testing.B) {
			dir := benchLibrary(b)
			cfg := benchConfig(tok)
			b.ReportAllocs()
			for b.Loop() {
				l, err := library.Load(context.Background(), dir, cfg, library.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if n := len(l.Snapshot().Topics()); n < benchOpts.Topics {
					b.Fatalf("%d topics", n)
				}
			}
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
		})
	}
}

// BenchmarkApplyOneFile measures re-indexing one changed topic through
// Apply: parse and measure the file, rescan its references and update the
// indexes, as an editor keystroke does.
func BenchmarkApplyOneFile(b *testing.B) {
	dir := benchLibrary(b)
	l, err := library.Load(context.Background(), dir, benchConfig("o200k_base"), library.Options{})
	if err != nil {
		b.Fatal(err)
	}
	rel := libgen.TopicPath(benchOpts, 1234)
	orig, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		b.Fatal(err)
	}
	versions := [][]byte{
		[]byte(strings.Replace(string(orig), "## Overview", "## Overview\n\nEdited python00:async_async_0000 line.", 1)),
		orig,
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		res, err := l.Apply(context.Background(), []library.Change{{Path: rel, Content: versions[i%2]}})
		if err != nil {
			b.Fatal(err)
		}
		if res.Reloaded || len(res.Changed) != 1 {
			b.Fatalf("result %+v", res)
		}
		i++
	}
}

// BenchmarkDiagnoseAll measures computing every diagnostic of the library,
// from scratch each time: a snapshot keeps what it worked out.
func BenchmarkDiagnoseAll(b *testing.B) {
	dir := benchLibrary(b)
	l, err := library.Load(context.Background(), dir, benchConfig("estimate"), library.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := l.Snapshot()
	for b.Loop() {
		s.WithoutDiagnostics().DiagnoseAll(context.Background())
	}
}

// BenchmarkResidentMemory reports the heap a loaded library keeps live.
func BenchmarkResidentMemory(b *testing.B) {
	dir := benchLibrary(b)
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		l, err := library.Load(context.Background(), dir, benchConfig("o200k_base"), library.Options{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc))/(1<<20), "live-MiB")
		runtime.KeepAlive(l)
	}
}

func ExampleTopicPath() {
	fmt.Println(filepath.ToSlash(libgen.TopicPath(libgen.Options{Topics: 100, Domains: 10}, 13)))
	// Output: context/security00/cache_deploy_0001.md
}

// benchTopics is the library size, 10,000 unless CTXLS_BENCH_TOPICS says
// otherwise (for quick profiling runs).
func benchTopics() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("CTXLS_BENCH_TOPICS"), &n); err == nil && n > 0 {
		return n
	}
	return 10000
}

// BenchmarkReferencesDense measures listing the references to a topic
// from a command that makes 50,000 references of every kind: to the
// topic, to its sections that exist and that do not, to unknown topics
// and domains, and links to missing files.
func BenchmarkReferencesDense(b *testing.B) {
	l, _ := libtest.Load(b, map[string]string{
		"context/python/a.md": libtest.DenseTopic,
		"commands/dense.md":   libtest.DenseCommand(50_000),
	})
	s := l.Snapshot()
	for b.Loop() {
		if n := len(s.References("python/a")); n != 18_750 {
			b.Fatalf("%d references", n)
		}
	}
}
