package refs

import (
	"bytes"
	"context"

	"github.com/ctxls/ctxls/providers/document"
)

// CompletionKind says what kind of name is being typed.
type CompletionKind int

const (
	// CompleteDomain: a domain name.
	CompleteDomain CompletionKind = iota
	// CompleteTopic: a topic of Completion.Domain.
	CompleteTopic
	// CompleteSection: a section of Completion.Domain/Completion.Topic.
	CompleteSection
)

// String returns "domain", "topic" or "section".
func (k CompletionKind) String() string {
	switch k {
	case CompleteDomain:
		return "domain"
	case CompleteTopic:
		return "topic"
	case CompleteSection:
		return "section"
	}
	return "unknown"
}

// Completion describes the name being typed at a cursor.
type Completion struct {
	Kind CompletionKind
	// Domain and Topic are the parts already known: the domain for a
	// topic, the domain and topic for a section.
	Domain, Topic string
	// Prefix is what is typed so far of the part being completed.
	Prefix string
	// Replace is the span a chosen item replaces: the partial name,
	// possibly empty, including any part of it after the cursor.
	Replace document.Span
	// Form is the form being typed: KeyForm, CallForm, IDForm (a
	// frontmatter list) or DomainForm (a domain-only call).
	Form Form
	// Quoted reports a cursor inside a string literal (call form or quoted
	// YAML).
	Quoted bool
}

// CompletionAt tells what is being typed at byte offset off: a topic after
// "domain:" (known domains only), a section after "domain:topic#", a domain
// as a bare word in prose, the domain or topic string of a call form (also
// inside fenced code blocks), or an entry of a frontmatter context,
// crossDomainTriggers or indexedFiles id list. It reports false inside
// HTML comments, URLs and other fenced code.
func CompletionAt(doc *document.Doc, off int, opts Options) (Completion, bool) {
	if doc == nil || off < 0 || off > doc.Len() {
		return Completion{}, false
	}
	doc, err := doc.Held(context.Background())
	if err != nil {
		return Completion{}, false
	}
	if doc.InFrontmatter(off) {
		return frontmatterCompletion(doc, off)
	}
	s := newScanner(doc, opts)
	if s.inComment(off) {
		return Completion{}, false
	}
	if c, ok, inCall := s.callCompletion(off); inCall {
		return c, ok
	}
	if _, ok := doc.InFence(off); ok {
		return Completion{}, false
	}
	if inURL(s.text, off) {
		return Completion{}, false
	}
	return s.keyCompletion(off)
}

// callCompletion reports a cursor inside a string argument of a known
// call. inCall reports a cursor anywhere inside a known call's arguments,
// where no other completion applies.
func (s *scanner) callCompletion(off int) (c Completion, ok, inCall bool) {
	t := s.text
	l := s.doc.Lines
	lo := max(l.Start(l.LineOf(off)-callLines), s.doc.Body.Start, off-callBytes)
	if f, in := s.doc.InFence(off); in {
		lo = max(lo, f.Inner.Start)
	} else if code, in := s.codeAt(off); in {
		lo = max(lo, code.Start)
	}
	for p := off; p > lo; {
		k := bytes.LastIndexByte(t[lo:p], '(')
		if k < 0 {
			break
		}
		paren := lo + k
		p = paren
		_, sig, _, known := callName(t, paren, lo)
		if !known {
			continue
		}
		a := argAt(t, paren+1, off)
		if !a.open {
			continue
		}
		if a.str < 0 {
			return Completion{}, false, true
		}
		c = Completion{Prefix: string(t[a.str:off]), Quoted: true, Form: CallForm}
		c.Replace = document.Span{Start: a.str, End: stringRest(t, a.str, off)}
		switch {
		case a.idx == sig.domain:
			c.Kind = CompleteDomain
			if sig.topic < 0 {
				c.Form = DomainForm
			}
		case a.idx == sig.topic:
			d, lit := a.lits[sig.domain]
			if !lit || d == "" {
				return Completion{}, false, true
			}
			c.Kind, c.Domain = CompleteTopic, d
		default:
			return Completion{}, false, true
		}
		return c, true, true
	}
	return Completion{}, false, false
}

// argPos describes a cursor within call arguments.
type argPos struct {
	// open reports that the call is not closed before the cursor.
	open bool
	// idx is the index of the argument holding the cursor.
	idx int
	// str is where the content of the string literal holding the cursor
	// starts, or -1 when the cursor is not in a plain string argument.
	str int
	// lits holds the arguments before the cursor that are string literals.
	lits map[int]string
}

// argAt walks call arguments from p to off.
func argAt(t []byte, p, off int) argPos {
	a := argPos{open: true, str: -1, lits: map[int]string{}}
	depth := 0
	first := true // no token seen yet in the current argument
	for p < off {
		c := t[p]
		switch c {
		case '"', '\'', '`':
			e, closed := stringEnd(t, p, len(t))
			if !closed || e > off {
				if depth == 0 && first && (c != '`' || !bytes.Contains(t[p+1:off], []byte("${"))) {
					a.str = p + 1
				}
				return a
			}
			if depth == 0 && first {
				a.lits[a.idx] = string(t[p+1 : e-1])
			} else {
				delete(a.lits, a.idx)
			}
			first = false
			p = e
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return argPos{}
			}
			depth--
		case ',':
			if depth == 0 {
				a.idx++
				first = true
				p++
				continue
			}
		case ' ', '\t', '\n', '\r':
			p++
			continue
		}
		if !first {
			delete(a.lits, a.idx)
		}
		first = false
		p++
	}
	return a
}

// stringRest returns the end of the string content around off: its
// closing quote on the same line, or the end of the name at off.
func stringRest(t []byte, str, off int) int {
	q := t[str-1]
	le := lineEnd(t, off)
	if k := bytes.IndexByte(t[off:le], q); k >= 0 {
		return off + k
	}
	return nameEnd(t, off)
}

// nameEnd returns the end of the topic-like name continuing at off.
func nameEnd(t []byte, off int) int {
	for off < len(t) && isTopicByte(t[off]) {
		off++
	}
	return off
}

// keyCompletion handles the key form and bare domain words in prose.
func (s *scanner) keyCompletion(off int) (Completion, bool) {
	t := s.text
	lo := max(lineStart(t, off), s.doc.Body.Start)
	code, inCode := s.codeAt(off)
	if inCode {
		lo = max(lo, code.Start)
	}
	isDomain := s.opts.IsDomain
	// Topic after "domain:".
	p := off
	for p > lo && isTopicByte(t[p-1]) {
		p--
	}
	if p > lo && t[p-1] == ':' {
		if p < off && !(isLetter(t[p]) || t[p] == '_') {
			return Completion{}, false
		}
		j := domainBefore(t, p-1, lo)
		if j < 0 || isDomain == nil || !isDomain(string(t[j:p-1])) {
			return Completion{}, false
		}
		return Completion{
			Kind: CompleteTopic, Domain: string(t[j : p-1]), Prefix: string(t[p:off]),
			Replace: document.Span{Start: p, End: nameEnd(t, off)}, Form: KeyForm,
		}, true
	}
	// Section after "domain:topic#".
	if c, ok := s.sectionCompletion(off, lo, code, inCode); ok {
		return c, true
	}
	// A bare word that may become a domain.
	p = off
	for p > lo && isDomainByte(t[p-1]) {
		p--
	}
	if p < off && !isLetter(t[p]) || !keyBoundary(t, p) {
		return Completion{}, false
	}
	e := off
	for e < len(t) && isDomainByte(t[e]) {
		e++
	}
	return Completion{Kind: CompleteDomain, Prefix: string(t[p:off]), Replace: document.Span{Start: p, End: e}, Form: KeyForm}, true
}

// maxSectionPrefix bounds how far before the cursor a '#' is looked for.
const maxSectionPrefix = 128

func (s *scanner) sectionCompletion(off, lo int, code document.Span, inCode bool) (Completion, bool) {
	t := s.text
	from := max(lo, off-maxSectionPrefix)
	for h := off - 1; h >= from; h-- {
		c := t[h]
		if c != '#' {
			if !inCode && sectionStop(c) {
				return Completion{}, false
			}
			continue
		}
		tb := h
		for tb > lo && isTopicByte(t[tb-1]) {
			tb--
		}
		if tb == h || tb == lo || t[tb-1] != ':' || !(isLetter(t[tb]) || t[tb] == '_') {
			continue
		}
		j := domainBefore(t, tb-1, lo)
		if j < 0 || s.opts.IsDomain == nil || !s.opts.IsDomain(string(t[j:tb-1])) {
			return Completion{}, false
		}
		domain, topic := string(t[j:tb-1]), dropMD(string(t[tb:h]))
		var end int
		if inCode {
			end = trimSpaceEnd(t, h+1, min(code.End, sectionLineEnd(t, h+1)))
		} else {
			end = s.proseSection(h+1, sectionLineEnd(t, h+1), domain, topic)
		}
		return Completion{
			Kind: CompleteSection, Domain: domain, Topic: topic, Prefix: string(t[h+1 : off]),
			Replace: document.Span{Start: h + 1, End: max(end, off)}, Form: KeyForm,
		}, true
	}
	return Completion{}, false
}

// frontmatterCompletion reads the YAML text around off (the frontmatter may
// not parse while it is being typed) for an entry of a reference list.
func frontmatterCompletion(doc *document.Doc, off int) (Completion, bool) {
	t := doc.Text
	l := doc.Lines
	line := l.LineOf(off)
	fm := doc.Frontmatter
	if line < fm.FirstLine || off > l.End(line) {
		return Completion{}, false
	}
	ls := l.Start(line)
	text := l.Line(line)
	ind := indent(text)
	rest := text[ind:]
	var es int // start of the entry being typed
	var field string
	if key, v, ok := keyValue(rest); ok {
		vs := ls + ind + v
		switch key {
		case fieldCrossDomain, fieldContext:
			field = key
			es = vs
			if vs < len(t) && t[vs] == '[' {
				es = flowEntry(t, vs, off)
			}
		case "id":
			if fmParent(l, line, ind, false) != fieldIndexedFiles {
				return Completion{}, false
			}
			field, es = fieldIndexedFiles, vs
		default:
			return Completion{}, false
		}
	} else if len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t') {
		item := 1 + indent(rest[1:])
		if key, v, ok := keyValue(rest[item:]); ok {
			if key != "id" || fmParent(l, line, ind, true) != fieldIndexedFiles {
				return Completion{}, false
			}
			field, es = fieldIndexedFiles, ls+ind+item+v
		} else {
			field = fmParent(l, line, ind, true)
			if field != fieldCrossDomain && field != fieldContext {
				return Completion{}, false
			}
			es = ls + ind + item
		}
	} else {
		return Completion{}, false
	}
	if es > off {
		return Completion{}, false
	}
	c := Completion{Form: IDForm}
	if es < off && (t[es] == '"' || t[es] == '\'') {
		c.Quoted = true
		es++
	}
	typed := t[es:off]
	if bytes.ContainsAny(typed, ",[]{}#\"' \t") {
		return Completion{}, false
	}
	end := nameEnd(t, off)
	if slash := bytes.IndexByte(typed, '/'); slash >= 0 {
		c.Kind, c.Domain = CompleteTopic, string(typed[:slash])
		c.Prefix = string(typed[slash+1:])
		c.Replace = document.Span{Start: es + slash + 1, End: end}
		return c, true
	}
	end = off
	for end < len(t) && isDomainByte(t[end]) {
		end++
	}
	c.Kind, c.Prefix = CompleteDomain, string(typed)
	c.Replace = document.Span{Start: es, End: end}
	return c, true
}

// flowEntry returns the start of the flow sequence entry holding off in a
// "[a, b, …" opened at open.
func flowEntry(t []byte, open, off int) int {
	es := open + 1
	for k := open + 1; k < off; k++ {
		if t[k] == ',' {
			es = k + 1
		}
	}
	for es < off && (t[es] == ' ' || t[es] == '\t') {
		es++
	}
	return es
}

func indent(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t') {
		n++
	}
	return n
}

// keyValue parses "key:" or "key: value" and returns the key and the
// offset of the value (or of the end when it is empty).
func keyValue(b []byte) (key string, val int, ok bool) {
	k := 0
	for k < len(b) && (isIdentByte(b[k]) || b[k] == '-') {
		k++
	}
	if k == 0 || k >= len(b) || b[k] != ':' {
		return "", 0, false
	}
	if k+1 < len(b) && b[k+1] != ' ' && b[k+1] != '\t' {
		return "", 0, false
	}
	v := k + 1
	v += indent(b[v:])
	return string(b[:k]), v, true
}

// fmParent returns the key that owns the list item (item) or the mapping
// key (!item) on line at indentation ind, or "".
func fmParent(l *document.Lines, line, ind int, item bool) string {
	for i := line - 1; i >= 0; i-- {
		b := l.Line(i)
		rest := bytes.TrimRight(b, " \t")
		c := indent(rest)
		rest = rest[c:]
		if len(rest) == 0 || rest[0] == '#' {
			continue
		}
		if bytes.Equal(rest, []byte("---")) {
			return ""
		}
		dash := rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t')
		if !item {
			// A key inside a list item mapping: find the item's line.
			if c > ind || (c == ind && !dash) {
				continue
			}
			if dash && c < ind {
				return fmParent(l, i, c, true)
			}
			return ""
		}
		if c > ind || (c == ind && dash) {
			continue
		}
		if key, v, ok := keyValue(rest); ok && v == len(rest) {
			return key
		}
		return ""
	}
	return ""
}
