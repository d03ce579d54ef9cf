package document

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLinesMarks compares Lines, as NewLines makes it and compact, with a
// plain offset per line on texts of many lines, so that look-ups fall
// between marks, on marks and past them; and Range with the Position of
// each end of spans that start and end anywhere (inside a character too),
// within a line or across lines, in every encoding.
func TestLinesMarks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, linesPerMark - 1, linesPerMark, linesPerMark + 1, 5*linesPerMark + 7} {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat("é", rng.IntN(4)))
			if i%4 == 1 {
				b.WriteString("😀\xff")
			}
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
				for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
					for end := off - 1; end <= off+12; end++ {
						s := Span{Start: off, End: end}
						if got, want := l.Range(s, enc), (Range{Start: l.Position(off, enc), End: l.Position(end, enc)}); got != want {
							t.Errorf("%d lines: Range(%v, %v) = %v, want %v", n, s, enc, got, want)
						}
					}
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
