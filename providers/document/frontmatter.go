package document

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Frontmatter is the YAML block between "---" lines at the start of a file.
type Frontmatter struct {
	// Span covers the block, both delimiter lines and the closing line's
	// terminator included.
	Span Span
	// Content covers the YAML text between the delimiters.
	Content Span
	// FirstLine is the zero-based document line of the first YAML line.
	FirstLine int
	// Err describes why the YAML could not be used, or is nil.
	Err *YAMLError

	lastLine int        // the zero-based document line of the last YAML line
	raw      []byte     // the YAML text, a slice of the document's text; nil once released
	doc      *Doc       // the document that released raw with its text
	mapping  bool       // raw parses to a mapping
	tree     *yaml.Node // the mapping as Parse found it, until ReleaseTree
}

// Root returns the top-level mapping node, a zero Node when the YAML is
// empty, not a mapping, or failed to parse. Once ReleaseTree has run, each
// call parses the YAML again (and reads a released document's text back):
// take the root once per use, not once per field. A released text that
// cannot be read back gives a zero Node.
func (fm *Frontmatter) Root() Node {
	if fm == nil || !fm.mapping {
		return Node{}
	}
	if fm.tree != nil {
		return Node{fm.tree}
	}
	raw := fm.raw
	if fm.doc != nil {
		text, err := fm.doc.Content(context.Background())
		if err != nil {
			return Node{}
		}
		raw = text[fm.Content.Start:fm.Content.End]
	}
	root, err := parseYAML(raw)
	if err != nil {
		return Node{}
	}
	return Node{root}
}

// parseYAML returns the top node of raw, nil when raw holds none.
func parseYAML(raw []byte) (*yaml.Node, error) {
	if root, ok := parseYAMLSubset(raw); ok {
		return root, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// ReleaseTree drops the parsed YAML that Parse kept. A library holds many
// documents and needs their trees only while it builds them: the nodes of
// a frontmatter take several times the memory of its text. Call it only
// while no other goroutine can see the document.
func (fm *Frontmatter) ReleaseTree() {
	if fm != nil {
		fm.tree = nil
	}
}

// YAMLError is a frontmatter problem with the document line it concerns.
type YAMLError struct {
	// Line is the zero-based document line.
	Line int
	// Message says what is wrong.
	Message string
}

func (e *YAMLError) Error() string { return fmt.Sprintf("line %d: %s", e.Line+1, e.Message) }

// maxFrontmatterSize bounds the YAML of a frontmatter block that is
// parsed. yaml.v3 needs more than a second per megabyte of some inputs
// (lines of a thousand nested "- ", say), and an open document is parsed
// again on every change; a topic's frontmatter is a few kilobytes.
const maxFrontmatterSize = 256 << 10

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseFrontmatter finds the frontmatter block, and parses it when decode
// is set, or returns nil.
func parseFrontmatter(d *Doc, decode bool) *Frontmatter {
	l := d.Lines
	if l.Count() < 2 || !isDelimiter(l.Line(0), "---") {
		return nil
	}
	closing := -1
	for i := 1; i < l.Count(); i++ {
		line := l.Line(i)
		if isDelimiter(line, "---") || isDelimiter(line, "...") {
			closing = i
			break
		}
	}
	fm := &Frontmatter{FirstLine: 1}
	if closing < 0 {
		// A leading "---" followed by prose is a thematic break, not an
		// unclosed frontmatter block.
		if !bytes.Contains(l.Line(1), []byte(":")) {
			return nil
		}
		fm.Span = Span{0, len(d.Text)}
		fm.Content = Span{l.Start(1), len(d.Text)}
		fm.Err = &YAMLError{Line: 0, Message: "frontmatter is not closed by a \"---\" line"}
		return fm
	}
	fm.Content = Span{l.Start(1), l.Start(closing)}
	fm.lastLine = max(1, closing-1)
	end := l.Start(closing + 1)
	if closing+1 >= l.Count() {
		end = len(d.Text)
	}
	fm.Span = Span{0, end}
	raw := d.Text[fm.Content.Start:fm.Content.End]
	if !decode || len(bytes.TrimSpace(raw)) == 0 {
		return fm
	}
	if len(raw) > maxFrontmatterSize {
		fm.Err = &YAMLError{Line: 0, Message: fmt.Sprintf("frontmatter is %d KiB, above the %d KiB that ctxls parses; its fields are not read", len(raw)>>10, maxFrontmatterSize>>10)}
		return fm
	}
	root, err := parseYAML(raw)
	if err != nil {
		fm.Err = fm.yamlError(err)
		return fm
	}
	if root == nil {
		return fm
	}
	if root.Kind != yaml.MappingNode {
		fm.Err = &YAMLError{Line: fm.docLine(root.Line), Message: "frontmatter must be a mapping of field names to values"}
		return fm
	}
	fm.raw, fm.mapping, fm.tree = raw, true, root
	return fm
}

// docLine returns the document line of the one-based line n of the YAML
// text, kept within the frontmatter: yaml.v3 counts a lone "\r" as a line
// break, which the document's lines do not, and reports an unexpected end
// one line past the text.
func (fm *Frontmatter) docLine(n int) int {
	return max(fm.FirstLine, min(fm.FirstLine+n-1, fm.lastLine))
}

// yamlError turns a yaml.v3 error into a YAMLError on a document line.
func (fm *Frontmatter) yamlError(err error) *YAMLError {
	msg := err.Error()
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &YAMLError{Line: fm.docLine(n), Message: m[2]}
	}
	return &YAMLError{Line: fm.FirstLine, Message: msg}
}

func isDelimiter(line []byte, delim string) bool {
	return string(bytes.TrimRight(line, " \t")) == delim
}

// Field returns the key and value nodes of the top-level frontmatter field
// key, zero Nodes when absent. See Root for its cost.
func (fm *Frontmatter) Field(key string) (keyNode, value Node) {
	return fm.Root().Field(key)
}

// NodeSpan returns the byte span in the document of a frontmatter node. For
// a scalar it covers the scalar as written, quotes included; for other
// nodes it covers the node's first line from its start.
func (d *Doc) NodeSpan(node Node) Span {
	fm, n := d.Frontmatter, node.y
	if fm == nil || n == nil || n.Line == 0 {
		return Span{}
	}
	all, err := d.Content(context.Background())
	if err != nil {
		return Span{}
	}
	line := fm.docLine(n.Line)
	start, end := len(all), len(all)
	if line >= 0 && line < d.Lines.count {
		start = d.Lines.start(all, line)
		end = lineEnd(all, start)
	}
	text := all[start:end]
	// yaml.v3 columns count characters, one-based.
	off := 0
	for col := 1; col < n.Column && off < len(text); col++ {
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	s := start + off
	if n.Kind != yaml.ScalarNode {
		return Span{s, end}
	}
	rest := all[s:end]
	switch n.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
			return Span{s, end} // lines counted differently, see docLine
		}
		q := rest[0]
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\\' && q == '"' {
				i++
				continue
			}
			if rest[i] == q {
				if q == '\'' && i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return Span{s, s + i + 1}
			}
		}
		return Span{s, end}
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return Span{s, end}
	}
	if bytes.HasPrefix(rest, []byte(n.Value)) {
		return Span{s, s + len(n.Value)}
	}
	return Span{s, end}
}

// ValueSpan returns the span of a scalar node's value without quotes.
func (d *Doc) ValueSpan(node Node) Span {
	s, n := d.NodeSpan(node), node.y
	if n != nil && (n.Style == yaml.DoubleQuotedStyle || n.Style == yaml.SingleQuotedStyle) && s.Len() >= 2 {
		return Span{s.Start + 1, s.End - 1}
	}
	return s
}
