package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// writeRulesRepo writes a repository of files empty files in nested
// packages, a README and rules Cursor rules and Copilot instructions, half
// and half, whose globs are of the shapes real rule collections use
// (anchored and not, brace lists, comma lists); one in four matches no
// file.
func writeRulesRepo(tb testing.TB, dir string, files, rules int) {
	tb.Helper()
	write := func(rel, content string) { testtree.WriteAt(tb, dir, rel, content) }
	exts := []string{"ts", "tsx", "go", "py", "md", "json"}
	for i := range files {
		write(fmt.Sprintf("packages/pkg%03d/src/mod%02d/file%05d.%s", i%200, i%30, i, exts[i%len(exts)]), "")
	}
	write("README.md", "# Repo\n\nSee [the first package](packages/pkg000/src/mod00/file00000.ts).\n")
	for i := range rules {
		var pat string
		switch i % 4 {
		case 0:
			pat = fmt.Sprintf("packages/pkg%03d/**/*.ts", i%200)
		case 1:
			pat = fmt.Sprintf("src/mod%02d/**", i%30)
		case 2:
			pat = "**/*.{" + exts[i%len(exts)] + ",mjs}, **/*.CJS"
		default:
			pat = fmt.Sprintf("**/generated%03d/**/*.rs", i) // matches nothing
		}
		if i%2 == 0 {
			write(fmt.Sprintf(".cursor/rules/r%03d.mdc", i), fmt.Sprintf("---\ndescription: Rule %d\nglobs: %s\n---\nRule.\n", i, pat))
		} else {
			write(fmt.Sprintf(".github/instructions/i%03d.instructions.md", i), fmt.Sprintf("---\napplyTo: %q\n---\nRule.\n", pat))
		}
	}
}

// BenchmarkCheckRulesRepo measures ctxls check --no-cache of a repository
// of 28,000 files with 500 Cursor and Copilot rules: walking and indexing
// the workspace, reading every agent file and matching every glob against
// every file. Besides the wall time it reports the process's CPU time
// per check (cpu-s/op), which a machine shared with other work changes
// far less.
//
//	go test -run '^$' -bench CheckRulesRepo -benchtime 5x -count 3 ./cmd/ctxls
func BenchmarkCheckRulesRepo(b *testing.B) {
	dir := b.TempDir()
	writeRulesRepo(b, dir, 28_000, 500)
	b.Setenv("CTXLS_CACHE_DIR", b.TempDir())
	ctx := context.Background()
	cpu0, cpuOK := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		var out, errOut bytes.Buffer
		if err := run(ctx, []string{"check", "--no-cache", "--format", "json", dir}, strings.NewReader(""), &out, &errOut); err != nil {
			b.Fatalf("check: %v\n%s", err, errOut.String())
		}
		if n := strings.Count(out.String(), "\n"); n != 125 {
			b.Fatalf("%d diagnostics, want the 125 of the rules that match nothing:\n%s", n, out.String())
		}
	}
	if cpu1, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
}
