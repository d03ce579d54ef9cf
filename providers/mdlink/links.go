package mdlink

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/ctxls/ctxls/providers/document"
)

// Link is a link destination of a markdown document.
type Link struct {
	// Span covers the destination as written.
	Span document.Span
	// Dest is the destination as written.
	Dest string
	// Path is the destination's path, URL-decoded; "" for a link to a
	// fragment of the document itself.
	Path string
	// Fragment is the URL-decoded fragment, without '#'; "" for none.
	Fragment string
	// HasFragment says that the destination has a '#'.
	HasFragment bool
	// Definition says that the link is a reference definition,
	// "[label]: dest".
	Definition bool
}

// maxDest bounds the length of a destination.
const maxDest = 2048

// Links returns the local links of doc's body, in order: inline links
// and images, and reference definitions, outside code blocks, code spans
// and HTML comments. Links with a scheme (https:, mailto:), from the root
// (/docs/x.md, which depends on where the file is published: a
// repository's host, a documentation site's base) and templates ({name},
// $VAR) are left out. The text of
// doc must be held.
func Links(doc *document.Doc) []Link {
	t := doc.Text
	skip := skipped(doc)
	var out []Link
	inSkip := func(off int) bool {
		for _, s := range skip {
			if off >= s.Start && off < s.End {
				return true
			}
		}
		return false
	}
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		line := doc.Lines.Line(n)
		if _, in := doc.InFence(start); in {
			continue
		}
		if l, ok := definition(line, start); ok && !inSkip(l.Span.Start) {
			out = append(out, l)
			continue
		}
		for i := 0; i+1 < len(line); i++ {
			if line[i] != ']' || line[i+1] != '(' || bytes.LastIndexByte(line[:i], '[') < 0 {
				continue
			}
			if inSkip(start + i) {
				continue
			}
			l, end, ok := inline(t, start+i+2, start+len(line))
			if ok {
				out = append(out, l)
				i = end - start - 1
			}
		}
	}
	return out
}

// inline reads the destination of an inline link after "](" at p, up to
// limit, and returns the offset after it.
func inline(t []byte, p, limit int) (Link, int, bool) {
	for p < limit && (t[p] == ' ' || t[p] == '\t') {
		p++
	}
	start, end := p, p
	angled := p < limit && t[p] == '<'
	if angled {
		k := bytes.IndexByte(t[p+1:limit], '>')
		if k < 0 {
			return Link{}, 0, false
		}
		start, end = p+1, p+1+k
		p = end + 1
	} else {
		depth := 0
		for end < limit && end-start < maxDest {
			c := t[end]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			if c == '\\' && end+1 < limit {
				end += 2
				continue
			}
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
			end++
		}
		p = end
	}
	// A title may follow; anything else means this is no link.
	for p < limit && (t[p] == ' ' || t[p] == '\t') {
		p++
	}
	if p >= limit || (t[p] != ')' && t[p] != '"' && t[p] != '\'' && t[p] != '(') || end == start {
		return Link{}, 0, false
	}
	l, ok := parseDest(string(t[start:end]), document.Span{Start: start, End: end})
	return l, end, ok
}

// definition reads a reference definition, "[label]: dest", opening line.
func definition(line []byte, start int) (Link, bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || line[i] != '[' {
		return Link{}, false
	}
	close := bytes.Index(line[i:], []byte("]:"))
	if close < 0 {
		return Link{}, false
	}
	label := line[i+1 : i+close]
	// Footnotes ([^1]: text) and alerts are no links.
	if len(label) == 0 || label[0] == '^' || label[0] == '!' || bytes.ContainsAny(label, "[]") {
		return Link{}, false
	}
	p := i + close + 2
	for p < len(line) && (line[p] == ' ' || line[p] == '\t') {
		p++
	}
	end := p
	if p < len(line) && line[p] == '<' {
		k := bytes.IndexByte(line[p+1:], '>')
		if k < 0 {
			return Link{}, false
		}
		p, end = p+1, p+1+k
	} else {
		for end < len(line) && line[end] != ' ' && line[end] != '\t' && line[end] != '\r' {
			end++
		}
	}
	if end == p {
		return Link{}, false
	}
	l, ok := parseDest(string(line[p:end]), document.Span{Start: start + p, End: start + end})
	l.Definition = true
	return l, ok
}

// parseDest splits a destination into its path and fragment, and reports
// whether it is a local link to check.
func parseDest(dest string, sp document.Span) (Link, bool) {
	if dest == "" || dest[0] == '/' || dest[0] == '[' || dest[0] == '(' || hasScheme(dest) || strings.ContainsAny(dest, "{}$<>`*|") {
		return Link{}, false
	}
	l := Link{Span: sp, Dest: dest}
	p := dest
	if h := strings.IndexByte(p, '#'); h >= 0 {
		l.HasFragment = true
		l.Fragment = unescape(p[h+1:], url.PathUnescape)
		p = p[:h]
	}
	if q := strings.IndexByte(p, '?'); q >= 0 {
		p = p[:q]
	}
	l.Path = unescape(strings.ReplaceAll(p, `\`, ""), url.PathUnescape)
	if l.Path == "" && !l.HasFragment {
		return Link{}, false
	}
	return l, true
}

func unescape(s string, f func(string) (string, error)) string {
	if u, err := f(s); err == nil {
		return u
	}
	return s
}

// hasScheme reports whether s starts with a URL scheme such as "https:".
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i > 1 // "C:" is a drive letter
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return false
}

// skipped returns the spans of the body whose text holds no links: code
// spans, HTML comments and indented code blocks.
func skipped(doc *document.Doc) []document.Span {
	t := doc.Text
	var out []document.Span
	// HTML comments, outside fences.
	for at := doc.Body.Start; at < len(t); {
		i := bytes.Index(t[at:], []byte("<!--"))
		if i < 0 {
			break
		}
		open := at + i
		if _, in := doc.InFence(open); in {
			at = open + 4
			continue
		}
		end := len(t)
		if j := bytes.Index(t[open+4:], []byte("-->")); j >= 0 {
			end = open + 4 + j + 3
		}
		out = append(out, document.Span{Start: open, End: end})
		at = end
	}
	// Code spans, paragraph by paragraph, and indented code blocks: lines
	// indented four columns after a blank line, outside a list.
	para := -1
	blank, inList, indented := true, false, false
	flush := func(end int) {
		if para >= 0 {
			out = append(out, document.CodeSpans(t, document.Span{Start: para, End: end})...)
		}
		para = -1
	}
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		line := doc.Lines.Line(n)
		if _, in := doc.InFence(start); in {
			flush(start)
			blank, indented = true, false
			continue
		}
		trim := bytes.TrimSpace(line)
		if len(trim) == 0 {
			flush(start)
			blank = true
			continue
		}
		lead := len(line) - len(bytes.TrimLeft(line, " \t"))
		deep := bytes.HasPrefix(line, []byte("    ")) || bytes.HasPrefix(line, []byte("\t"))
		if deep && !inList && (blank || indented) {
			flush(start)
			out = append(out, document.Span{Start: start, End: start + len(line)})
			indented, blank = true, false
			continue
		}
		indented = false
		if lead == 0 {
			inList = listItem(trim)
		} else if listItem(trim) {
			inList = true
		}
		if para < 0 {
			para = start
		}
		blank = false
	}
	flush(len(t))
	return out
}

// listItem reports whether a trimmed line opens a list item.
func listItem(trim []byte) bool {
	if len(trim) >= 2 && (trim[0] == '-' || trim[0] == '*' || trim[0] == '+') && trim[1] == ' ' {
		return true
	}
	i := 0
	for i < len(trim) && i < 9 && trim[i] >= '0' && trim[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(trim) && (trim[i] == '.' || trim[i] == ')') && trim[i+1] == ' '
}
