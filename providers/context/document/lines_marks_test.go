package document

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLinesMarks compares Lines, as NewLines makes it and compact, with a
// plain offset per line on texts of many lines, so that look-ups fall
// between marks, on marks and past them.
func TestLinesMarks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, linesPerMark - 1, linesPerMark, linesPerMark + 1, 5*linesPerMark + 7} {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat("é", rng.IntN(4)))
			if i%3 == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		if n%2 == 1 {
			b.WriteString("tail")
		}
		text := []byte(b.String())
		starts := []int{0}
		for i, c := range text {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		full := NewLines(text)
		compact := NewLines(text)
		compact.compact()
		for _, l := range []*Lines{full, compact} {
			if l.Count() != len(starts) {
				t.Fatalf("%d lines: Count() = %d, want %d", n, l.Count(), len(starts))
			}
			for line, start := range starts {
				end := len(text)
				if line+1 < len(starts) {
					end = starts[line+1] - 1
				}
				if end > start && text[end-1] == '\r' {
					end--
				}
				if l.Start(line) != start || l.End(line) != end {
					t.Errorf("%d lines: line %d spans %d-%d, want %d-%d", n, line, l.Start(line), l.End(line), start, end)
				}
			}
			for off := 0; off <= len(text)+1; off++ {
				want := 0
				for i, s := range starts {
					if s <= off {
						want = i
					}
				}
				if got := l.LineOf(off); got != want {
					t.Errorf("%d lines: LineOf(%d) = %d, want %d", n, off, got, want)
				}
			}
		}
	}
}

// BenchmarkLinesPosition converts offsets spread over a 4 MB text of
// short lines to positions and back, with the index of every line and
// with a compact one.
func BenchmarkLinesPosition(b *testing.B) {
	text := []byte(strings.Repeat("- a short line of text, é\n", (4<<20)/27))
	rng := rand.New(rand.NewPCG(3, 4))
	offs := make([]int, 1024)
	for i := range offs {
		offs[i] = rng.IntN(len(text))
	}
	for _, compact := range []bool{false, true} {
		l := NewLines(text)
		if compact {
			l.compact()
		}
		b.Run(fmt.Sprintf("compact=%v", compact), func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := l.Position(offs[i%len(offs)], UTF16)
				if _, err := l.Offset(p, UTF16); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestLinesRange: Range is the Position of each end of the span, for
// every span of texts with multi-byte and astral characters, invalid
// bytes and CRLF line ends, spans that start or end inside a character,
// cross lines or leave the text, in every encoding.
func TestLinesRange(t *testing.T) {
	t.Parallel()
	texts := []string{
		"",
		"abc",
		"a\r\nbé\n😀x\r\n\n\xff\xe9z",
		strings.Repeat("é😀 ab\n", 2*linesPerMark+3) + "\xe2\x82",
	}
	for _, text := range texts {
		full := NewLines([]byte(text))
		compact := NewLines([]byte(text))
		compact.compact()
		for _, l := range []*Lines{full, compact} {
			for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
				for start := -1; start <= len(text)+1; start++ {
					for end := start - 1; end <= len(text)+1; end++ {
						s := Span{Start: start, End: end}
						want := Range{Start: l.Position(start, enc), End: l.Position(end, enc)}
						if got := l.Range(s, enc); got != want {
							t.Fatalf("%q: Range(%v, %v) = %v, want %v", text, s, enc, got, want)
						}
					}
				}
			}
		}
	}
}

// BenchmarkLinesRange converts spans of a few words, spread over a 4 MB
// text of short lines, to ranges with a compact index.
func BenchmarkLinesRange(b *testing.B) {
	text := []byte(strings.Repeat("- a short line of text, é\n", (4<<20)/27))
	rng := rand.New(rand.NewPCG(3, 4))
	spans := make([]Span, 1024)
	for i := range spans {
		start := rng.IntN(len(text) - 10)
		spans[i] = Span{Start: start, End: start + 8}
	}
	l := NewLines(text)
	l.compact()
	i := 0
	for b.Loop() {
		l.Range(spans[i%len(spans)], UTF16)
		i++
	}
}
