package document

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParse parses a 4 MB document of short lines: headings, lists,
// a table and fenced code, the blocks the scanner walks line by line.
func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("---\nid: bench/parse\ntags: [a, b]\n---\n\n# Title\n\n")
	for i := 0; sb.Len() < 4<<20; i++ {
		fmt.Fprintf(&sb, "## Section %d\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n```go\nx := %d\ny := x\n```\n\nText.\n\n", i, i)
	}
	text := []byte(sb.String())
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Parse("bench.md", text)
	}
}
