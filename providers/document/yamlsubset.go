package document

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// parseYAMLSubset parses the block-style YAML that frontmatter is almost
// always written in, and returns the root mapping exactly as yaml.v3 would
// build it (kinds, styles, tags, values, lines and columns). It gives up,
// returning false, on anything outside that subset: comments, block and
// escaped scalars, multi-line scalars and flow collections, anchors, tags, tabs,
// unusual characters, and every syntax error. The caller then asks
// yaml.v3, so the subset only has to be exact, not complete.
//
// It exists because yaml.v3 builds its tree through a token scanner and an
// event parser: for a library of ten thousand topics that took a third of
// the cold index, and the same again when diagnostics re-read the
// frontmatter after the index released its trees.
func parseYAMLSubset(raw []byte) (*yaml.Node, bool) {
	if !subsetChars(raw) {
		return nil, false
	}
	p := yamlSubset{src: string(raw)}
	p.split()
	for _, l := range p.lines {
		// "---" and "..." at the start of a line mark documents, not keys.
		if l.start-l.lineStart == 0 && (strings.HasPrefix(p.src[l.start:], "---") || strings.HasPrefix(p.src[l.start:], "...")) {
			return nil, false
		}
	}
	p.skipBlank()
	if p.cur >= len(p.lines) || p.lines[p.cur].ind != 0 {
		return nil, false
	}
	root, ok := p.mapping(0)
	if !ok {
		return nil, false
	}
	if p.skipBlank(); p.cur < len(p.lines) {
		return nil, false
	}
	return root, true
}

// subsetChars reports whether raw holds only characters the subset parser
// handles as yaml.v3 does: printable text without tabs, carriage returns,
// Unicode line separators, byte order marks or comments.
func subsetChars(raw []byte) bool {
	prev := byte('\n')
	for i := 0; i < len(raw); {
		c := raw[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n':
			case c < 0x20 || c == 0x7f:
				return false
			case c == '#' && (prev == ' ' || prev == '\n'):
				return false
			}
			prev = c
			i++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		// yaml.v3 treats U+0085, U+2028 and U+2029 as line breaks and
		// rejects the rest of these as unprintable.
		if r == utf8.RuneError || r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r >= 0xFFFE && r <= 0xFFFF {
			return false
		}
		prev = c
		i += size
	}
	return true
}

type subsetLine struct {
	start, end int // content without the trailing spaces, as offsets in src
	ind        int // offset of the unconsumed content from start of line
	lineStart  int
	num        int // one-based line number
}

type yamlSubset struct {
	src   string
	lines []subsetLine
	cur   int
	// nodes is a slab the nodes are cut from: one allocation per few
	// dozen nodes instead of one each.
	nodes []yaml.Node
}

func (p *yamlSubset) split() {
	n := strings.Count(p.src, "\n") + 1
	p.lines = make([]subsetLine, 0, n)
	p.nodes = make([]yaml.Node, 0, 3*n)
	for start, num := 0, 1; start <= len(p.src); num++ {
		end := strings.IndexByte(p.src[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(p.src)-start, len(p.src)+1
		}
		end += start
		ind := start
		for ind < end && p.src[ind] == ' ' {
			ind++
		}
		e := end
		for e > ind && p.src[e-1] == ' ' {
			e--
		}
		p.lines = append(p.lines, subsetLine{start: ind, end: e, ind: ind - start, lineStart: start, num: num})
		start = next
	}
}

func (p *yamlSubset) skipBlank() {
	for p.cur < len(p.lines) && p.lines[p.cur].start == p.lines[p.cur].end {
		p.cur++
	}
}

func (p *yamlSubset) node(kind yaml.Kind, tag, value string, style yaml.Style, ln *subsetLine, off int) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]yaml.Node, 0, 32)
	}
	p.nodes = append(p.nodes, yaml.Node{Kind: kind, Tag: tag, Value: value, Style: style, Line: ln.num, Column: column(p.src[ln.lineStart:off])})
	return &p.nodes[len(p.nodes)-1]
}

// column is yaml.v3's one-based column after prefix: it counts characters.
func column(prefix string) int {
	for i := 0; i < len(prefix); i++ {
		if prefix[i] >= utf8.RuneSelf {
			return utf8.RuneCountInString(prefix) + 1
		}
	}
	return len(prefix) + 1
}

// text returns the unconsumed content of the current line and its offset.
func (p *yamlSubset) text() (string, int) {
	ln := &p.lines[p.cur]
	off := ln.lineStart + ln.ind
	return p.src[off:ln.end], off
}

func isSeqItem(s string) bool { return s != "" && s[0] == '-' && (len(s) == 1 || s[1] == ' ') }

// block calls line for each line of a block whose lines stand at
// indentation ind, with the line's unconsumed text and its offset, until
// the block ends (at the end of the text or a line indented less) or line
// reports no more. It reports false when line does, or at a line indented
// more, which the subset leaves to yaml.v3.
func (p *yamlSubset) block(ind int, line func(ln *subsetLine, text string, off int) (more, ok bool)) bool {
	for {
		if p.skipBlank(); p.cur >= len(p.lines) {
			return true
		}
		ln := &p.lines[p.cur]
		if ln.ind < ind {
			return true
		}
		if ln.ind > ind {
			return false
		}
		text, off := p.text()
		more, ok := line(ln, text, off)
		if !ok || !more {
			return ok
		}
	}
}

// mapping parses a block mapping whose keys stand at indentation ind.
func (p *yamlSubset) mapping(ind int) (*yaml.Node, bool) {
	var m *yaml.Node
	fits := p.block(ind, func(ln *subsetLine, text string, off int) (bool, bool) {
		colon := keyEnd(text)
		if colon < 0 {
			return false, false
		}
		key := strings.TrimRight(text[:colon], " ")
		// yaml.v3 takes no simple key whose colon lies more than 1,024
		// characters past its start, spaces included.
		if !plainStart(key) || strings.IndexByte(key, ':') >= 0 || colon > 1000 || key == "<<" {
			return false, false
		}
		if m == nil {
			m = p.node(yaml.MappingNode, "!!map", "", 0, ln, off)
		}
		k := p.node(yaml.ScalarNode, plainTag(key), key, 0, ln, off)
		rest := strings.TrimLeft(text[colon+1:], " ")
		var v *yaml.Node
		var ok bool
		if rest != "" {
			v, ok = p.inline(ln, ln.end-len(rest))
			p.cur++
		} else {
			p.cur++
			p.skipBlank()
			if p.cur >= len(p.lines) {
				return false, false
			}
			next := &p.lines[p.cur]
			nt, _ := p.text()
			switch {
			case next.ind > ind && isSeqItem(nt):
				v, ok = p.sequence(next.ind)
			case next.ind > ind:
				v, ok = p.mapping(next.ind)
			case next.ind == ind && isSeqItem(nt):
				// A sequence may stand at its key's indentation.
				v, ok = p.sequence(ind)
			}
		}
		if !ok {
			return false, false
		}
		m.Content = append(m.Content, k, v)
		return true, true
	})
	if !fits {
		return nil, false
	}
	return m, m != nil
}

// sequence parses a block sequence whose dashes stand at indentation ind.
func (p *yamlSubset) sequence(ind int) (*yaml.Node, bool) {
	var s *yaml.Node
	fits := p.block(ind, func(ln *subsetLine, text string, off int) (bool, bool) {
		if !isSeqItem(text) {
			return false, true
		}
		if s == nil {
			s = p.node(yaml.SequenceNode, "!!seq", "", 0, ln, off)
		}
		item := strings.TrimLeft(text[1:], " ")
		if item == "" || isSeqItem(item) {
			return false, false
		}
		var v *yaml.Node
		var ok bool
		if c := item[0]; c != '"' && c != '\'' && c != '[' && c != '{' && keyEnd(item) >= 0 {
			// "- name: x" opens a mapping at the column of "name".
			ln.ind = ln.end - len(item) - ln.lineStart
			v, ok = p.mapping(ln.ind)
		} else {
			v, ok = p.inline(ln, ln.end-len(item))
			p.cur++
		}
		if !ok {
			return false, false
		}
		s.Content = append(s.Content, v)
		return true, true
	})
	if !fits {
		return nil, false
	}
	return s, s != nil
}

// keyEnd returns the offset of the colon that ends a plain key at the start
// of s (followed by a space or the end of the line), or -1.
func keyEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') {
			return i
		}
	}
	return -1
}

// inline parses the value that fills the current line from off to its end.
func (p *yamlSubset) inline(ln *subsetLine, off int) (*yaml.Node, bool) {
	text := p.src[off:ln.end]
	switch text[0] {
	case '"', '\'':
		v, n, ok := quoted(text)
		if !ok || n != len(text) {
			return nil, false
		}
		return p.node(yaml.ScalarNode, "!!str", v, quoteStyle(text[0]), ln, off), true
	case '[', '{':
		return p.flowCollection(ln, off)
	}
	if !plainStart(text) || strings.Contains(text, ": ") || text[len(text)-1] == ':' || text == "<<" {
		return nil, false
	}
	return p.node(yaml.ScalarNode, plainTag(text), text, 0, ln, off), true
}

func quoteStyle(q byte) yaml.Style {
	if q == '"' {
		return yaml.DoubleQuotedStyle
	}
	return yaml.SingleQuotedStyle
}

// quoted reads a quoted scalar at the start of s: its value and length.
// Double-quoted scalars with escapes are left to yaml.v3.
func quoted(s string) (value string, n int, ok bool) {
	q := s[0]
	escaped := false
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			return "", 0, false
		case s[i] != q:
		case q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			escaped = true
			i++
		default:
			v := s[1:i]
			if escaped {
				v = strings.ReplaceAll(v, "''", "'")
			}
			return v, i + 1, true
		}
	}
	return "", 0, false
}

// flowCollection parses a one-line flow sequence of scalars such as
// "[a, "b c"]", or a one-line flow mapping of scalars such as
// "{id: a/b, path: b.md}", filling the current line from off.
func (p *yamlSubset) flowCollection(ln *subsetLine, off int) (*yaml.Node, bool) {
	kind, tag, closing := yaml.SequenceNode, "!!seq", byte(']')
	if p.src[off] == '{' {
		kind, tag, closing = yaml.MappingNode, "!!map", '}'
	}
	coll := p.node(kind, tag, "", yaml.FlowStyle, ln, off)
	i := off + 1
	for {
		i = p.skipSpaces(ln, i)
		if i >= ln.end {
			return nil, false
		}
		if p.src[i] == closing && len(coll.Content) == 0 {
			i++
			break
		}
		if kind == yaml.MappingNode {
			k, next, ok := p.flowScalar(ln, i, ":")
			if !ok || next+1 >= ln.end || p.src[next] != ':' || p.src[next+1] != ' ' || k.Style != 0 || next-i > 1000 {
				return nil, false
			}
			coll.Content = append(coll.Content, k)
			i = p.skipSpaces(ln, next+1)
		}
		item, next, ok := p.flowScalar(ln, i, string(closing)+",")
		if !ok {
			return nil, false
		}
		coll.Content = append(coll.Content, item)
		i = p.skipSpaces(ln, next)
		if i >= ln.end {
			return nil, false
		}
		if p.src[i] == closing {
			i++
			break
		}
		if p.src[i] != ',' {
			return nil, false
		}
		i++
	}
	if i != ln.end {
		return nil, false
	}
	return coll, true
}

func (p *yamlSubset) skipSpaces(ln *subsetLine, i int) int {
	for i < ln.end && p.src[i] == ' ' {
		i++
	}
	return i
}

// flowScalar reads a scalar inside a flow collection at i, which ends
// before one of the bytes in stop; it returns the node and the offset
// after the scalar (and after its trailing spaces for a plain one).
func (p *yamlSubset) flowScalar(ln *subsetLine, i int, stop string) (*yaml.Node, int, bool) {
	if i >= ln.end {
		return nil, 0, false
	}
	if c := p.src[i]; c == '"' || c == '\'' {
		v, n, ok := quoted(p.src[i:ln.end])
		if !ok {
			return nil, 0, false
		}
		return p.node(yaml.ScalarNode, "!!str", v, quoteStyle(c), ln, i), i + n, true
	}
	j := i
	for j < ln.end && strings.IndexByte(stop, p.src[j]) < 0 {
		// A colon, brackets, comments and quotes inside a flow scalar
		// follow rules the subset does not need.
		if strings.IndexByte(":?[]{},#\"'", p.src[j]) >= 0 {
			return nil, 0, false
		}
		j++
	}
	v := strings.TrimRight(p.src[i:j], " ")
	if !plainStart(v) || v == "<<" {
		return nil, 0, false
	}
	return p.node(yaml.ScalarNode, plainTag(v), v, 0, ln, i), j, true
}

// plainStart reports whether s can start a plain scalar the subset handles:
// not empty and not opening with a YAML indicator.
func plainStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		// "-1" is a plain scalar, but "- " opens a sequence entry: leave
		// every leading dash to yaml.v3 except before a digit.
		return s[0] == '-' && len(s) > 1 && s[1] >= '0' && s[1] <= '9'
	}
	return true
}

// plainTag is the tag yaml.v3 resolves a plain scalar to.
func plainTag(s string) string {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case "", "~", "null", "Null", "NULL":
		return "!!null"
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "!!float"
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return "!!float"
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		return numberTag(s)
	}
	return "!!str"
}

// numberTag follows yaml.v3's resolution of a plain scalar that starts with
// a digit or a sign.
func numberTag(s string) string {
	if isTimestamp(s) {
		return "!!timestamp"
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return "!!int"
	}
	if yamlFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return "!!float"
		}
	}
	for _, pre := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"-0b", 2}, {"0o", 8}, {"-0o", 8}} {
		if rest, ok := strings.CutPrefix(plain, pre.prefix); ok {
			if pre.prefix[0] == '-' {
				rest = "-" + rest
			}
			if _, err := strconv.ParseInt(rest, pre.base, 64); err == nil {
				return "!!int"
			}
			if _, err := strconv.ParseUint(rest, pre.base, 64); err == nil && pre.prefix[0] != '-' {
				return "!!int"
			}
			break
		}
	}
	return "!!str"
}

// yamlFloat matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yamlFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// timestampFormats are the layouts yaml.v3 accepts for plain timestamps.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}
