package lsp

import (
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refs"
)

// refCost is one reference of a document with what loading it costs.
type refCost struct {
	Ref    refs.Ref
	Target library.Target
	// Tokens is the measured cost of what the reference loads: the
	// section when one is named, else the topic (a domain's index for the
	// domain form); 0 when it does not resolve.
	Tokens int
	// Counted reports whether Tokens is part of the document's total: a
	// topic (or section) referred to twice counts once, and a section of a
	// topic loaded whole counts not at all.
	Counted bool
}

// documentCosts resolves the references of f and prices them.
func documentCosts(lib *library.Library, f *library.File) (items []refCost, total int) {
	whole := map[string]bool{}
	for _, r := range f.Refs {
		t := lib.Resolve(f, r)
		if t.Topic != nil && t.Section == nil && t.OK() {
			whole[t.Topic.ID] = true
		}
	}
	seen := map[string]bool{}
	for _, r := range f.Refs {
		t := lib.Resolve(f, r)
		c := refCost{Ref: r, Target: t}
		if t.Kind == library.NotAReference {
			continue
		}
		if t.OK() && t.Topic != nil {
			key := t.Topic.ID
			c.Tokens = t.Topic.Tokens
			if t.Section != nil {
				key += "#" + t.Section.Name
				c.Tokens = t.Section.Tokens
			}
			if !seen[key] && (t.Section == nil || !whole[t.Topic.ID]) {
				seen[key] = true
				c.Counted = true
				total += c.Tokens
			}
		}
		items = append(items, c)
	}
	return items, total
}

// refText renders a reference in key form: "python:fastapi_patterns",
// "python:x#Section", "python" for a domain.
func refText(r refs.Ref, t library.Target) string {
	if t.Topic != nil {
		s := t.Topic.Key()
		if t.Topic.Domain == "" {
			s = t.Topic.ID
		}
		if t.Section != nil {
			s += "#" + t.Section.Name
		}
		if r.Form == refs.DomainForm && t.Domain != nil {
			return t.Domain.Name
		}
		return s
	}
	switch {
	case r.Form == refs.PathForm:
		return r.Path
	case r.Form == refs.DomainForm:
		return r.Domain
	case r.Section != "":
		return r.Domain + ":" + r.Topic + "#" + r.Section
	case r.Topic != "":
		return r.Domain + ":" + r.Topic
	}
	return r.Domain
}
