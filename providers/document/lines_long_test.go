package document

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongLinePositions checks the positions on lines long enough to be
// marked against counting each line from its start, in every encoding,
// at every offset of a few, characters of one to four bytes mixed.
func TestLongLinePositions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(3))
	pieces := []string{"a", "{\"k\":1},", "é", "€", "😀", "\r", " "}
	var b strings.Builder
	// Long lines among short ones, in groups of a compact index long and
	// short.
	for i := 0; i < 40; i++ {
		n := 1 + rng.Intn(40)
		if i%7 == 3 {
			n = (1 + rng.Intn(5)) * colStride
		}
		for to := b.Len() + n; b.Len() < to; {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b.WriteString("\n")
	}
	text := []byte(b.String())
	compact := NewLines(text)
	compact.compact()
	for _, l := range []*Lines{NewLines(text), compact} {
		checkLongLines(t, rng, l, text)
	}
}

func checkLongLines(t *testing.T, rng *rand.Rand, l *Lines, text []byte) {
	t.Helper()
	for n, want := range strings.Split(string(text), "\n") {
		if got := string(l.Line(n)); got != strings.TrimSuffix(want, "\r") {
			t.Fatalf("Line(%d) = %.20q…, want %.20q…", n, got, want)
		}
	}
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		for off := 0; off <= len(text); off += 1 + rng.Intn(97) {
			want := naivePosition(text, off, enc)
			if got := l.Position(off, enc); got != want {
				t.Fatalf("%v: Position(%d) = %+v, want %+v", enc, off, got, want)
			}
			end := min(len(text), off+rng.Intn(3*colStride))
			rg := l.Range(Span{Start: off, End: end}, enc)
			if w := naivePosition(text, end, enc); rg.End != w || rg.Start != want {
				t.Fatalf("%v: Range(%d, %d) = %+v, want %+v to %+v", enc, off, end, rg, want, w)
			}
		}
	}
}

// naivePosition counts the line of off from its start.
func naivePosition(text []byte, off int, enc Encoding) Position {
	line, start := 0, 0
	for i := 0; i < off; i++ {
		if text[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	end := start
	for end < len(text) && text[end] != '\n' {
		end++
	}
	if end > start && text[end-1] == '\r' {
		end--
	}
	if !utf8.Valid(text) {
		panic("invalid text")
	}
	return Position{Line: line, Character: units(text[start:min(off, end)], enc)}
}

// BenchmarkOneLinePositions takes the position of every 20th byte of one
// line of n bytes, as the diagnostics of a minified JSON file do: the time
// per position must not grow with n (compare the sizes).
func BenchmarkOneLinePositions(b *testing.B) {
	for _, n := range []int{100_000, 400_000} {
		text := []byte(strings.Repeat(`"s":{"c":"x"},`, n/14))
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			for range b.N {
				l := NewLines(text)
				for off := 0; off < len(text); off += 20 {
					l.Range(Span{Start: off, End: off + 3}, UTF16)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(text)/20), "ns/position")
		})
	}
}
