package agentfiles

import (
	"strings"

	"github.com/ctxls/ctxls/providers/document"
)

// Meta is what listings and session costs need from an agent file's
// frontmatter. Fields the file lacks are empty.
type Meta struct {
	// HasFrontmatter reports whether the file opens with a frontmatter
	// block that parses as a mapping.
	HasFrontmatter bool
	// Name is the name field (skills, subagents).
	Name string
	// Description is the description field.
	Description string
	// WhenToUse is the when_to_use field of a Claude Code skill.
	WhenToUse string
	// Globs are the path globs that attach the file: a Cursor rule's
	// globs, a Claude Code rule's paths, a Copilot instruction's applyTo.
	Globs []string
	// AlwaysApply is a Cursor rule's alwaysApply.
	AlwaysApply bool
	// Trigger is a Windsurf rule's trigger.
	Trigger string
	// Inclusion is a Kiro steering file's inclusion.
	Inclusion string
}

func metaOf(doc *document.Doc) Meta {
	var m Meta
	root := doc.Frontmatter.Root()
	if !root.Exists() {
		return m
	}
	m.HasFrontmatter = true
	str := func(key string) string {
		if _, v := root.Field(key); v.Exists() && v.Kind() == document.ScalarNode {
			return v.Value()
		}
		return ""
	}
	m.Name = str("name")
	m.Description = str("description")
	m.WhenToUse = str("when_to_use")
	m.Trigger = str("trigger")
	m.Inclusion = str("inclusion")
	for _, key := range []string{"globs", "paths", "applyTo", "fileMatchPattern"} {
		if _, v := root.Field(key); v.Exists() {
			m.Globs = append(m.Globs, globList(v)...)
		}
	}
	if _, v := root.Field("alwaysApply"); v.Exists() && v.Kind() == document.ScalarNode && v.Tag() == "!!bool" {
		m.AlwaysApply = v.Value() == "true"
	}
	return m
}

// globList reads a glob field: a list of strings, or one string whose
// comma-separated parts are globs (as Cursor and Copilot write them).
func globList(v document.Node) []string {
	var out []string
	add := func(s string) {
		for _, part := range splitGlobs(s) {
			out = append(out, part)
		}
	}
	switch v.Kind() {
	case document.ScalarNode:
		if v.Tag() != "!!null" {
			add(v.Value())
		}
	case document.SequenceNode:
		for it := range v.Items() {
			if it.Kind() == document.ScalarNode {
				add(it.Value())
			}
		}
	}
	return out
}

// splitGlobs splits at commas outside {…} alternatives.
func splitGlobs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}
