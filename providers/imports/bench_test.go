package imports

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/tokens"
)

// benchMemory is a 40,000-character memory file: prose with an import,
// an e-mail address and a code span on every line, and a fence every
// twenty lines.
func benchMemory() []byte {
	var b strings.Builder
	for i := 0; b.Len() < defaultMaxChars; i++ {
		if i%20 == 0 {
			b.WriteString("```sh\n@not/an/import.md\n```\n")
		}
		fmt.Fprintf(&b, "Step %d: see @docs/part%d.md and write to dev%d@example.com, not `@code/%d.md`.\n", i, i%50, i, i)
	}
	return []byte(b.String())
}

func BenchmarkScan(b *testing.B) {
	text := benchMemory()
	doc := document.Parse("/p/CLAUDE.md", text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Scan(doc)
	}
}

// BenchmarkBuild builds the tree of a memory file importing 50 files of
// about 2 KB, each importing the next, with the real tokenizer.
func BenchmarkBuild(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), benchMemory(), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		body := strings.Repeat(fmt.Sprintf("Part %d explains one thing in some detail. ", i), 40)
		text := fmt.Sprintf("# Part %d\n\n%s\nNext: @part%d.md for more\n", i, body, (i+1)%50)
		if err := os.WriteFile(filepath.Join(dir, "docs", fmt.Sprintf("part%d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	counter, err := tokens.New("")
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{Root: dir, Counter: counter}
	b.ReportAllocs()
	for b.Loop() {
		t, err := Build(context.Background(), filepath.Join(dir, "CLAUDE.md"), opt)
		if err != nil || len(t.Files) < 5 {
			b.Fatalf("tree of %v files: %v", t, err)
		}
	}
}
