package refs

import (
	"iter"
	"math"
	"slices"
	"sort"

	"github.com/ctxls/ctxls/providers/document"
)

// List holds the references of one document in a compact form: a library
// keeps the references of every file, and one long command file can hold
// hundreds of thousands of them. Each reference takes 48 bytes: its span,
// the spans of its parts as offsets from the span's start, and small
// integer ids of its names in a table the list shares among them. At
// unpacks a reference into a Ref without allocating.
//
// The zero List is empty. A List is immutable once built and safe for
// concurrent use.
type List struct {
	items []packed
	// names holds the distinct domain, topic, section, path and fragment
	// strings; a name id is its index plus one, 0 standing for "".
	names []string
	// tags holds the distinct call and field names, with the same ids.
	tags []string
	// odd holds, whole, the rare references that do not fit the packed
	// form (a part outside the span, a span past 4 GiB); packed.name[0]
	// is then their index.
	odd []Ref
}

// packed is one reference of a List.
type packed struct {
	start, end uint32
	// sub are the domain, topic, section and path spans.
	sub [4]subSpan
	// name are the ids of the domain, topic, section, path and fragment.
	name        [5]uint32
	call, field uint8
	// form is oddForm for a reference kept whole in List.odd.
	form, where uint8
}

const oddForm = math.MaxUint8

// subSpan is a part's span relative to its reference's start: off is the
// distance plus one, so that the zero subSpan stands for the zero Span.
type subSpan struct{ off, n uint16 }

// Len returns the number of references.
func (l List) Len() int { return len(l.items) }

// At returns the i-th reference, in order of Span.Start.
func (l List) At(i int) Ref { return l.unpack(&l.items[i]) }

func (l List) unpack(p *packed) Ref {
	if p.form == oddForm {
		return l.odd[p.name[0]]
	}
	start := int(p.start)
	sub := func(s subSpan) document.Span {
		if s.off == 0 {
			return document.Span{}
		}
		a := start + int(s.off) - 1
		return document.Span{Start: a, End: a + int(s.n)}
	}
	return Ref{
		Form:        Form(p.form),
		Where:       Where(p.where),
		Span:        document.Span{Start: start, End: int(p.end)},
		Domain:      l.name(p.name[0]),
		DomainSpan:  sub(p.sub[0]),
		Topic:       l.name(p.name[1]),
		TopicSpan:   sub(p.sub[1]),
		Section:     l.name(p.name[2]),
		SectionSpan: sub(p.sub[2]),
		Path:        l.name(p.name[3]),
		PathSpan:    sub(p.sub[3]),
		Fragment:    l.name(p.name[4]),
		Call:        l.tag(p.call),
		Field:       l.tag(p.field),
	}
}

func (l List) name(id uint32) string {
	if id == 0 {
		return ""
	}
	return l.names[id-1]
}

func (l List) tag(id uint8) string {
	if id == 0 {
		return ""
	}
	return l.tags[id-1]
}

// All yields the references with their index, in order.
func (l List) All() iter.Seq2[int, Ref] {
	return func(yield func(int, Ref) bool) {
		for i := range l.items {
			if !yield(i, l.At(i)) {
				return
			}
		}
	}
}

// Slice returns the references as a slice of Ref.
func (l List) Slice() []Ref {
	if len(l.items) == 0 {
		return nil
	}
	out := make([]Ref, len(l.items))
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// Find returns the reference whose Span contains byte offset off (its end
// included, so a cursor just after a reference still finds it).
func (l List) Find(off int) (Ref, bool) {
	i := sort.Search(len(l.items), func(i int) bool { return int(l.items[i].start) > off }) - 1
	if i >= 0 && int(l.items[i].start) <= off && off <= int(l.items[i].end) {
		return l.At(i), true
	}
	return Ref{}, false
}

// NewList returns the compact form of rs, sorted by Span.Start without
// overlaps as ScanList returns them.
func NewList(rs []Ref) List {
	var b ListBuilder
	b.Grow(len(rs))
	for _, r := range rs {
		b.Add(r)
	}
	return b.List()
}

// ListBuilder collects references into a List. The zero ListBuilder is
// ready to use.
type ListBuilder struct {
	l List
	// full are the filled chunks, cur the one being filled: a builder
	// grows by chunks rather than by copying all it holds, so that a
	// document of many references is not held several times over.
	full   [][]packed
	cur    []packed
	n      int
	nameID map[string]uint32
	tagID  map[string]uint8
}

// minChunk is the size of a builder's first chunk when no size is given.
const minChunk = 16

// Grow makes room for n more references.
func (b *ListBuilder) Grow(n int) {
	if n > cap(b.cur)-len(b.cur) {
		b.newChunk(n)
	}
}

func (b *ListBuilder) newChunk(n int) {
	if len(b.cur) > 0 {
		b.full = append(b.full, b.cur)
	}
	b.cur = make([]packed, 0, max(n, minChunk, b.n/2))
}

// Add appends r.
func (b *ListBuilder) Add(r Ref) {
	if len(b.cur) == cap(b.cur) {
		b.newChunk(0)
	}
	b.n++
	p, ok := b.pack(&r)
	// The packed form must give r back exactly; whatever it cannot hold
	// is kept whole.
	if ok && b.l.unpack(&p) == r {
		b.cur = append(b.cur, p)
		return
	}
	b.cur = append(b.cur, packed{
		start: uint32(max(0, min(r.Span.Start, math.MaxUint32))),
		end:   uint32(max(0, min(r.Span.End, math.MaxUint32))),
		form:  oddForm,
		name:  [5]uint32{uint32(len(b.l.odd))},
	})
	b.l.odd = append(b.l.odd, r)
}

func (b *ListBuilder) pack(r *Ref) (packed, bool) {
	if r.Span.Start < 0 || r.Span.End < r.Span.Start || r.Span.End > math.MaxUint32 ||
		r.Form < 0 || r.Form >= oddForm || r.Where < 0 || r.Where > math.MaxUint8 {
		return packed{}, false
	}
	p := packed{start: uint32(r.Span.Start), end: uint32(r.Span.End), form: uint8(r.Form), where: uint8(r.Where)}
	for i, s := range [...]document.Span{r.DomainSpan, r.TopicSpan, r.SectionSpan, r.PathSpan} {
		if s == (document.Span{}) {
			continue
		}
		off := s.Start - r.Span.Start + 1
		if off < 1 || off > math.MaxUint16 || s.Len() < 0 || s.Len() > math.MaxUint16 {
			return packed{}, false
		}
		p.sub[i] = subSpan{off: uint16(off), n: uint16(s.Len())}
	}
	for i, s := range [...]string{r.Domain, r.Topic, r.Section, r.Path, r.Fragment} {
		p.name[i] = b.nameOf(s)
	}
	var ok1, ok2 bool
	p.call, ok1 = b.tagOf(r.Call)
	p.field, ok2 = b.tagOf(r.Field)
	return p, ok1 && ok2
}

func (b *ListBuilder) nameOf(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := b.nameID[s]; ok {
		return id
	}
	if b.nameID == nil {
		b.nameID = make(map[string]uint32)
	}
	b.l.names = append(b.l.names, s)
	id := uint32(len(b.l.names))
	b.nameID[s] = id
	return id
}

func (b *ListBuilder) tagOf(s string) (uint8, bool) {
	if s == "" {
		return 0, true
	}
	if id, ok := b.tagID[s]; ok {
		return id, true
	}
	if len(b.l.tags) == math.MaxUint8 {
		return 0, false
	}
	if b.tagID == nil {
		b.tagID = make(map[string]uint8)
	}
	b.l.tags = append(b.l.tags, s)
	id := uint8(len(b.l.tags))
	b.tagID[s] = id
	return id, true
}

// List returns the references added, sorted by Span.Start (longest first
// on ties) with every reference that overlaps one kept before it dropped,
// and resets b.
func (b *ListBuilder) List() List {
	l := b.l
	items := b.cur
	if len(b.full) > 0 {
		items = make([]packed, 0, b.n)
		for _, c := range b.full {
			items = append(items, c...)
		}
		items = append(items, b.cur...)
	}
	*b = ListBuilder{}
	before := func(x, y *packed) bool {
		if x.start != y.start {
			return x.start < y.start
		}
		return x.end > y.end
	}
	cmp := func(x, y packed) int { return cmpPacked(&x, &y, before) }
	if !slices.IsSortedFunc(items, cmp) {
		slices.SortStableFunc(items, cmp)
	}
	n, end := 0, int64(-1)
	for i := range items {
		if int64(items[i].start) >= end {
			end = int64(items[i].end)
			items[n] = items[i]
			n++
		}
	}
	l.items = items[:n]
	l.names = tight(l.names)
	l.tags = tight(l.tags)
	l.odd = tight(l.odd)
	return l.trim()
}

// tight returns s without spare room, copying it when that room is more
// than an eighth.
func tight[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	if cap(s)-len(s) > len(s)/8 {
		return slices.Clone(s)
	}
	return slices.Clip(s)
}

// trim returns l without its items' spare room, copying them when that
// room is more than an eighth: the list lives as long as its file.
func (l List) trim() List {
	if len(l.items) == 0 {
		return List{}
	}
	l.items = tight(l.items)
	return l
}

// Retain returns the references of l for which keep reports true. It
// reuses l's storage: l must not be used afterwards.
func (l List) Retain(keep func(Ref) bool) List {
	n := 0
	for i := range l.items {
		if keep(l.unpack(&l.items[i])) {
			l.items[n] = l.items[i]
			n++
		}
	}
	l.items = l.items[:n]
	return l.trim()
}

// Share lets share replace the domain and topic names of the references
// with copies of the same text held elsewhere (a library's own), so that
// the list keeps no copy of its own. share gets each distinct pair of
// domain and topic once; a replacement that differs from the name is
// ignored. Share modifies l: it is for a list not yet in use.
func (l List) Share(share func(r *Ref)) {
	type pair struct{ d, t uint32 }
	seen := map[pair]bool{}
	for i := range l.items {
		p := &l.items[i]
		if p.form == oddForm {
			r := &l.odd[p.name[0]]
			d, t := r.Domain, r.Topic
			share(r)
			if r.Domain != d || r.Topic != t {
				r.Domain, r.Topic = d, t
			}
			continue
		}
		k := pair{p.name[0], p.name[1]}
		if k.d == 0 || seen[k] {
			continue
		}
		seen[k] = true
		r := Ref{Domain: l.name(k.d), Topic: l.name(k.t)}
		share(&r)
		if r.Domain == l.name(k.d) {
			l.names[k.d-1] = r.Domain
		}
		if k.t != 0 && r.Topic == l.name(k.t) {
			l.names[k.t-1] = r.Topic
		}
	}
}

func cmpPacked(x, y *packed, before func(x, y *packed) bool) int {
	switch {
	case before(x, y):
		return -1
	case before(y, x):
		return 1
	}
	return 0
}
