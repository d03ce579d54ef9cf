// Package refcost prices the references a document makes: what loading each
// referenced topic or section costs in tokens, and the document's total
// with repeats counted once. It also prices a topic together with its
// cross-domain triggers.
package refcost

import (
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refs"
)

// Item is one reference of a document with what loading it costs.
type Item struct {
	Ref    refs.Ref
	Target library.Target
	// Tokens is the measured cost of what the reference loads: the section
	// when one is named, else the topic (a domain's index for the domain
	// form); 0 when it does not resolve.
	Tokens int
	// Counted reports whether Tokens is part of the document's total: a
	// topic (or section) referred to twice counts once, and a section of a
	// topic loaded whole counts not at all.
	Counted bool
}

// Text renders a reference in key form: "python:fastapi_patterns",
// "python:x#Section", "python" for a domain, the path as written for an
// unresolved path.
func Text(r refs.Ref, t library.Target) string {
	if r.Form == refs.DomainForm && t.Domain != nil {
		return t.Domain.Name
	}
	if t.Topic != nil {
		s := t.Topic.Key()
		if t.Topic.Domain == "" {
			s = t.Topic.ID
		}
		if t.Section != nil {
			s += "#" + t.Section.Name
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
