package indexcache

import (
	"encoding/binary"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/refs"
)

// AppendRefs appends the encoding of rs to b: a count, then per reference
// its form, place, spans and strings as varints and length-prefixed bytes.
func AppendRefs(b []byte, rs refs.List) []byte {
	b = binary.AppendUvarint(b, uint64(rs.Len()))
	for _, ref := range rs.All() {
		r := &ref
		b = binary.AppendUvarint(b, uint64(r.Form))
		b = binary.AppendUvarint(b, uint64(r.Where))
		for _, s := range [...]document.Span{r.Span, r.DomainSpan, r.TopicSpan, r.SectionSpan, r.PathSpan} {
			b = binary.AppendUvarint(b, uint64(s.Start))
			b = binary.AppendUvarint(b, uint64(s.End))
		}
		for _, s := range [...]string{r.Domain, r.Topic, r.Section, r.Path, r.Fragment, r.Call, r.Field} {
			b = appendString(b, s)
		}
	}
	return b
}

// DecodeRefs decodes what AppendRefs wrote. Spans must lie within a text
// of textLen bytes; anything malformed is an error, never a partial result.
func DecodeRefs(data []byte, textLen int) (refs.List, error) {
	r := &reader{b: data}
	// Each reference takes at least 19 bytes.
	n := r.count(len(data) / 19)
	if r.err != nil {
		return refs.List{}, r.err
	}
	var out refs.ListBuilder
	out.Grow(n)
	for range n {
		var ref refs.Ref
		ref.Form = refs.Form(r.int())
		ref.Where = refs.Where(r.int())
		for _, s := range [...]*document.Span{&ref.Span, &ref.DomainSpan, &ref.TopicSpan, &ref.SectionSpan, &ref.PathSpan} {
			s.Start, s.End = r.int(), r.int()
			if s.Start > s.End || s.End > textLen {
				r.err = errCorrupt
			}
		}
		for _, s := range [...]*string{&ref.Domain, &ref.Topic, &ref.Section, &ref.Path, &ref.Fragment, &ref.Call, &ref.Field} {
			*s = r.string()
		}
		if ref.Form > refs.PathForm || ref.Where > refs.Table {
			r.err = errCorrupt
		}
		if r.err != nil {
			return refs.List{}, r.err
		}
		out.Add(ref)
	}
	if len(r.b) != 0 {
		return refs.List{}, errCorrupt
	}
	return out.List(), nil
}
