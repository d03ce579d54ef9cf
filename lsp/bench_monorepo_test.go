package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libgen"
)

// BenchmarkStdioMonorepoFirstDiagnostic measures, on a generated
// monorepo (CTXLS_BENCH_MONOREPO files, default 112,000: TypeScript
// packages with READMEs, pages under an ignored generated/, a CLAUDE.md),
// the time from starting the server to the first diagnostic of its skill,
// opened at once, whose link is broken; each server on the same tree.
// ctxls runs cold (its index cache emptied before every start) and warm
// (see coldWarmServers).
func BenchmarkStdioMonorepoFirstDiagnostic(b *testing.B) {
	files := 112000
	if v := os.Getenv("CTXLS_BENCH_MONOREPO"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("CTXLS_BENCH_MONOREPO: %v", err)
		}
		files = n
	}
	root := b.TempDir()
	st, err := libgen.Monorepo(root, files)
	if err != nil {
		b.Fatal(err)
	}
	skill := filepath.Join(root, filepath.FromSlash(st.Skill))
	text, err := os.ReadFile(skill)
	if err != nil {
		b.Fatal(err)
	}
	lib := &benchLib{root: root, command: skill, text: string(text)}
	for _, s := range coldWarmServers(b, lib) {
		b.Run(s.name, func(b *testing.B) {
			ctx := benchCtx(b)
			if s.setup != nil {
				s.setup(ctx, b)
			}
			var lat benchLatencies
			for b.Loop() {
				if s.prepare != nil {
					b.StopTimer()
					s.prepare(b)
					b.StartTimer()
				}
				start := time.Now()
				c := s.open(ctx, b, lib)
				s.diagnostics(ctx, b, c, stdioFileURI(skill), func(n int) bool { return n > 0 })
				lat = append(lat, time.Since(start))
				b.StopTimer()
				if err := c.Shutdown(ctx); err != nil {
					b.Logf("%s shutdown: %v", s.name, err)
				}
				b.StartTimer()
			}
			lat.report(b)
		})
	}
}
