package refs

import (
	"strings"

	"github.com/ctxls/ctxls/providers/document"
)

// Frontmatter fields that hold references.
const (
	fieldCrossDomain  = "crossDomainTriggers"
	fieldIndexedFiles = "indexedFiles"
	fieldContext      = "context"
)

// frontmatter reads the id, domain and path forms of the frontmatter
// fields that hold references in this kind of file (Options.Fields).
// Other fields are never scanned: a YAML key such as "python: x" is not a
// reference.
func (s *scanner) frontmatter() {
	root := s.doc.Frontmatter.Root()
	if !root.Exists() {
		return
	}
	for k, val := range root.Entries() {
		key := k.Value()
		// Refs keep the constant, not the key: node strings are slices of
		// the whole frontmatter text, which a library must not keep.
		switch key {
		case fieldCrossDomain, fieldContext:
			if key == fieldContext && val.Kind() == document.MappingNode {
				if s.opts.Fields&ContextMapping != 0 {
					s.forgeContext(val)
				}
				continue
			}
			if key == fieldContext && s.opts.Fields&ContextList == 0 || key == fieldCrossDomain && s.opts.Fields&TopicLists == 0 {
				continue
			}
			if key == fieldCrossDomain {
				key = fieldCrossDomain
			} else {
				key = fieldContext
			}
			for _, n := range scalars(val) {
				for _, e := range s.entries(n) {
					s.idRef(e.span, e.value, key, key == fieldContext && !strings.Contains(e.value, "/"))
				}
			}
		case fieldIndexedFiles:
			key = fieldIndexedFiles
			if val.Kind() != document.SequenceNode || s.opts.Fields&TopicLists == 0 {
				continue
			}
			for item := range val.Items() {
				for k, v := range item.Entries() {
					if v.Kind() != document.ScalarNode || v.Value() == "" {
						continue
					}
					switch k.Value() {
					case "id":
						s.idRef(s.doc.ValueSpan(v), v.Value(), key, false)
					case "path":
						s.pathField(v)
					}
				}
			}
		}
	}
}

// forgeContext reads the context mapping of a Forge skill,
// {primary: [domain, ...], topics: [topic, ...]}: the entries of primary
// (and of any other list but topics) are domains or topic ids, and each
// topic is a topic of the primary domain. With several primary domains
// the topic's domain is unknown, so a bare topic is left alone.
func (s *scanner) forgeContext(m document.Node) {
	var primary []string
	for k, v := range m.Entries() {
		if k.Value() == "topics" {
			continue
		}
		for _, n := range scalars(v) {
			for _, e := range s.entries(n) {
				s.idRef(e.span, e.value, fieldContext, !strings.Contains(e.value, "/"))
				if k.Value() == "primary" && !strings.Contains(e.value, "/") {
					primary = append(primary, e.value)
				}
			}
		}
	}
	_, topics := m.Field("topics")
	if !topics.Exists() {
		return
	}
	for _, n := range scalars(topics) {
		for _, e := range s.entries(n) {
			switch {
			case strings.Contains(e.value, "/"):
				s.idRef(e.span, e.value, fieldContext, false)
			case len(primary) == 1:
				// The domain is not written here: its span is empty, so
				// renaming the domain leaves the entry as it is.
				topic := dropMD(strings.Clone(e.value))
				r := Ref{Form: IDForm, Where: Frontmatter, Span: e.span, Field: fieldContext,
					Domain: strings.Clone(primary[0]), DomainSpan: document.Span{Start: e.span.Start, End: e.span.Start},
					Topic: topic, TopicSpan: e.span}
				if string(s.doc.Slice(e.span)) == e.value {
					r.TopicSpan = document.Span{Start: e.span.Start, End: e.span.Start + len(topic)}
				}
				s.add(r)
			}
		}
	}
}

// scalars returns the non-empty scalars of a sequence, or the node itself
// when it is a non-empty scalar.
func scalars(n document.Node) []document.Node {
	switch n.Kind() {
	case document.ScalarNode:
		if n.Value() != "" && n.Tag() != "!!null" {
			return []document.Node{n}
		}
	case document.SequenceNode:
		var out []document.Node
		for c := range n.Items() {
			if c.Kind() == document.ScalarNode && c.Value() != "" && c.Tag() != "!!null" {
				out = append(out, c)
			}
		}
		return out
	}
	return nil
}

type entry struct {
	span  document.Span
	value string
}

// entries splits a plain scalar written as "a, b" into its parts; other
// scalars are one entry.
func (s *scanner) entries(n document.Node) []entry {
	sp := s.doc.ValueSpan(n)
	raw := string(s.doc.Slice(sp))
	if !n.Plain() || raw != n.Value() || !strings.Contains(raw, ",") {
		return []entry{{sp, n.Value()}}
	}
	var out []entry
	off := 0
	for _, part := range strings.Split(raw, ",") {
		lead := len(part) - len(strings.TrimLeft(part, " \t"))
		v := strings.TrimSpace(part)
		if v != "" {
			st := sp.Start + off + lead
			out = append(out, entry{document.Span{Start: st, End: st + len(v)}, v})
		}
		off += len(part) + 1
	}
	return out
}

// idRef records "domain/topic" (or a domain alone) written at sp. When the
// text at sp differs from value (a quoted scalar with escapes), every part
// spans the whole value.
func (s *scanner) idRef(sp document.Span, value, field string, domainOnly bool) {
	if sp.Len() == 0 {
		return
	}
	value = strings.Clone(value) // see frontmatter
	exact := string(s.doc.Slice(sp)) == value
	part := func(a, b int) document.Span {
		if !exact {
			return sp
		}
		return document.Span{Start: sp.Start + a, End: sp.Start + b}
	}
	r := Ref{Where: Frontmatter, Span: sp, Field: field}
	if domainOnly {
		r.Form = DomainForm
		r.Domain, r.DomainSpan = value, sp
		s.add(r)
		return
	}
	r.Form = IDForm
	slash := strings.IndexByte(value, '/')
	if slash < 0 {
		// Not a topic id; the library reports it. Topic stays empty.
		r.Domain, r.DomainSpan = value, sp
		r.TopicSpan = document.Span{Start: sp.End, End: sp.End}
		s.add(r)
		return
	}
	r.Domain, r.DomainSpan = value[:slash], part(0, slash)
	rest := value[slash+1:]
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		r.Section = rest[h+1:]
		r.SectionSpan = part(slash+1+h+1, len(value))
		rest = rest[:h]
	}
	r.Topic = dropMD(rest)
	r.TopicSpan = part(slash+1, slash+1+len(r.Topic))
	s.add(r)
}

// pathField records indexedFiles[].path as a path form reference.
func (s *scanner) pathField(v document.Node) {
	sp := s.doc.ValueSpan(v)
	if sp.Len() == 0 {
		return
	}
	value := strings.Clone(v.Value()) // see frontmatter
	r := Ref{Form: PathForm, Where: Frontmatter, Span: sp, Field: fieldIndexedFiles, Path: value, PathSpan: sp}
	if h := strings.IndexByte(value, '#'); h >= 0 {
		r.Path, r.Fragment = value[:h], value[h+1:]
		if string(s.doc.Slice(sp)) == value {
			r.PathSpan = document.Span{Start: sp.Start, End: sp.Start + h}
		}
	}
	s.add(r)
}
