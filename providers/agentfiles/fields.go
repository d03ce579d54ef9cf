package agentfiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// fieldType is the YAML shape a frontmatter field must have.
type fieldType int

const (
	tString       fieldType = iota // a string
	tBool                          // true or false
	tStringOrList                  // a string, or a list of strings
	tMap                           // a mapping
	tList                          // a list of strings
	tInt                           // an integer
	tContext                       // a skill's context: checked on its own
	tAny                           // any value: its shape is not checked
)

func (t fieldType) String() string {
	switch t {
	case tBool:
		return "true or false"
	case tStringOrList:
		return "a string or a list of strings"
	case tMap:
		return "a mapping"
	case tList:
		return "a list of strings"
	case tInt:
		return "an integer"
	case tContext:
		return "fork, or in a Forge library a mapping of topic lists"
	case tAny:
		return "a value"
	}
	return "a string"
}

// isString reports whether a node is a string scalar. As in YAML 1.2, an
// unquoted date is a string; numbers, booleans and null are not.
func isString(n document.Node) bool {
	if !n.Exists() || n.Kind() != document.ScalarNode {
		return false
	}
	switch n.Tag() {
	case "!!str", "!!timestamp":
		return true
	}
	return false
}

func (t fieldType) accepts(n document.Node) bool {
	switch t {
	case tContext, tAny:
		return true
	case tBool:
		return n.Kind() == document.ScalarNode && n.Tag() == "!!bool"
	case tInt:
		return n.Kind() == document.ScalarNode && n.Tag() == "!!int"
	case tMap:
		return n.Kind() == document.MappingNode
	case tStringOrList:
		if isString(n) {
			return true
		}
		fallthrough
	case tList:
		if n.Kind() != document.SequenceNode {
			return false
		}
		for it := range n.Items() {
			if !isString(it) {
				return false
			}
		}
		return true
	}
	return isString(n)
}

// field is a frontmatter field of a kind: its name, its type, what it
// does, and the values it takes when they are few. The checks, completion
// and hover all read it: it is the one place a field is documented.
type field struct {
	name   string
	typ    fieldType
	doc    string
	values []string
}

// boolValues are the values of a boolean field.
var boolValues = []string{"true", "false"}

// fieldSpelling folds the case and the separators of a field name, so
// that allowed_tools, AllowedTools and allowed-tools compare equal.
func fieldSpelling(name string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
}

// typed checks the fields of root against the schema, reporting a wrong
// type under code and, as a hint, keys the schema does not know. The
// fields named in own are checked by the caller. A null value (a key
// with nothing after it) is left to the required-field checks.
func (c *checker) typed(root document.Node, schema []field, code string, own ...string) {
	for k, v := range root.Entries() {
		if slices.Contains(own, k.Value()) {
			continue
		}
		j := slices.IndexFunc(schema, func(f field) bool { return f.name == k.Value() })
		if j < 0 {
			msg := fmt.Sprintf("%s is not a field %s documents; it is kept but has no effect", k.Value(), c.f.Kind.agent())
			// "allowed_tools" for "allowed-tools" is a slip worth naming.
			if j := slices.IndexFunc(schema, func(f field) bool { return fieldSpelling(f.name) == fieldSpelling(k.Value()) }); j >= 0 {
				msg += fmt.Sprintf("; did you mean %s?", schema[j].name)
			}
			c.add(c.nodeSpan(k), diag.AgentUnknownField, "%s", msg)
			continue
		}
		if v.Tag() == "!!null" {
			continue
		}
		f := schema[j]
		if f.typ.accepts(v) {
			continue
		}
		if f.typ == tBool && isString(v) && (v.Value() == "true" || v.Value() == "false") && c.f.Doc.NodeSpan(v).Len() == len(v.Value())+2 {
			// alwaysApply: "true" is a string, not the boolean it spells.
			d := c.add(c.valueSpan(k, v), code, "%s is the string %q, not the boolean %s; remove the quotes", f.name, v.Value(), v.Value())
			if d != nil {
				d.Fixes = []diag.Fix{{Title: "Remove the quotes", Edits: []diag.Edit{{Span: c.f.Doc.NodeSpan(v), NewText: v.Value()}}, Preferred: true}}
			}
			continue
		}
		c.add(c.valueSpan(k, v), code, "%s must be %s", f.name, f.typ)
	}
}

// valueSpan is the span of a value node, or of its key when the value
// has no position of its own.
func (c *checker) valueSpan(k, v document.Node) document.Span {
	if s := c.f.Doc.NodeSpan(v); s.End > s.Start {
		return s
	}
	return c.nodeSpan(k)
}

// agent names the agent whose documentation defines the kind.
func (k Kind) agent() string {
	switch k {
	case KindCursorRule, KindCursorRuleMd:
		return "Cursor"
	case KindCopilotInstructions, KindCopilotPrompt, KindCopilotAgent, KindCopilotChatMode:
		return "GitHub Copilot"
	case KindWindsurfRule:
		return "Windsurf"
	case KindClineRule:
		return "Cline"
	case KindKiroSteering:
		return "Kiro"
	case KindSkill:
		return "the Agent Skills specification or Claude Code"
	}
	return "Claude Code"
}

// str returns a string field's value and node, or "" and nil.
func str(root document.Node, key string) (string, document.Node, document.Node) {
	k, v := root.Field(key)
	if !v.Exists() || !isString(v) {
		return "", k, v
	}
	return v.Value(), k, v
}
