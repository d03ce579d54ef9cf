package refs

import (
	"bytes"

	"github.com/ctxls/ctxls/providers/document"
)

// candidate marks the bytes at which a reference can be recognised in
// prose; every other byte is skipped at once.
var candidate = [256]bool{':': true, '(': true, ']': true, '<': true, '.': true}

// prose scans the body outside fences for key, call and path forms.
func (s *scanner) prose() {
	t := s.text
	mi := 0 // next comment
	for _, seg := range s.segs {
		i := seg.Start
		for i < seg.End {
			c := t[i]
			if !candidate[c] {
				i++
				continue
			}
			// Cheap rejections first: most '.' and '(' in prose start nothing.
			switch c {
			case '.':
				if i+3 > len(t) || t[i+1]|0x20 != 'm' || t[i+2]|0x20 != 'd' {
					i++
					continue
				}
			case '(':
				if i == 0 || !(isIdentByte(t[i-1]) || t[i-1] == ' ') {
					i++
					continue
				}
			case ']':
				if i+1 >= len(t) || (t[i+1] != '(' && t[i+1] != ':') {
					i++
					continue
				}
			}
			for mi < len(s.comments) && s.comments[mi].End <= i {
				mi++
			}
			if mi < len(s.comments) && s.comments[mi].Start <= i {
				i = s.comments[mi].End
				continue
			}
			code, inCode := s.codeAt(i)
			next := i + 1
			switch c {
			case ':':
				if end, ok := urlAt(t, i); ok {
					next = end
				} else if r, ok := s.keyAt(i, seg, code, inCode); ok {
					s.add(r)
					next = r.Span.End
				}
			case '(':
				limit := seg.End
				if inCode {
					limit = code.End
				}
				if r, ok := s.callAt(i, limit, max(seg.Start, code.Start)); ok {
					r.Where = s.whereProse(r.Span)
					s.add(r)
					next = max(next, r.Span.End)
				}
			case ']':
				if !inCode {
					next = s.linkAt(i, seg.End)
				}
			case '<':
				if !inCode {
					next = s.autolinkAt(i)
				}
			case '.':
				if !inCode {
					if r, ok := s.barePathAt(i, seg); ok {
						s.add(r)
						next = r.Span.End
					}
				}
			}
			i = max(next, i+1)
		}
	}
}

// urlAt reports whether the ':' at i belongs to a URL ("scheme://…") and
// returns the offset just after it.
func urlAt(t []byte, i int) (int, bool) {
	if i+2 >= len(t) || t[i+1] != '/' || t[i+2] != '/' {
		return 0, false
	}
	j := i
	for j > 0 && (isLetter(t[j-1]) || isDigit(t[j-1]) || t[j-1] == '+' || t[j-1] == '.' || t[j-1] == '-') {
		j--
	}
	if j == i || !isLetter(t[j]) {
		return 0, false
	}
	k := i + 3
	for k < len(t) && !urlStop(t[k]) {
		k++
	}
	return k, true
}

// urlStop reports whether c ends a bare URL.
func urlStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '<', '>', '"', '`', '|':
		return true
	}
	return false
}

// inURL reports whether off lies in a "scheme://" URL on its line.
func inURL(t []byte, off int) bool {
	ls := lineStart(t, off)
	for i := ls; i < off; {
		k := bytes.Index(t[i:off], []byte("://"))
		if k < 0 {
			return false
		}
		if end, ok := urlAt(t, i+k); ok && end >= off {
			return true
		} else if ok {
			i = end
		} else {
			i += k + 3
		}
	}
	return false
}

// domainBefore returns the start of the domain that ends at colon (the
// offset of ':'), or -1 when the text before it cannot be a domain.
func domainBefore(t []byte, colon, lo int) int {
	j := colon
	for j > lo && isDomainByte(t[j-1]) {
		j--
	}
	if j == colon || !isLetter(t[j]) || !keyBoundary(t, j) {
		return -1
	}
	return j
}

// topicRun returns the end of the key form topic that starts at p, before
// limit, with trailing sentence punctuation ('.', '-', '/') left out, and
// the end of the raw run. It returns p when no topic starts there.
func topicRun(t []byte, p, limit int) (end, raw int) {
	if p >= limit || !(isLetter(t[p]) || t[p] == '_') {
		return p, p
	}
	k := p
	for k < limit && isTopicByte(t[k]) {
		k++
	}
	raw = k
	for k > p && (t[k-1] == '.' || t[k-1] == '-' || t[k-1] == '/') {
		k--
	}
	return k, raw
}

// keyAt recognises a key form around the ':' at i.
func (s *scanner) keyAt(i int, seg, code document.Span, inCode bool) (Ref, bool) {
	if s.opts.IsDomain == nil {
		return Ref{}, false
	}
	t := s.text
	lo, limit := seg.Start, seg.End
	if inCode {
		lo, limit = code.Start, code.End
	}
	j := domainBefore(t, i, lo)
	if j < 0 {
		return Ref{}, false
	}
	end, raw := topicRun(t, i+1, limit)
	if end == i+1 {
		return Ref{}, false
	}
	domain := s.str(t[j:i])
	if !s.opts.IsDomain(domain) {
		return Ref{}, false
	}
	written := s.str(t[i+1 : end])
	r := Ref{
		Form:       KeyForm,
		Span:       document.Span{Start: j, End: end},
		Domain:     domain,
		DomainSpan: document.Span{Start: j, End: i},
		Topic:      dropMD(written),
	}
	r.TopicSpan = document.Span{Start: i + 1, End: i + 1 + len(r.Topic)}
	if end == raw && end+1 < limit && t[end] == '#' {
		start := end + 1
		var stop int
		switch {
		case inCode:
			stop = trimSpaceEnd(t, start, min(code.End, sectionLineEnd(t, start)))
		case j > 0 && (t[j-1] == '"' || t[j-1] == '\''):
			le := sectionLineEnd(t, start)
			if q := bytes.IndexByte(t[start:le], t[j-1]); q >= 0 {
				stop = trimSpaceEnd(t, start, start+q)
			} else {
				stop = s.proseSection(start, le, r.Domain, r.Topic)
			}
		default:
			stop = s.proseSection(start, sectionLineEnd(t, start), r.Domain, r.Topic)
		}
		if stop > start {
			r.Section = s.str(t[start:stop])
			r.SectionSpan = document.Span{Start: start, End: stop}
			r.Span.End = stop
		}
	}
	r.Where = s.whereProse(r.Span)
	return r, true
}

func trimSpaceEnd(t []byte, start, end int) int {
	for end > start && (t[end-1] == ' ' || t[end-1] == '\t' || t[end-1] == '\r' || t[end-1] == '\n') {
		end--
	}
	return end
}

// linkAt handles the ']' at i: the target of an inline link "](target)" or
// of a reference definition "[id]: target". It returns where scanning
// continues.
func (s *scanner) linkAt(i, limit int) int {
	t := s.text
	if t[i+1] == ':' {
		// A reference definition: "[label]:" opening its line.
		k := i - 1
		for k >= 0 && t[k] != '[' && t[k] != ']' && t[k] != '\n' {
			k--
		}
		if k < 0 || t[k] != '[' || k+1 == i {
			return i + 1
		}
		for b, n := k-1, 0; b >= 0 && t[b] != '\n'; b, n = b-1, n+1 {
			if t[b] != ' ' || n == 3 {
				return i + 1
			}
		}
	}
	p := i + 2
	if p < s.linkSkip {
		return i + 1
	}
	for p < limit && (t[p] == ' ' || t[p] == '\t') {
		p++
	}
	start, end := linkDest(t, p, limit)
	if end-start >= maxLinkDest {
		s.linkSkip = end
		return i + 1
	}
	if end <= start {
		return i + 1
	}
	// Only a destination in angle brackets may hold spaces.
	angled := start > 0 && t[start-1] == '<'
	if r, ok := pathRef(t, start, end, angled); ok {
		r.Where = Link
		s.add(r)
		return end
	}
	if bytes.Contains(t[start:end], []byte("://")) {
		return end
	}
	return i + 1
}

// maxLinkDest bounds the length of a link destination.
const maxLinkDest = 2048

// linkDest returns the destination of a link starting at p: the inside of
// "<…>" on one line, or a run without spaces whose parentheses balance. A
// destination is never read beyond maxLinkDest bytes.
func linkDest(t []byte, p, limit int) (start, end int) {
	limit = min(limit, p+maxLinkDest)
	if p < limit && t[p] == '<' {
		for k := p + 1; k < limit; k++ {
			switch t[k] {
			case '>':
				return p + 1, k
			case '<', '\n', '\r':
				return p, p
			}
		}
		return p, p
	}
	depth := 0
	k := p
	for ; k < limit; k++ {
		c := t[k]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		if c == '(' {
			depth++
		} else if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	return p, k
}

// autolinkAt handles the '<' at i: an autolink "<target>" on one line.
func (s *scanner) autolinkAt(i int) int {
	t := s.text
	k := i + 1
	for k < len(t) && t[k] != '>' && t[k] != '<' && t[k] != ' ' && t[k] != '\t' && t[k] != '\n' && t[k] != '\r' {
		k++
	}
	if k >= len(t) || t[k] != '>' || k == i+1 {
		return i + 1
	}
	if r, ok := pathRef(t, i+1, k, false); ok {
		r.Where = Link
		s.add(r)
		return k + 1
	}
	if hasScheme(t[i+1 : k]) {
		return k + 1
	}
	return i + 1
}

// barePathAt recognises a bare path token in prose whose ".md" starts at
// i, such as "../../context/python/common_issues.md".
func (s *scanner) barePathAt(i int, seg document.Span) (Ref, bool) {
	t := s.text
	k := i + 3
	if k < seg.End && t[k] == '#' {
		f := k + 1
		for f < seg.End && (isDomainByte(t[f])) {
			f++
		}
		if f > k+1 {
			k = f
		}
	}
	if k < seg.End && (isDomainByte(t[k]) || t[k] == '/') {
		return Ref{}, false
	}
	j := s.tokenStart(i, seg.Start)
	if i-j > maxBarePath {
		return Ref{}, false
	}
	for j < i && t[j] == '*' {
		j++
	}
	tok := t[j:k]
	if bytes.IndexByte(tok, '/') < 0 && !s.opts.BareNames || bytes.HasPrefix(tok, []byte("www.")) {
		return Ref{}, false
	}
	r, ok := pathRef(t, j, k, false)
	if !ok {
		return Ref{}, false
	}
	r.Where = Prose
	if s.inTable(j) {
		r.Where = Table
	}
	return r, true
}

// tokenStart returns the start of the token without delimiters that ends
// at i. It remembers the last answer, so that a line holding many ".md"
// without spaces is walked back over once, not once per ".md".
func (s *scanner) tokenStart(i, lo int) int {
	t := s.text
	j := i
	for j > lo && !pathDelim(t[j-1]) {
		if j == s.tokEnd && s.tokStart >= lo {
			s.tokEnd = i
			return s.tokStart
		}
		j--
	}
	s.tokStart, s.tokEnd = j, i
	return j
}

// maxBarePath bounds the length of a bare path token.
const maxBarePath = 1024

// pathDelim reports whether c separates a bare path token from its
// surroundings.
func pathDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '`', '"', '\'', '(', ')', '[', ']', '|', ',', ';':
		return true
	}
	return false
}

// codePaths recognises inline code spans whose whole content is a path to
// a markdown file, such as `../../context/index.md`.
func (s *scanner) codePaths() {
	t := s.text
	for _, c := range s.code {
		a, b := c.Start, c.End
		for a < b && t[a] == ' ' {
			a++
		}
		for b > a && t[b-1] == ' ' {
			b--
		}
		if b-a < 4 || t[b-1]|0x20 != 'd' && bytes.IndexByte(t[a:b], '#') < 0 {
			continue
		}
		if s.inComment(a) {
			continue
		}
		if r, ok := pathRef(t, a, b, false); ok {
			r.Where = InlineCode
			s.add(r)
		}
	}
}

// pathRef builds a path form reference from t[start:end] when it is a path
// to a markdown file: no scheme, no template placeholder ("{x}", "<x>"), no
// glob, and a path part ending in ".md". Spaces are allowed only when
// spaces says so.
func pathRef(t []byte, start, end int, spaces bool) (Ref, bool) {
	tok := t[start:end]
	if len(tok) < 4 || hasScheme(tok) || bytes.ContainsAny(tok, "{}<>*:\t\r\n\\") {
		return Ref{}, false
	}
	if !spaces && bytes.IndexByte(tok, ' ') >= 0 {
		return Ref{}, false
	}
	p := len(tok)
	if h := bytes.IndexByte(tok, '#'); h >= 0 {
		p = h
	}
	path := tok[:p]
	if len(path) < 4 || !bytes.EqualFold(path[len(path)-3:], []byte(".md")) || path[len(path)-4] == '/' {
		return Ref{}, false
	}
	r := Ref{
		Form:     PathForm,
		Span:     document.Span{Start: start, End: end},
		Path:     string(path),
		PathSpan: document.Span{Start: start, End: start + p},
	}
	if p < len(tok) {
		r.Fragment = string(tok[p+1:])
	}
	return r, true
}

// hasScheme reports whether b starts with a URL scheme such as "https:"
// or "mailto:".
func hasScheme(b []byte) bool {
	if len(b) == 0 || !isLetter(b[0]) {
		return false
	}
	for i := 1; i < len(b); i++ {
		c := b[i]
		if c == ':' {
			return i > 1 // "C:" is a drive letter, not a scheme
		}
		if !(isLetter(c) || isDigit(c) || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	return false
}
