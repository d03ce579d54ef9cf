package tokens

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libgen"
)

var (
	markdownOnce sync.Once
	markdownText string
	markdownErr  error
)

// benchMarkdown returns about 1 MB of generated library markdown: 250 topics
// with frontmatter, sections and references, concatenated.
func benchMarkdown(tb testing.TB) string {
	tb.Helper()
	markdownOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctxls-tokens-")
		if err != nil {
			markdownErr = err
			return
		}
		defer os.RemoveAll(dir)
		if _, err := libgen.Generate(dir, libgen.Options{Topics: 250, Domains: 10, Commands: 1, Seed: 3}); err != nil {
			markdownErr = err
			return
		}
		var sb strings.Builder
		markdownErr = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			b, err := os.ReadFile(p)
			sb.Write(b)
			return err
		})
		markdownText = sb.String()
	})
	if markdownErr != nil {
		tb.Fatal(markdownErr)
	}
	return markdownText
}

func BenchmarkCountMarkdown(b *testing.B) {
	text := benchMarkdown(b)
	for _, name := range encodingNames {
		c, _ := New(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				c.Count(text)
			}
		})
	}
}

// BenchmarkCountSpansMarkdown counts a file at a time with a span per
// section, as indexing does.
func BenchmarkCountSpansMarkdown(b *testing.B) {
	text := benchMarkdown(b)
	files := strings.SplitAfter(text, "\n---\n")
	spans := make([][][2]int, len(files))
	for i, f := range files {
		start := 0
		for j := 1; j < len(f); j++ {
			if f[j] == '#' && f[j-1] == '\n' {
				spans[i] = append(spans[i], [2]int{start, j})
				start = j
			}
		}
		spans[i] = append(spans[i], [2]int{start, len(f)})
	}
	for _, name := range []string{O200kBase, Cl100kBase} {
		c, _ := New(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				for i, f := range files {
					c.CountSpans(f, spans[i])
				}
			}
		})
	}
}

// BenchmarkParseRanks measures building a vocabulary from its rank file,
// which every process that counts tokens does once.
func BenchmarkParseRanks(b *testing.B) {
	for _, e := range []struct{ name, data string }{{O200kBase, o200kRanks}, {Cl100kBase, cl100kRanks}} {
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				parseRanks(e.data)
			}
		})
	}
}

// benchCode returns the Go source of the context providers, about 2 MB.
func benchCode(tb testing.TB) string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "*", "*.go"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no source files: %v", err)
	}
	var sb strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		sb.Write(b)
	}
	return sb.String()
}

// BenchmarkClaudeVsO200k counts the same source code and prose with the
// newest Claude family and with o200k_base in turn, each iteration both,
// and reports the time of each and their ratio: interleaving keeps the
// ratio fair on a machine whose load changes. Where the thread's CPU time
// can be read, it reports that ratio too (claude/o200k-cpu), which other
// processes' load does not move.
func BenchmarkClaudeVsO200k(b *testing.B) {
	cl, _ := New(Claude)
	o2, _ := New(O200kBase)
	for _, tx := range []struct{ name, text string }{{"code", benchCode(b)}, {"prose", benchMarkdown(b)}} {
		cl.Count("warm up")
		o2.Count("warm up")
		b.Run(tx.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.SetBytes(2 * int64(len(tx.text)))
			var tc, to, cc, co time.Duration
			for b.Loop() {
				t0, c0 := time.Now(), threadCPU()
				cl.Count(tx.text)
				t1, c1 := time.Now(), threadCPU()
				o2.Count(tx.text)
				c2 := threadCPU()
				tc += t1.Sub(t0)
				to += time.Since(t1)
				cc += c1 - c0
				co += c2 - c1
			}
			n := float64(b.N)
			b.ReportMetric(float64(tc.Nanoseconds())/n/1e6, "claude-ms/op")
			b.ReportMetric(float64(to.Nanoseconds())/n/1e6, "o200k-ms/op")
			b.ReportMetric(float64(tc)/float64(to), "claude/o200k")
			if co > 0 {
				b.ReportMetric(float64(cc)/float64(co), "claude/o200k-cpu")
			}
		})
	}
}
