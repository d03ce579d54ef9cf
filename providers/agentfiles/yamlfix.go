package agentfiles

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// keyValue matches a top-level "key: value" line.
var keyValue = regexp.MustCompile(`^([A-Za-z_][\w.-]*):(?:[ \t]+(.*?))?[ \t]*$`)

// yamlError reports a frontmatter that does not parse, at the line the
// parser names. When the cause is one of the usual ones it says so and
// offers a fix:
//   - a one-line value that is not valid YAML on its own (it holds ": ",
//     starts with a character YAML reserves such as ` @ % * [ {, or has
//     quotes inside quotes) is written as a double-quoted string;
//   - a line that continues the value above without indentation is
//     indented;
//   - indentation by tabs becomes spaces.
func (c *checker) yamlError(fm *document.Frontmatter) {
	yerr := fm.Err
	consequence := "so the agent ignores it"
	switch c.f.Kind {
	case KindSkill, KindCommand, KindSubagent:
		// Claude Code's loader tried quoting values already (lenient):
		// what it still fails on is the error to report, but for a skill
		// Codex loads, whose strict loader stops at the first.
		consequence = "and Claude Code cannot read it either, quoting values as its loader does, so it ignores it"
		if c.f.quotedErr != nil && !(c.f.Kind == KindSkill && c.aud.codex) {
			yerr = c.f.quotedErr
		}
	}
	line := yerr.Line
	d := c.add(c.lineSpan(line), diag.FrontmatterParse, "frontmatter is not valid YAML, %s: %s", consequence, yerr.Message)
	if d == nil {
		return
	}
	doc := c.f.Doc
	first := doc.Lines.LineOf(fm.Content.Start)
	last := first - 1
	for n := first; n < doc.Lines.Count() && doc.Lines.Start(n) < fm.Content.End; n++ {
		last = n
	}
	var edits []diag.Edit
	var causes []string
	indented := func(n int) bool {
		if n > last {
			return false
		}
		l := doc.Lines.Line(n)
		return len(l) > 0 && (l[0] == ' ' || l[0] == '\t')
	}
	prevValue := false // the line above is a key with a one-line plain value
	for n := first; n <= last; n++ {
		text := doc.Lines.Line(n)
		trimmed := bytes.TrimSpace(text)
		switch {
		case len(trimmed) == 0 || trimmed[0] == '#':
			prevValue = false
			continue
		case text[0] == '\t':
			tabs := len(text) - len(bytes.TrimLeft(text, "\t"))
			edits = append(edits, diag.Edit{Span: document.Span{Start: doc.Lines.Start(n), End: doc.Lines.Start(n) + tabs}, NewText: strings.Repeat("  ", tabs)})
			causes = append(causes, fmt.Sprintf("line %d is indented with tabs", n+1))
			continue
		case text[0] == ' ' || text[0] == '-':
			continue
		}
		m := keyValue.FindSubmatchIndex(text)
		if m == nil {
			if prevValue {
				edits = append(edits, diag.Edit{Span: document.Span{Start: doc.Lines.Start(n), End: doc.Lines.Start(n)}, NewText: "  "})
				causes = append(causes, fmt.Sprintf("line %d continues the value above but is not indented", n+1))
			}
			continue
		}
		prevValue = false
		if m[4] < 0 || indented(n+1) {
			continue // a block value, or a value over several lines
		}
		key, value := string(text[m[2]:m[3]]), string(text[m[4]:m[5]])
		if value == "" || value[0] == '|' || value[0] == '>' {
			continue
		}
		if document.FieldParses(key, value) {
			prevValue = value[0] != '"' && value[0] != '\'' && value[0] != '[' && value[0] != '{'
			continue
		}
		inner := value
		if len(inner) >= 2 && (inner[0] == '"' || inner[0] == '\'') && inner[len(inner)-1] == inner[0] {
			inner = inner[1 : len(inner)-1]
		}
		start := doc.Lines.Start(n) + m[4]
		edits = append(edits, diag.Edit{Span: document.Span{Start: start, End: start + len(value)}, NewText: yamlQuote(inner)})
		switch {
		case strings.Contains(value, ": ") || strings.HasSuffix(value, ":"):
			causes = append(causes, fmt.Sprintf("the value of %s holds \": \" and is not quoted", key))
		case strings.ContainsAny(value[:1], "\"'"):
			causes = append(causes, fmt.Sprintf("the quotes of %s's value do not match", key))
		default:
			causes = append(causes, fmt.Sprintf("the value of %s starts with %q, which YAML reserves", key, value[:1]))
		}
	}
	if len(edits) == 0 {
		return
	}
	d.Message += "; " + strings.Join(causes, "; ")
	title := "Fix the frontmatter's YAML"
	if len(edits) == 1 {
		switch {
		case strings.Contains(causes[0], "tabs"):
			title = "Indent with spaces"
		case strings.Contains(causes[0], "not indented"):
			title = "Indent the continued value"
		default:
			title = "Quote the value"
		}
	}
	d.Fixes = []diag.Fix{{Title: title, Edits: edits, Preferred: true}}
}

// laxYAML reports a frontmatter that strict YAML rejects and Claude Code
// reads once its loader has quoted values: an error for a skill Codex
// loads too, which it skips, else a warning that it is not portable. The
// fix quotes the values as Claude Code's loader does, so every reader
// reads what Claude Code reads.
func (c *checker) laxYAML() {
	lax := c.f.lax
	lines := c.f.Lines
	var edits []diag.Edit
	var causes []string
	for _, q := range c.f.quoted {
		n := lines.LineOf(q[0])
		if !slices.Contains(lax.lines, n) {
			continue
		}
		value := string(c.f.Text[q[0]:q[1]])
		edits = append(edits, diag.Edit{Span: document.Span{Start: q[0], End: q[1]}, NewText: yamlQuote(value)})
		key := string(bytes.TrimSpace(c.f.Text[lines.Start(n) : lines.Start(n)+bytes.IndexByte(lines.Line(n), ':')]))
		switch {
		case strings.Contains(value, ": "):
			causes = append(causes, fmt.Sprintf("the value of %s holds \": \"", key))
		case strings.ContainsAny(value[:1], "{}[]*&#!|>%@`"):
			causes = append(causes, fmt.Sprintf("the value of %s starts with %q, which YAML reserves", key, value[:1]))
		default:
			causes = append(causes, fmt.Sprintf("the value of %s holds a character YAML reserves", key))
		}
	}
	if len(edits) == 0 {
		return
	}
	span := lineOf(lines, lax.lines[0]) // in the file's offsets: the others are mapped already
	var d *diag.Diagnostic
	switch {
	case c.f.Kind == KindSkill && c.aud.codex:
		d = c.add(span, diag.FrontmatterParse, "frontmatter is not valid YAML (%s: %s), so Codex, which loads the skills of .agents/skills, skips this skill; Claude Code reads it once its loader has quoted the value",
			strings.Join(causes, "; "), lax.err.Message)
	case c.f.Kind == KindSkill && c.aud.opencode && !c.opencodeReads():
		d = c.add(span, diag.FrontmatterParse, "frontmatter is not valid YAML (%s: %s), so OpenCode, which loads the skills of .opencode/skills, fails to load this skill: its loader rewrites only values holding \":\"; Claude Code reads it once its loader has quoted the value",
			strings.Join(causes, "; "), lax.err.Message)
	default:
		d = c.add(span, diag.FrontmatterLenientYAML, "frontmatter is not valid YAML (%s: %s); Claude Code reads it once its loader has quoted the value, but strict YAML readers (Codex, validators, previews) reject it; quote it",
			strings.Join(causes, "; "), lax.err.Message)
	}
	if d != nil {
		title := "Quote the value"
		if len(edits) > 1 {
			title = "Quote the values"
		}
		d.Fixes = []diag.Fix{{Title: title, Edits: edits, Preferred: true}}
	}
}

// opencodeKey is a key OpenCode's frontmatter fallback rewrites the
// value of.
var opencodeKey = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// opencodeReads reports whether OpenCode reads the frontmatter that
// strict YAML rejects: when the YAML does not parse, its loader writes the
// value of each top-level "key: value" line whose key is letters, digits
// and underscores and whose value holds ":" as a block scalar, and tries
// once more. Every line strict YAML rejects must be one of those.
func (c *checker) opencodeReads() bool {
	lines := c.f.Lines
	for _, n := range c.f.lax.lines {
		line := lines.Line(n)
		i := bytes.IndexByte(line, ':')
		if i < 0 || !opencodeKey.Match(line[:i]) || !bytes.Contains(line[i+1:], []byte(":")) {
			return false
		}
	}
	return true
}

// yamlQuote writes s as a double-quoted YAML scalar.
func yamlQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
