// Package document parses one markdown file of a context library: its YAML
// frontmatter, ATX headings and the sections they open, fenced code blocks,
// pipe tables and footer metadata, converts between byte offsets and
// editor positions, and applies an editor's changes to a text.
//
// The parser is line-based and keeps the exact byte span of everything it
// finds, because every editor feature needs ranges, and a library of ten
// thousand files must parse in well under a second.
package document

import (
	"bytes"
	"context"
	"unicode/utf8"
)

// bom is the UTF-8 byte order mark, which editors hide and we strip.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Doc is a parsed markdown file. It is immutable once built and safe to
// share between goroutines.
type Doc struct {
	// Path is the file's absolute path (informational).
	Path string
	// Text is the content without a leading byte order mark, or nil once
	// Release dropped it: Content and Slice read it back.
	Text []byte
	// HasBOM reports whether the file on disk started with a byte order mark.
	HasBOM bool
	// Lines indexes Text.
	Lines *Lines
	// Frontmatter is the YAML block at the start, or nil.
	Frontmatter *Frontmatter
	// Body is the span after the frontmatter (the whole text without one).
	Body Span
	// Headings lists ATX headings outside code blocks, in order.
	Headings []Heading
	// Fences lists fenced code blocks, in order.
	Fences []Fence
	// Tables lists pipe tables outside code blocks, in order.
	Tables []Table
	// Footer holds metadata found in footer lines.
	Footer Footer

	rel *released // set by Release
}

// Heading is an ATX heading such as "## Security Issues".
type Heading struct {
	// Level is the number of '#' characters, 1 to 6.
	Level int
	// Text is the heading's text, trimmed, without closing '#'s.
	Text string
	// Line is the zero-based line of the heading.
	Line int
	// Span covers the whole heading line (without its terminator).
	Span Span
	// TextSpan covers Text.
	TextSpan Span
}

// Section is the part of a document opened by a heading of level two or
// deeper: it ends at the next heading of the same or a higher level, or at
// the end of the text.
type Section struct {
	Heading
	// Content spans from the heading line's start to the section's end.
	Content Span
}

// Fence is a fenced code block.
type Fence struct {
	// Info is the info string after the opening fence ("python", "shared").
	Info string
	// Span covers the block from the opening fence line to the end of the
	// closing fence line (or the end of the text when unclosed).
	Span Span
	// Inner covers the lines between the fences.
	Inner Span
}

// Footer holds the metadata that files without frontmatter carry in
// footer lines such as "**Version**: 0.3.0" or "*Last Updated: 2026-02-10*".
type Footer struct {
	Version       string
	LastUpdated   string
	MaintainedFor string
}

// Parse parses the content of the markdown file at path. It never fails:
// problems such as unparsable frontmatter are recorded in the result.
func Parse(path string, content []byte) *Doc {
	return parse(path, content, true)
}

// ParseOutline parses only what a file's outline needs: it is Parse
// without decoding the frontmatter's YAML (Frontmatter has its span and
// Root returns nil) and without footer metadata. Previews of a large
// library use it, where decoding every frontmatter would cost most of the
// time.
func ParseOutline(path string, content []byte) *Doc {
	return parse(path, content, false)
}

func parse(path string, content []byte, full bool) *Doc {
	d := &Doc{Path: path}
	if bytes.HasPrefix(content, bom) {
		content = content[len(bom):]
		d.HasBOM = true
	}
	d.Text = content
	d.Lines = NewLines(content)
	d.Body = Span{0, len(content)}
	first := 0
	if fm := parseFrontmatter(d, full); fm != nil {
		d.Frontmatter = fm
		d.Body.Start = fm.Span.End
		first = d.Lines.LineOf(fm.Span.End)
		if fm.Span.End == len(content) && len(content) > 0 && content[len(content)-1] != '\n' {
			first = d.Lines.Count()
		}
	}
	d.scanBlocks(first)
	// A library keeps every file's Doc: drop the spare capacity appending
	// left behind.
	d.Headings, d.Fences, d.Tables = exact(d.Headings), exact(d.Fences), exact(d.Tables)
	if full {
		d.Footer = parseFooter(d)
	}
	// The parse is done with the index of every line; the Doc keeps a
	// mark every few lines.
	d.Lines.compact()
	return d
}

// exact returns s in a slice of its own length, copying only when it has
// spare capacity.
func exact[S ~[]E, E any](s S) S {
	if cap(s) == len(s) {
		return s
	}
	return append(S(nil), s...)
}

// Title returns the text of the first level-one heading, or "".
func (d *Doc) Title() string {
	for _, h := range d.Headings {
		if h.Level == 1 {
			return h.Text
		}
	}
	return ""
}

// Sections returns every section opened by a heading of level two or
// deeper, in document order.
func (d *Doc) Sections() []Section {
	var out []Section
	for i, h := range d.Headings {
		if h.Level < 2 {
			continue
		}
		end := d.Len()
		for _, next := range d.Headings[i+1:] {
			if next.Level <= h.Level {
				end = d.Lines.Start(next.Line)
				break
			}
		}
		out = append(out, Section{Heading: h, Content: Span{d.Lines.Start(h.Line), end}})
	}
	return out
}

// InFence reports whether byte offset off lies inside a fenced code block,
// fence lines included, and returns that block.
func (d *Doc) InFence(off int) (Fence, bool) {
	lo, hi := 0, len(d.Fences)
	for lo < hi {
		m := (lo + hi) / 2
		f := d.Fences[m]
		switch {
		case off < f.Span.Start:
			hi = m
		case off >= f.Span.End:
			lo = m + 1
		default:
			return f, true
		}
	}
	return Fence{}, false
}

// InFrontmatter reports whether byte offset off lies inside the frontmatter
// block, delimiters included.
func (d *Doc) InFrontmatter(off int) bool {
	return d.Frontmatter != nil && off >= d.Frontmatter.Span.Start && off < d.Frontmatter.Span.End
}

// Slice returns the text covered by s, clamped to the document. A released
// document reads its text back; when that fails (see Content) Slice
// returns nil.
func (d *Doc) Slice(s Span) []byte {
	text := d.Text
	if d.rel != nil {
		var err error
		if text, err = d.Content(context.Background()); err != nil {
			return nil
		}
	}
	s = d.clamp(s)
	return text[s.Start:s.End]
}

func (d *Doc) clamp(s Span) Span {
	n := d.Len()
	s.Start = min(max(s.Start, 0), n)
	s.End = min(max(s.End, s.Start), n)
	return s
}

// IsBinary reports whether content looks like binary data rather than text:
// it holds a NUL byte or is mostly not valid UTF-8 in its first 8 KiB.
func IsBinary(content []byte) bool {
	head := content
	if len(head) > 8192 {
		head = head[:8192]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			// A multi-byte character cut at the 8 KiB boundary is not a sign.
			if len(head)-i < utf8.UTFMax && len(content) > len(head) {
				break
			}
			bad++
		}
		i += size
	}
	return bad*10 > len(head)
}
