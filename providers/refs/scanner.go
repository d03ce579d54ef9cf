package refs

import (
	"bytes"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/document"
)

// scanner holds one document's text and the regions that decide how each
// part of it is read.
type scanner struct {
	doc  *document.Doc
	text []byte
	opts Options
	out  ListBuilder
	// segs are the parts of the body outside fenced code blocks, in order.
	segs []document.Span
	// code holds the contents of inline code spans, in order.
	code []document.Span
	// comments holds HTML comments ("<!--" to "-->" included), in order.
	comments []document.Span
	// tokStart and tokEnd remember the last bare token walked back over.
	tokStart, tokEnd int
	// linkSkip and callSkip mark the end of the last link destination or
	// call argument that ran to its length limit: no link or call starts
	// before them, so nested unclosed brackets cost linear time.
	linkSkip, callSkip int
	// prevAt is the last '[', ']' or newline before prevTo (-1 if none
	// is known); nextFrom and nextAt the first one at or after nextFrom.
	prevAt, prevTo, nextFrom, nextAt int
	// strs interns the names taken from the text: a library repeats the
	// same few domains and topics, and each copy would be garbage.
	strs map[string]string
}

// str returns b as a string, sharing one copy per distinct value.
func (s *scanner) str(b []byte) string {
	if v, ok := s.strs[string(b)]; ok {
		return v
	}
	if s.strs == nil {
		s.strs = make(map[string]string)
	}
	v := string(b)
	s.strs[v] = v
	return v
}

// add records r unless it is templated.
func (s *scanner) add(r Ref) {
	if !templated(r) {
		s.out.Add(r)
	}
}

func newScanner(doc *document.Doc, opts Options) *scanner {
	s := &scanner{doc: doc, text: doc.Text, opts: opts, prevAt: -1, nextFrom: -1}
	if opts.SizeHint > 0 {
		// A little room to grow: an edit usually adds a reference or none.
		s.out.Grow(opts.SizeHint + opts.SizeHint/16 + 4)
	}
	s.segments()
	s.codeSpans()
	s.htmlComments()
	return s
}

// segments splits the body into the parts between fenced code blocks.
func (s *scanner) segments() {
	start := s.doc.Body.Start
	for _, f := range s.doc.Fences {
		if f.Span.Start > start {
			s.segs = append(s.segs, document.Span{Start: start, End: f.Span.Start})
		}
		start = max(start, f.Span.End)
	}
	if start < len(s.text) {
		s.segs = append(s.segs, document.Span{Start: start, End: len(s.text)})
	}
}

// codeSpans finds inline code paragraph by paragraph: a code span never
// crosses a blank line, and an unmatched backtick must not make the search
// run through the rest of the file.
func (s *scanner) codeSpans() {
	t := s.text
	for _, seg := range s.segs {
		if bytes.IndexByte(t[seg.Start:seg.End], '`') < 0 {
			continue
		}
		para := -1
		hasTick := false
		for p := seg.Start; p < seg.End; {
			e := bytes.IndexByte(t[p:seg.End], '\n')
			next := seg.End
			if e >= 0 {
				next = p + e + 1
			}
			line := t[p:next]
			if len(bytes.TrimSpace(line)) == 0 {
				if para >= 0 && hasTick {
					s.code = append(s.code, document.CodeSpans(t, document.Span{Start: para, End: p})...)
				}
				para, hasTick = -1, false
			} else {
				if para < 0 {
					para = p
				}
				if bytes.IndexByte(line, '`') >= 0 {
					hasTick = true
				}
			}
			p = next
		}
		if para >= 0 && hasTick {
			s.code = append(s.code, document.CodeSpans(t, document.Span{Start: para, End: seg.End})...)
		}
	}
}

// htmlComments finds "<!-- … -->" outside fences and inline code. A comment
// opened at the start of a line and never closed runs to the end of the
// text, as an HTML block does; one opened mid-line and never closed is
// plain text.
func (s *scanner) htmlComments() {
	t := s.text
	end := 0
	noClose := false // no "-->" after the last "<!--" looked at
	for _, seg := range s.segs {
		p := max(seg.Start, end)
		for p < seg.End {
			k := bytes.Index(t[p:seg.End], []byte("<!--"))
			if k < 0 {
				break
			}
			open := p + k
			if _, in := s.codeAt(open); in {
				p = open + 4
				continue
			}
			c := -1
			if !noClose {
				c = bytes.Index(t[open+4:], []byte("-->"))
				noClose = c < 0
			}
			switch {
			case c >= 0:
				end = open + 4 + c + 3
			case atLineStart(t, open):
				end = len(t)
			default:
				p = open + 4
				continue
			}
			s.comments = append(s.comments, document.Span{Start: open, End: end})
			p = end
		}
	}
}

// atLineStart reports whether only spaces precede off on its line.
func atLineStart(t []byte, off int) bool {
	for i := off - 1; i >= 0 && t[i] != '\n'; i-- {
		if t[i] != ' ' && t[i] != '\t' {
			return false
		}
	}
	return true
}

// codeAt returns the inline code content span holding off.
func (s *scanner) codeAt(off int) (document.Span, bool) {
	return find(s.code, off)
}

// inComment reports whether off lies in an HTML comment.
func (s *scanner) inComment(off int) bool {
	_, ok := find(s.comments, off)
	return ok
}

// find returns the span of the sorted, disjoint list that holds off
// (end excluded).
func find(spans []document.Span, off int) (document.Span, bool) {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > off })
	if i < len(spans) && spans[i].Start <= off {
		return spans[i], true
	}
	return document.Span{}, false
}

// inTable reports whether off lies in a pipe table.
func (s *scanner) inTable(off int) bool {
	tabs := s.doc.Tables
	i := sort.Search(len(tabs), func(i int) bool { return tabs[i].Span.End > off })
	return i < len(tabs) && tabs[i].Span.Start <= off
}

// whereProse classifies a reference found outside frontmatter and fences.
func (s *scanner) whereProse(sp document.Span) Where {
	if _, ok := s.codeAt(sp.Start); ok {
		return InlineCode
	}
	if s.inLinkText(sp) {
		return Link
	}
	if s.inTable(sp.Start) {
		return Table
	}
	return Prose
}

// maxLinkText bounds how far around a reference the brackets of a link
// text are looked for.
const maxLinkText = 512

// inLinkText reports whether sp sits inside the "[text]" of a link on its
// line: an unclosed '[' before it and a "](" or "][" after it.
func (s *scanner) inLinkText(sp document.Span) bool {
	t := s.text
	k := s.prevBracket(sp.Start)
	if k < 0 || sp.Start-k > maxLinkText || t[k] != '[' {
		return false
	}
	k = s.nextBracket(sp.End)
	return k >= 0 && k+1 < len(t) && k-sp.End <= maxLinkText && t[k] == ']' && (t[k+1] == '(' || t[k+1] == '[')
}

func isBracket(c byte) bool { return c == '[' || c == ']' || c == '\n' }

// prevBracket returns the offset of the last '[', ']' or newline before x
// and not more than maxLinkText before it, or -1. References are looked
// up in text order, so the text is read about once in all.
func (s *scanner) prevBracket(x int) int {
	t := s.text
	if x < s.prevTo {
		for i := x - 1; i >= max(0, x-maxLinkText); i-- {
			if isBracket(t[i]) {
				return i
			}
		}
		return -1
	}
	from := s.prevTo
	if x-from > maxLinkText {
		from, s.prevAt = x-maxLinkText, -1
	}
	for i := from; i < x; i++ {
		if isBracket(t[i]) {
			s.prevAt = i
		}
	}
	s.prevTo = x
	return s.prevAt
}

// nextBracket returns the offset of the first '[', ']' or newline at or
// after x, or -1.
func (s *scanner) nextBracket(x int) int {
	if s.nextFrom >= 0 && x >= s.nextFrom && (x <= s.nextAt || s.nextAt < 0) {
		return s.nextAt
	}
	s.nextFrom, s.nextAt = x, -1
	if k := bytes.IndexAny(s.text[x:], "[]\n"); k >= 0 {
		s.nextAt = x + k
	}
	return s.nextAt
}

// lineEnd returns the offset of the end of the line holding off, before
// any "\r\n" or "\n".
func lineEnd(t []byte, off int) int {
	e := bytes.IndexByte(t[off:], '\n')
	if e < 0 {
		e = len(t)
	} else {
		e += off
	}
	if e > off && t[e-1] == '\r' {
		e--
	}
	return e
}

// maxSectionBytes bounds the length of a section name: the text after
// '#' is never read further, so a long line costs no more than a short one.
const maxSectionBytes = 256

// sectionLineEnd returns the end of the line holding off, but at most
// maxSectionBytes after off and never inside a UTF-8 sequence.
func sectionLineEnd(t []byte, off int) int {
	lim := min(len(t), off+maxSectionBytes)
	if e := bytes.IndexByte(t[off:lim], '\n'); e >= 0 {
		e += off
		if e > off && t[e-1] == '\r' {
			e--
		}
		return e
	}
	for lim > off && lim < len(t) && !utf8.RuneStart(t[lim]) {
		lim--
	}
	// A "\r" that ends the text ends the line, as document.Lines reads it.
	if lim == len(t) && lim > off && t[lim-1] == '\r' {
		lim--
	}
	return lim
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(t []byte, off int) int {
	return bytes.LastIndexByte(t[:off], '\n') + 1
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// isDomainByte reports whether c may appear in a domain name.
func isDomainByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '-' }

// isTopicByte reports whether c may appear in a topic of the key form.
func isTopicByte(c byte) bool { return isDomainByte(c) || c == '.' || c == '/' }

// isIdentByte reports whether c may appear in a function name.
func isIdentByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '$' }

// keyBoundary reports whether the text before offset j allows a key form
// to start at j: not a letter, digit or one of "_-./:@", so that URLs,
// "a.python:x", e-mail addresses and "10:30" are not references. Chinese
// and Japanese text is written without spaces, so a reference may follow
// an ideograph or kana directly.
func keyBoundary(t []byte, j int) bool {
	if j == 0 {
		return true
	}
	c := t[j-1]
	if c < utf8.RuneSelf {
		return !(isDomainByte(c) || c == '.' || c == '/' || c == ':' || c == '@')
	}
	r, _ := utf8.DecodeLastRune(t[:j])
	if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) {
		return true
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}
