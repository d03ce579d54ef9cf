package document

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
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

// Lines indexes the lines of a text so that byte offsets and positions
// convert in O(log n). NewLines keeps the start of every line; compact
// keeps only every linesPerMark-th, and the others are found by looking
// for newlines from there: a library keeps the index of every file, and an
// offset per line took a quarter of the size of the text.
type Lines struct {
	text []byte
	// starts holds the start offset of every line, or nil once compact;
	// marks that of lines 0, linesPerMark, 2*linesPerMark, …, once
	// compact. Both are 32 bits: no file a library indexes nears 4 GiB
	// (see maxLinesText).
	starts []uint32
	marks  []uint32
	count  int
	// doc is the document that released text, whose Content reads it
	// back; nil while text is held.
	doc *Doc
	// cols marks the character counts along long lines, made when a
	// position on one is first asked for; copies of l share it.
	cols *columnMarks
}

// colStride is the length from which a line's character counts are
// marked, and the distance between marks: a position on a line of a
// megabyte (a minified JSON file) counts at most that many bytes, not the
// line up to it, so that the positions of all the diagnostics of the line
// take time linear in it.
const colStride = 1024

// columnMarks holds, for each long line asked about, its column marks,
// and for a compact index, the line starts of each long group of lines
// asked about (see Lines.groupStarts).
type columnMarks struct {
	mu     sync.Mutex
	lines  map[int][]colMark
	groups map[int][]uint32
}

// colMark is a byte offset that starts a character, and the number of
// UTF-16 and UTF-32 units of its line before it.
type colMark struct {
	off, c16, c32 uint32
}

// marks returns the column marks of the line of t between start and end,
// making them the first time: one every colStride bytes, the first at the
// line's start.
func (c *columnMarks) marks(t []byte, line, start, end int) []colMark {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.lines[line]; ok {
		return m
	}
	m := make([]colMark, 1, (end-start)/colStride+1)
	m[0] = colMark{off: uint32(start)}
	var c16, c32 uint32
	next := start + colStride
	for i := start; i < end; {
		if i >= next {
			m = append(m, colMark{off: uint32(i), c16: c16, c32: c32})
			next = i + colStride
		}
		if t[i] < utf8.RuneSelf {
			c16, c32, i = c16+1, c32+1, i+1
			continue
		}
		r, size := utf8.DecodeRune(t[i:end])
		c16 += uint32(width(r, size, UTF16))
		c32++
		i += size
	}
	if c.lines == nil {
		c.lines = map[int][]colMark{}
	}
	c.lines[line] = m
	return m
}

// lineUnits counts the characters of t between start, the start of line
// n, and off, at most end, the end of its content.
func (l *Lines) lineUnits(t []byte, n, start, end, off int, enc Encoding) int {
	if enc == UTF8 || off-start < colStride || l.cols == nil {
		return units(t[start:off], enc)
	}
	m := l.cols.marks(t, n, start, end)
	i := sort.Search(len(m), func(i int) bool { return int(m[i].off) > off }) - 1
	base := m[i].c16
	if enc == UTF32 {
		base = m[i].c32
	}
	return int(base) + units(t[m[i].off:off], enc)
}

// linesPerMark is how many lines a mark of a compact Lines stands for: a
// look-up reads at most that many lines of text.
const linesPerMark = 16

// maxLinesText is the largest text whose offsets fit starts.
const maxLinesText = 1<<32 - 1

// NewLines indexes text. Lines end at "\n"; a preceding "\r" belongs to the
// line terminator, not to the line's characters. It panics for a text of
// 4 GiB or more.
func NewLines(text []byte) *Lines {
	if uint64(len(text)) > maxLinesText {
		panic("document: text too large to index")
	}
	// Counting first sizes the index exactly.
	starts := make([]uint32, 1, bytes.Count(text, []byte{'\n'})+1)
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, uint32(i+1))
		}
	}
	return &Lines{text: text, starts: starts, count: len(starts), cols: new(columnMarks)}
}

// compact drops the start of every line but one in linesPerMark. It is for
// an index not yet shared: a parse compacts the index of its Doc when done.
func (l *Lines) compact() {
	if l.starts == nil {
		return
	}
	marks := make([]uint32, 0, (len(l.starts)+linesPerMark-1)/linesPerMark)
	for n := 0; n < len(l.starts); n += linesPerMark {
		marks = append(marks, l.starts[n])
	}
	l.marks, l.starts = marks, nil
}

// Count returns the number of lines (a text without a trailing newline still
// has its last line; an empty text has one empty line).
func (l *Lines) Count() int { return l.count }

// txt returns the indexed text, read back when its document released it.
// ok is false when that read failed: the callers then answer from the
// marks alone, coarsely, rather than from a text the index does not
// describe.
func (l *Lines) txt() (text []byte, ok bool) {
	if l.doc == nil {
		return l.text, true
	}
	text, err := l.doc.Content(context.Background())
	return text, err == nil
}

// size returns the length of the indexed text, held or not.
func (l *Lines) size() int {
	if l.doc != nil {
		return l.doc.Len()
	}
	return len(l.text)
}

// Start returns the byte offset at which line n starts.
func (l *Lines) Start(n int) int {
	if n < 0 {
		return 0
	}
	if n >= l.count {
		return l.size()
	}
	if l.starts != nil {
		return int(l.starts[n])
	}
	t, ok := l.txt()
	if !ok {
		return int(l.marks[n/linesPerMark])
	}
	return l.start(t, n)
}

// start is Start for 0 <= n < l.count, on the indexed text t.
func (l *Lines) start(t []byte, n int) int {
	if l.starts != nil {
		return int(l.starts[n])
	}
	g := n / linesPerMark
	if gs := l.groupStarts(t, g); gs != nil {
		return int(gs[n%linesPerMark])
	}
	off := int(l.marks[g])
	for range n % linesPerMark {
		off += bytes.IndexByte(t[off:], '\n') + 1
	}
	return off
}

// groupStarts returns the starts of the lines of group g of a compact
// index (lines g*linesPerMark on) when the group spans colStride bytes or
// more, found once; nil for a shorter group, whose lines are found by
// looking for newlines from its mark. A look-up in a long group would
// otherwise read up to the whole group, and the positions of a file of
// one long line would take time quadratic in it.
func (l *Lines) groupStarts(t []byte, g int) []uint32 {
	from, to := int(l.marks[g]), len(t)
	if g+1 < len(l.marks) {
		to = int(l.marks[g+1])
	}
	if to-from < colStride || l.cols == nil {
		return nil
	}
	c := l.cols
	c.mu.Lock()
	defer c.mu.Unlock()
	if gs, ok := c.groups[g]; ok {
		return gs
	}
	gs := make([]uint32, 1, linesPerMark)
	gs[0] = uint32(from)
	for off := from; len(gs) < linesPerMark && g*linesPerMark+len(gs) < l.count; {
		off += bytes.IndexByte(t[off:], '\n') + 1
		gs = append(gs, uint32(off))
	}
	if c.groups == nil {
		c.groups = map[int][]uint32{}
	}
	c.groups[g] = gs
	return gs
}

// end is End for 0 <= n < l.count, on the indexed text t, for the line
// that starts at start: found from the start of the next line, not by
// reading the line.
func (l *Lines) end(t []byte, n, start int) int {
	e := len(t)
	if n+1 < l.count {
		e = l.start(t, n+1) - 1
	}
	if e > start && t[e-1] == '\r' {
		e--
	}
	return e
}

// End returns the byte offset at which line n's content ends, excluding the
// "\n" or "\r\n" terminator.
func (l *Lines) End(n int) int {
	if n < 0 {
		return 0
	}
	if n >= l.count {
		return l.size()
	}
	t, ok := l.txt()
	if !ok {
		return l.Start(n)
	}
	return l.end(t, n, l.start(t, n))
}

// end returns the end of the content of the line of t that starts at start.
func lineEnd(t []byte, start int) int {
	e := len(t)
	if i := bytes.IndexByte(t[start:], '\n'); i >= 0 {
		e = start + i
	}
	if e > start && t[e-1] == '\r' {
		e--
	}
	return e
}

// Line returns the content of line n without its terminator, or nil when
// a released text cannot be read back.
func (l *Lines) Line(n int) []byte {
	t, ok := l.txt()
	if !ok {
		return nil
	}
	if n < 0 {
		return t[:0]
	}
	if n >= l.count {
		return t[len(t):]
	}
	start := l.start(t, n)
	return t[start:l.end(t, n, start)]
}

// LineOf returns the zero-based line holding byte offset off.
func (l *Lines) LineOf(off int) int {
	if off <= 0 {
		return 0
	}
	if l.starts != nil {
		return l.lineOf(nil, off)
	}
	t, ok := l.txt()
	if !ok {
		off = min(off, l.size())
		return (sort.Search(len(l.marks), func(i int) bool { return int(l.marks[i]) > off }) - 1) * linesPerMark
	}
	return l.lineOf(t, off)
}

// lineOf is LineOf for off > 0 on the indexed text t.
func (l *Lines) lineOf(t []byte, off int) int {
	off = min(off, l.size())
	if l.starts != nil {
		return sort.Search(len(l.starts), func(i int) bool { return int(l.starts[i]) > off }) - 1
	}
	m := sort.Search(len(l.marks), func(i int) bool { return int(l.marks[i]) > off }) - 1
	if gs := l.groupStarts(t, m); gs != nil {
		return m*linesPerMark + sort.Search(len(gs), func(i int) bool { return int(gs[i]) > off }) - 1
	}
	return m*linesPerMark + bytes.Count(t[l.marks[m]:off], []byte{'\n'})
}

// Position converts a byte offset into a position in the given encoding.
// Offsets beyond the text clamp to its end; an offset inside a multi-byte
// character counts from that character's start.
func (l *Lines) Position(off int, enc Encoding) Position {
	t, ok := l.txt()
	if !ok {
		return Position{Line: l.LineOf(off)}
	}
	return l.position(t, off, enc)
}

func (l *Lines) position(t []byte, off int, enc Encoding) Position {
	p, _ := l.positionEnd(t, off, enc)
	return p
}

// positionEnd is position, and the end of the content of the position's
// line.
func (l *Lines) positionEnd(t []byte, off int, enc Encoding) (Position, int) {
	off = min(max(off, 0), len(t))
	line := 0
	if off > 0 {
		line = l.lineOf(t, off)
	}
	start := l.start(t, line)
	e := l.end(t, line, start)
	off = min(off, e)
	return Position{Line: line, Character: l.lineUnits(t, line, start, e, off, enc)}, e
}

// Range converts a byte span into a range in the given encoding.
func (l *Lines) Range(s Span, enc Encoding) Range {
	t, ok := l.txt()
	if !ok {
		return Range{Start: Position{Line: l.LineOf(s.Start)}, End: Position{Line: l.LineOf(s.End)}}
	}
	start, e := l.positionEnd(t, s.Start, enc)
	// A span within one line (most are) ends where it starts plus its own
	// width: no second look-up of the line. The start must begin a
	// character, so that counting from it counts what counting the line
	// from its start would.
	if 0 <= s.Start && s.Start <= s.End && s.End <= e && s.End-s.Start < colStride && (s.Start == len(t) || utf8.RuneStart(t[s.Start])) {
		return Range{Start: start, End: Position{Line: start.Line, Character: start.Character + units(t[s.Start:s.End], enc)}}
	}
	return Range{Start: start, End: l.position(t, s.End, enc)}
}

// Offset converts a position into a byte offset. A line beyond the text is
// an error; a character beyond the end of its line clamps to the line's end,
// as LSP requires, and a character inside a surrogate pair or a multi-byte
// sequence rounds down to the character's start. A released text that
// cannot be read back is an error too.
func (l *Lines) Offset(p Position, enc Encoding) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("position %d:%d is negative", p.Line, p.Character)
	}
	if p.Line >= l.count {
		return 0, fmt.Errorf("line %d is beyond the last line %d", p.Line, l.count-1)
	}
	t, err := l.text, error(nil)
	if l.doc != nil {
		if t, err = l.doc.Content(context.Background()); err != nil {
			return 0, err
		}
	}
	start := l.start(t, p.Line)
	e := l.end(t, p.Line, start)
	n, i := 0, start
	for i < e {
		r, size := utf8.DecodeRune(t[i:e])
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
		if b[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
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
