package document

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"
)

// Encoding is the unit in which a Position's Character counts.
type Encoding int

const (
	// UTF16 counts UTF-16 code units, the LSP default.
	UTF16 Encoding = iota
	// UTF8 counts bytes.
	UTF8
	// UTF32 counts Unicode code points.
	UTF32
)

// String returns the LSP name of the encoding ("utf-16", "utf-8", "utf-32").
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	default:
		return "utf-16"
	}
}

// Position is a zero-based line and a character offset within that line,
// counted in some Encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open range between two positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Span is a half-open byte range [Start, End) in a document's text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of bytes in the span.
func (s Span) Len() int { return s.End - s.Start }

// Contains reports whether the byte offset off lies within the span. The end
// offset counts as inside, so a cursor just after a word still touches it.
func (s Span) Contains(off int) bool { return off >= s.Start && off <= s.End }

// Lines indexes the start offset of every line of a text so that byte
// offsets and positions convert in O(log n).
type Lines struct {
	text []byte
	// starts holds 32-bit offsets, half the size of ints: a library keeps
	// the index of every file, and no file it indexes nears 4 GiB (see
	// maxLinesText).
	starts []uint32
}

// maxLinesText is the largest text whose offsets fit starts.
const maxLinesText = 1<<32 - 1

// NewLines indexes text. Lines end at "\n"; a preceding "\r" belongs to the
// line terminator, not to the line's characters. It panics for a text of
// 4 GiB or more.
func NewLines(text []byte) *Lines {
	if uint64(len(text)) > maxLinesText {
		panic("document: text too large to index")
	}
	// Counting first sizes the index exactly: it lives as long as the text.
	starts := make([]uint32, 1, bytes.Count(text, []byte{'\n'})+1)
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, uint32(i+1))
		}
	}
	return &Lines{text: text, starts: starts}
}

// Count returns the number of lines (a text without a trailing newline still
// has its last line; an empty text has one empty line).
func (l *Lines) Count() int { return len(l.starts) }

// Start returns the byte offset at which line n starts.
func (l *Lines) Start(n int) int {
	if n < 0 {
		return 0
	}
	if n >= len(l.starts) {
		return len(l.text)
	}
	return int(l.starts[n])
}

// End returns the byte offset at which line n's content ends, excluding the
// "\n" or "\r\n" terminator.
func (l *Lines) End(n int) int {
	if n < 0 {
		return 0
	}
	if n >= len(l.starts) {
		return len(l.text)
	}
	start, end := int(l.starts[n]), len(l.text)
	if n+1 < len(l.starts) {
		end = int(l.starts[n+1]) - 1
	}
	if end > start && l.text[end-1] == '\r' {
		end--
	}
	return end
}

// Line returns the content of line n without its terminator.
func (l *Lines) Line(n int) []byte { return l.text[l.Start(n):l.End(n)] }

// LineOf returns the zero-based line holding byte offset off.
func (l *Lines) LineOf(off int) int {
	if off <= 0 {
		return 0
	}
	return sort.Search(len(l.starts), func(i int) bool { return int(l.starts[i]) > off }) - 1
}

// Position converts a byte offset into a position in the given encoding.
// Offsets beyond the text clamp to its end; an offset inside a multi-byte
// character counts from that character's start.
func (l *Lines) Position(off int, enc Encoding) Position {
	if off > len(l.text) {
		off = len(l.text)
	}
	if off < 0 {
		off = 0
	}
	line := l.LineOf(off)
	start := int(l.starts[line])
	if end := l.End(line); off > end {
		off = end
	}
	return Position{Line: line, Character: units(l.text[start:off], enc)}
}

// Range converts a byte span into a range in the given encoding.
func (l *Lines) Range(s Span, enc Encoding) Range {
	return Range{Start: l.Position(s.Start, enc), End: l.Position(s.End, enc)}
}

// Offset converts a position into a byte offset. A line beyond the text is
// an error; a character beyond the end of its line clamps to the line's end,
// as LSP requires, and a character inside a surrogate pair or a multi-byte
// sequence rounds down to the character's start.
func (l *Lines) Offset(p Position, enc Encoding) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("position %d:%d is negative", p.Line, p.Character)
	}
	if p.Line >= len(l.starts) {
		return 0, fmt.Errorf("line %d is beyond the last line %d", p.Line, len(l.starts)-1)
	}
	start, end := int(l.starts[p.Line]), l.End(p.Line)
	n, i := 0, start
	for i < end {
		r, size := utf8.DecodeRune(l.text[i:end])
		w := width(r, size, enc)
		if n+w > p.Character {
			break
		}
		n += w
		i += size
	}
	return i, nil
}

// units counts the characters of b in the given encoding.
func units(b []byte, enc Encoding) int {
	if enc == UTF8 {
		return len(b)
	}
	n := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		n += width(r, size, enc)
		i += size
	}
	return n
}

func width(r rune, size int, enc Encoding) int {
	switch enc {
	case UTF8:
		return size
	case UTF32:
		return 1
	default:
		if r >= 0x10000 && r != utf8.RuneError {
			return 2
		}
		return 1
	}
}
