// Package imports finds the @path imports of Claude Code memory files
// (CLAUDE.md and the files it pulls in), resolves them as the agent does,
// and builds the import tree a session loads: each file with its hop from
// the memory file, its size and its token cost, and every import the agent
// would not load (missing, cut by trailing punctuation, in a cycle, past
// the depth limit, outside the project).
package imports

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/document"
)

// Kind says how an import's path is written.
type Kind int

// Kinds of import paths.
const (
	// Relative paths resolve against the importing file's folder.
	Relative Kind = iota
	// Home paths start with "~/" and name a file of the user's.
	Home
	// Absolute paths start with "/".
	Absolute
)

func (k Kind) String() string {
	switch k {
	case Home:
		return "home"
	case Absolute:
		return "absolute"
	}
	return "relative"
}

// Import is one @path import written in a file.
type Import struct {
	// Path is the path as the agent reads it: escaped spaces ("\ ")
	// unescaped, trailing punctuation included.
	Path string
	// Span covers the import in the file's text, from '@' to the end of
	// the path as written.
	Span document.Span
	// Trailing is the punctuation at the end of Path (from ":,;)"), which
	// the agent takes as part of the file name, so that it looks for a
	// file that is not there and skips the import without a word.
	Trailing string
}

// Clean returns the path without its trailing punctuation: the file the
// writer meant.
func (im Import) Clean() string { return im.Path[:len(im.Path)-len(im.Trailing)] }

// PathSpan covers the path without '@' and without trailing punctuation.
func (im Import) PathSpan() document.Span {
	return document.Span{Start: im.Span.Start + 1, End: im.Span.End - len(im.Trailing)}
}

// Kind reports how the path is written.
func (im Import) Kind() Kind {
	switch {
	case len(im.Path) >= 2 && im.Path[:2] == "~/":
		return Home
	case len(im.Path) > 0 && im.Path[0] == '/':
		return Absolute
	}
	return Relative
}

// trailingPunct holds the characters that, ending a path, make the agent
// miss the file: the sentence goes on ("see @guide.md: ...") but the path
// runs to the next space.
const trailingPunct = ":,;)"

// Scan returns the imports of a parsed markdown file, in order. Like
// Claude Code it reads an import as '@' at the start of the text or after
// white space, followed by a path that runs to the next white space (a
// backslash escapes a space); it skips the frontmatter, fenced code blocks
// and inline code spans, and paths that cannot be files (such as "@#x" or
// "@@x"). An '@' inside a word, as in an e-mail address, is no import.
//
// A released document whose text cannot be read back has no imports.
func Scan(doc *document.Doc) []Import {
	doc, err := doc.Held(context.Background())
	if err != nil {
		return nil
	}
	var out []Import
	for _, region := range proseRegions(doc) {
		out = scanRegion(doc.Text, region, out)
	}
	return out
}

// proseRegions returns the spans of the body outside fenced blocks and
// inline code spans, in order.
func proseRegions(doc *document.Doc) []document.Span {
	var blocks []document.Span
	at := doc.Body.Start
	for _, f := range doc.Fences {
		if f.Span.End <= at {
			continue
		}
		if f.Span.Start > at {
			blocks = append(blocks, document.Span{Start: at, End: f.Span.Start})
		}
		at = f.Span.End
	}
	if at < doc.Body.End {
		blocks = append(blocks, document.Span{Start: at, End: doc.Body.End})
	}
	var out []document.Span
	for _, b := range blocks {
		for _, p := range paragraphs(doc.Text, b) {
			at := p.Start
			for _, c := range document.CodeSpans(doc.Text, p) {
				// c covers the inside; the backtick runs lie just outside.
				open, close := c.Start, c.End
				for open > at && doc.Text[open-1] == '`' {
					open--
				}
				for close < p.End && doc.Text[close] == '`' {
					close++
				}
				if open > at {
					out = append(out, document.Span{Start: at, End: open})
				}
				at = close
			}
			if at < p.End {
				out = append(out, document.Span{Start: at, End: p.End})
			}
		}
	}
	return out
}

// paragraphs splits s at blank lines: a code span never crosses one, so
// an unmatched backtick must not hide the rest of the file.
func paragraphs(text []byte, s document.Span) []document.Span {
	var out []document.Span
	start := s.Start
	lineStart := s.Start
	for i := s.Start; i <= s.End; i++ {
		if i < s.End && text[i] != '\n' {
			continue
		}
		blank := true
		for _, c := range text[lineStart:i] {
			if c != ' ' && c != '\t' && c != '\r' {
				blank = false
				break
			}
		}
		if blank {
			if lineStart > start {
				out = append(out, document.Span{Start: start, End: lineStart})
			}
			start = min(i+1, s.End)
		}
		lineStart = i + 1
	}
	if start < s.End {
		out = append(out, document.Span{Start: start, End: s.End})
	}
	return out
}

// scanRegion appends the imports in text[r.Start:r.End]. The start of a
// region counts as white space: it is the start of the text, a line, or
// the place where a code span or a fence ended.
func scanRegion(text []byte, r document.Span, out []Import) []Import {
	prevSpace := true
	for i := r.Start; i < r.End; {
		c, w := rune(text[i]), 1
		if c >= utf8.RuneSelf {
			c, w = utf8.DecodeRune(text[i:r.End])
		}
		if c == '@' && prevSpace {
			end := pathEnd(text, i+1, r.End)
			if raw := text[i+1 : end]; len(raw) > 0 {
				if im, ok := newImport(raw, document.Span{Start: i, End: end}); ok {
					out = append(out, im)
				}
			}
			i, prevSpace = end, false
			continue
		}
		prevSpace = isSpace(c)
		i += w
	}
	return out
}

// pathEnd returns where a path starting at i ends: at white space, at a
// backslash that escapes no space, or at limit.
func pathEnd(text []byte, i, limit int) int {
	for i < limit {
		c, w := rune(text[i]), 1
		if c >= utf8.RuneSelf {
			c, w = utf8.DecodeRune(text[i:limit])
		}
		switch {
		case c == '\\':
			if i+1 < limit && text[i+1] == ' ' {
				i += 2
				continue
			}
			return i
		case isSpace(c):
			return i
		}
		i += w
	}
	return i
}

// newImport builds the import of raw, the text after '@', or reports that
// the agent would not take it for a path.
func newImport(raw []byte, span document.Span) (Import, bool) {
	path := unescape(raw)
	if !validPath(path) {
		return Import{}, false
	}
	im := Import{Path: path, Span: span}
	n := len(path)
	for n > 0 && strings.IndexByte(trailingPunct, path[n-1]) >= 0 {
		n--
	}
	// Only flag punctuation after something that is itself a path: "@)"
	// or "@:" alone is no import at all.
	if n < len(path) && validPath(path[:n]) {
		im.Trailing = path[n:]
	}
	return im, true
}

// validPath reports whether the agent treats p as a file path: "./",
// "~/" or "/" followed by something, or a name starting with a letter,
// digit, '.', '_' or '-'.
func validPath(p string) bool {
	switch {
	case p == "" || p == "/":
		return false
	case len(p) >= 2 && (p[:2] == "./" || p[:2] == "~/"):
		return true
	case p[0] == '/':
		return true
	}
	c := p[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

func unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) && raw[i+1] == ' ' {
			continue
		}
		out = append(out, raw[i])
	}
	return string(out)
}

// isSpace is unicode.IsSpace with a fast path for ASCII.
func isSpace(c rune) bool {
	if c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
	}
	return unicode.IsSpace(c)
}
