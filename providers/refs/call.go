package refs

import (
	"bytes"

	"github.com/ctxls/ctxls/providers/document"
)

// callSig says which arguments of a known call hold the domain and the
// topic; topic is -1 for calls that name a domain only.
type callSig struct {
	name          string
	domain, topic int
}

// calls lists the ContextProvider and ExecutionContext methods whose string
// arguments name topics or domains. Generic names such as search,
// materialize or getCatalog are deliberately absent: their arguments are
// not references.
var calls = map[string]callSig{
	"getConditionalContext": {"getConditionalContext", 0, 1},
	"getReference":          {"getReference", 0, 1},
	"getCachedContext":      {"getCachedContext", 1, 2},
	"recordContextLoad":     {"recordContextLoad", 1, 2},
	"getDomainIndex":        {"getDomainIndex", 0, -1},
	"getAlwaysLoadFiles":    {"getAlwaysLoadFiles", 0, -1},
	"detectProjectType":     {"detectProjectType", 0, -1},
	"getCrossDomainContext": {"getCrossDomainContext", 0, -1},
}

const (
	minCallName = len("getReference")
	maxCallName = len("getCrossDomainContext")
	// callLines bounds how many lines after its name a call's arguments
	// may run over, and callBytes how many bytes, so that nested or
	// unclosed calls on one long line cost linear time.
	callLines = 10
	callBytes = 4096
)

// callName returns the known call whose name ends just before the '(' at
// paren (spaces allowed between), and the name's start.
func callName(t []byte, paren, lo int) (string, callSig, int, bool) {
	e := paren
	for e > lo && (t[e-1] == ' ' || t[e-1] == '\t') && paren-e < 4 {
		e--
	}
	j := e
	for j > lo && isIdentByte(t[j-1]) && e-j <= maxCallName {
		j--
	}
	n := e - j
	if n < minCallName || n > maxCallName || (j > lo && isIdentByte(t[j-1])) {
		return "", callSig{}, 0, false
	}
	sig, ok := calls[string(t[j:e])]
	if !ok {
		return "", callSig{}, 0, false
	}
	return sig.name, sig, j, true
}

// arg is one parsed call argument.
type arg struct {
	// span covers the argument, quotes included.
	span document.Span
	// str reports a plain string literal; val covers its contents.
	str bool
	val document.Span
}

// parseArgs parses call arguments from just after the '(' at p up to
// limit. It returns the first max arguments, the offset just after the
// closing ')' (or after the last argument parsed when there is none), and
// whether the call was closed. runaway reports an argument that ran to
// limit without ending.
func parseArgs(t []byte, p, limit, maxArgs int) (args []arg, end int, closed, runaway bool) {
	end = p
	for n := 0; ; n++ {
		p = skipSpace(t, p, limit)
		if p >= limit {
			return args, end, false, false
		}
		if t[p] == ')' && n == 0 {
			return args, p + 1, true, false
		}
		a, q, ok := parseArg(t, p, limit)
		if !ok {
			return args, end, false, q >= limit
		}
		if n < maxArgs {
			args = append(args, a)
		}
		end = q
		p = skipSpace(t, q, limit)
		if p >= limit {
			return args, end, false, false
		}
		switch t[p] {
		case ',':
			p++
		case ')':
			return args, p + 1, true, false
		default:
			return args, end, false, false
		}
	}
}

func skipSpace(t []byte, p, limit int) int {
	for p < limit && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r') {
		p++
	}
	return p
}

// parseArg parses one argument starting at p: a string literal, or any
// expression up to a ',' or ')' outside brackets and strings. On failure
// the offset says where reading stopped.
func parseArg(t []byte, p, limit int) (arg, int, bool) {
	if q := t[p]; q == '"' || q == '\'' || q == '`' {
		e, ok := stringEnd(t, p, limit)
		if !ok {
			return arg{}, p, false
		}
		after := skipSpace(t, e, limit)
		if after >= limit || t[after] == ',' || t[after] == ')' {
			a := arg{span: document.Span{Start: p, End: e}, val: document.Span{Start: p + 1, End: e - 1}}
			a.str = q != '`' || !bytes.Contains(t[p+1:e-1], []byte("${"))
			return a, e, true
		}
	}
	depth := 0
	k := p
	for k < limit {
		switch c := t[k]; c {
		case '"', '\'', '`':
			e, ok := stringEnd(t, k, limit)
			if !ok {
				return arg{}, k, false
			}
			k = e
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if c != ')' {
					return arg{}, k, false
				}
				return arg{span: document.Span{Start: p, End: trimSpaceEnd(t, p, k)}}, trimSpaceEnd(t, p, k), true
			}
			depth--
		case ',':
			if depth == 0 {
				return arg{span: document.Span{Start: p, End: trimSpaceEnd(t, p, k)}}, trimSpaceEnd(t, p, k), true
			}
		}
		k++
	}
	return arg{}, k, false
}

// stringEnd returns the offset after the string literal opened at p. Only
// backtick strings may run over lines.
func stringEnd(t []byte, p, limit int) (int, bool) {
	q := t[p]
	for k := p + 1; k < limit; k++ {
		switch t[k] {
		case '\\':
			k++
		case q:
			return k + 1, true
		case '\n':
			if q != '`' {
				return 0, false
			}
		}
	}
	return 0, false
}

// callAt recognises a call form whose '(' is at paren. limit bounds its
// arguments; lo bounds its name.
func (s *scanner) callAt(paren, limit, lo int) (Ref, bool) {
	t := s.text
	if paren < s.callSkip {
		return Ref{}, false
	}
	name, sig, start, ok := callName(t, paren, lo)
	if !ok {
		return Ref{}, false
	}
	limit = min(limit, s.doc.Lines.End(s.doc.Lines.LineOf(paren)+callLines), paren+callBytes)
	need := max(sig.domain, sig.topic) + 1
	args, end, closed, runaway := parseArgs(t, paren+1, limit, need)
	if runaway {
		// Calls nested in an argument that never ends are not read again.
		s.callSkip = limit
	}
	if len(args) <= sig.domain || !args[sig.domain].str || args[sig.domain].val.Len() == 0 {
		return Ref{}, false
	}
	d := args[sig.domain]
	r := Ref{
		Form:       DomainForm,
		Domain:     s.str(t[d.val.Start:d.val.End]),
		DomainSpan: d.val,
		Call:       name,
	}
	last := d.span.End
	if sig.topic >= 0 && len(args) > sig.topic && args[sig.topic].str && args[sig.topic].val.Len() > 0 {
		a := args[sig.topic]
		r.Form = CallForm
		r.Topic = dropMD(s.str(t[a.val.Start:a.val.End]))
		r.TopicSpan = document.Span{Start: a.val.Start, End: a.val.Start + len(r.Topic)}
		last = a.span.End
	}
	if !closed {
		end = last
	}
	r.Span = document.Span{Start: start, End: end}
	return r, true
}

// fences scans fenced code blocks for call forms, the only form recognised
// inside them.
func (s *scanner) fences() {
	t := s.text
	s.callSkip = 0 // set by prose, which comes after some fences
	for _, f := range s.doc.Fences {
		if s.inComment(f.Span.Start) {
			continue
		}
		in := f.Inner
		for p := in.Start; p < in.End; {
			k := bytes.IndexByte(t[p:in.End], '(')
			if k < 0 {
				break
			}
			paren := p + k
			p = paren + 1
			if r, ok := s.callAt(paren, in.End, in.Start); ok {
				r.Where = Fence
				s.add(r)
				p = max(p, r.Span.End)
			}
		}
	}
}
