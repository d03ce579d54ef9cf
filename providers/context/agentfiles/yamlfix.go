package agentfiles

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/rules"
)

// plainKeyValue matches a top-level "key: value" line whose value is a
// plain scalar (no quote, block or flow indicator first).
var plainKeyValue = regexp.MustCompile(`^([A-Za-z_][\w-]*):[ \t]+([^\s'"|>\[{&*!%@` + "`" + `#][^\n]*|[%@` + "`" + `][^\n]*)$`)

// yamlError reports a frontmatter that does not parse, at the line the
// parser names. When the cause is one of the usual ones it says so and
// offers a fix: a plain value that holds ": " (a description such as
// "Use when: …") or starts with a character YAML reserves ("@", "`",
// "%") is quoted; indentation by tabs becomes spaces.
func (c *checker) yamlError(fm *document.Frontmatter) {
	line := fm.Err.Line
	d := c.add(c.lineSpan(line), rules.FrontmatterParse, "frontmatter is not valid YAML, so the agent ignores it: %s", fm.Err.Message)
	if d == nil {
		return
	}
	doc := c.f.Doc
	first, last := doc.Lines.LineOf(fm.Content.Start), doc.Lines.LineOf(max(fm.Content.End-1, fm.Content.Start))
	var edits []Edit
	var causes []string
	for n := first; n <= last && n < doc.Lines.Count(); n++ {
		text := doc.Lines.Line(n)
		if bytes.HasPrefix(text, []byte("\t")) {
			tabs := len(text) - len(bytes.TrimLeft(text, "\t"))
			edits = append(edits, Edit{Span: document.Span{Start: doc.Lines.Start(n), End: doc.Lines.Start(n) + tabs}, NewText: strings.Repeat("  ", tabs)})
			causes = append(causes, fmt.Sprintf("line %d is indented with tabs", n+1))
			continue
		}
		m := plainKeyValue.FindSubmatchIndex(text)
		if m == nil {
			continue
		}
		key, value := string(text[m[2]:m[3]]), strings.TrimRight(string(text[m[4]:m[5]]), " \t")
		reserved := strings.ContainsAny(value[:1], "%@`")
		if !reserved && !strings.Contains(value, ": ") && !strings.HasSuffix(value, ":") {
			continue
		}
		start := doc.Lines.Start(n) + m[4]
		edits = append(edits, Edit{Span: document.Span{Start: start, End: start + len(value)}, NewText: yamlQuote(value)})
		if reserved {
			causes = append(causes, fmt.Sprintf("the value of %s starts with %q, which YAML reserves", key, value[:1]))
		} else {
			causes = append(causes, fmt.Sprintf("the value of %s holds \": \" and is not quoted", key))
		}
	}
	if len(edits) == 0 {
		return
	}
	d.Message += "; " + strings.Join(causes, "; ")
	title := "Quote the value"
	if len(edits) > 1 {
		title = "Fix the frontmatter's YAML"
	} else if strings.Contains(causes[0], "tabs") {
		title = "Indent with spaces"
	}
	d.Fix = &Fix{Title: title, Edits: edits}
}

// yamlQuote writes s as a double-quoted YAML scalar.
func yamlQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
