package refs

import (
	"encoding/binary"
	"iter"
	"math"
	"slices"
	"sort"

	"github.com/ctxls/ctxls/providers/document"
)

// List holds the references of one document in a compact form: a library
// keeps the references of every file, and one long command file can hold
// hundreds of thousands of them. The references are encoded one after the
// other as varints, each number a short distance (from the previous
// reference, from the reference's own start) or the small id of a name in
// a table the list shares among them; a part as long as its name, as
// parts usually are, has no length written. That makes 8 to 10 bytes a
// reference of an ordinary document. An index of every blockLen-th
// reference lets At and Find decode at most one block; All and Picked walk
// the list once.
//
// The zero List is empty. A List is immutable once built and safe for
// concurrent use.
type List struct {
	n    int
	data []byte
	// blocks locate every blockLen-th reference in data.
	blocks []block
	// names holds the distinct domain, topic, section, path and fragment
	// strings; a name id is its index plus one, 0 standing for "".
	names []string
	// tags holds the distinct call and field names, with the same ids.
	tags []string
	// odd holds, whole, the rare references that the encoding does not
	// fit (a part before the reference's start, a span past 4 GiB).
	odd []Ref
}

// block locates a reference in List.data: off is where it is encoded,
// start its Span.Start.
type block struct{ off, start uint32 }

// blockLen is how many references a block holds: At and Find decode up to
// that many, and the index costs 8 bytes a block.
const blockLen = 32

// raw is one reference as it is encoded: its names are ids, its parts
// spans of the text.
type raw struct {
	start, end  int
	form, where uint8
	sub         [4]document.Span
	// name are the ids of the domain, topic, section, path and fragment.
	name        [5]uint32
	call, field uint32
}

// An encoded reference's head holds its form (3 bits), its place (3
// bits), then which of its parts and names it has.
const (
	// partShift is the first of 4 bits that tell which spans of raw.sub
	// are written.
	partShift = 6
	// nameShift is the first of 5 bits that tell which ids of raw.name
	// are written.
	nameShift = partShift + 4
	hasCall   = 1 << (nameShift + 5)
	hasField  = hasCall << 1
	// hasLengths says that the parts' lengths are written; without it
	// each part is as long as its name, as a part written is.
	hasLengths = hasField << 1
)

// oddForm is the form of an entry that stands for a reference kept whole
// in List.odd; its name[0] is the reference's index there.
const oddForm = 7

// maxRawLen bounds the length of one encoded reference: 17 varints.
const maxRawLen = 17 * binary.MaxVarintLen64

// nameLen returns the length of the name of id in names.
func nameLen(names []string, id uint32) int {
	if id == 0 {
		return 0
	}
	return len(names[id-1])
}

// put encodes x at the start of b, which has room for maxRawLen bytes,
// and returns the length written. prev is the Span.Start of the reference
// before it; names are the names of x's ids.
func (x *raw) put(b []byte, prev int, names []string) int {
	head := uint64(x.form) | uint64(x.where)<<3
	for k, s := range x.sub {
		if s != (document.Span{}) {
			head |= 1 << (partShift + k)
			if s.Len() != nameLen(names, x.name[k]) {
				head |= hasLengths
			}
		}
	}
	for k, id := range x.name {
		if id != 0 {
			head |= 1 << (nameShift + k)
		}
	}
	if x.call != 0 {
		head |= hasCall
	}
	if x.field != 0 {
		head |= hasField
	}
	n := binary.PutUvarint(b, uint64(x.start-prev))
	n += binary.PutUvarint(b[n:], uint64(x.end-x.start))
	n += binary.PutUvarint(b[n:], head)
	if x.form == oddForm {
		return n + binary.PutUvarint(b[n:], uint64(x.name[0]))
	}
	for _, s := range x.sub {
		if s != (document.Span{}) {
			n += binary.PutUvarint(b[n:], uint64(s.Start-x.start))
			if head&hasLengths != 0 {
				n += binary.PutUvarint(b[n:], uint64(s.End-s.Start))
			}
		}
	}
	for _, id := range x.name {
		if id != 0 {
			n += binary.PutUvarint(b[n:], uint64(id-1))
		}
	}
	for _, id := range [...]uint32{x.call, x.field} {
		if id != 0 {
			n += binary.PutUvarint(b[n:], uint64(id-1))
		}
	}
	return n
}

// decode sets x to the reference encoded at b[i:] and returns the offset
// of the next; prev is the Span.Start of the reference before it, names
// the names of the ids.
func (x *raw) decode(b []byte, i, prev int, names []string) int {
	var v uint64
	v, i = uvarint(b, i)
	x.start = prev + int(v)
	v, i = uvarint(b, i)
	x.end = x.start + int(v)
	head, i := uvarint(b, i)
	x.form, x.where = uint8(head&7), uint8(head>>3&7)
	x.sub = [4]document.Span{}
	x.name = [5]uint32{}
	x.call, x.field = 0, 0
	if x.form == oddForm {
		v, i = uvarint(b, i)
		x.name[0] = uint32(v)
		return i
	}
	lengths := head&hasLengths != 0
	var off, n [4]int
	for k, parts := 0, head>>partShift&0xf; parts != 0; k, parts = k+1, parts>>1 {
		if parts&1 != 0 {
			v, i = uvarint(b, i)
			off[k] = int(v)
			if lengths {
				v, i = uvarint(b, i)
				n[k] = int(v)
			}
		}
	}
	for k, ids := 0, head>>nameShift&0x1f; ids != 0; k, ids = k+1, ids>>1 {
		if ids&1 != 0 {
			v, i = uvarint(b, i)
			x.name[k] = uint32(v) + 1
		}
	}
	if head&hasCall != 0 {
		v, i = uvarint(b, i)
		x.call = uint32(v) + 1
	}
	if head&hasField != 0 {
		v, i = uvarint(b, i)
		x.field = uint32(v) + 1
	}
	for k, parts := 0, head>>partShift&0xf; parts != 0; k, parts = k+1, parts>>1 {
		if parts&1 != 0 {
			if !lengths {
				n[k] = nameLen(names, x.name[k])
			}
			a := x.start + off[k]
			x.sub[k] = document.Span{Start: a, End: a + n[k]}
		}
	}
	return i
}

// uvarint decodes the varint at b[i:], which the list wrote itself.
func uvarint(b []byte, i int) (uint64, int) {
	if c := b[i]; c < 0x80 {
		return uint64(c), i + 1
	}
	var x uint64
	var s uint
	for {
		c := b[i]
		i++
		if c < 0x80 {
			return x | uint64(c)<<s, i
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
}

// Len returns the number of references.
func (l List) Len() int { return l.n }

// At returns the i-th reference, in order of Span.Start.
func (l List) At(i int) Ref {
	if i < 0 || i >= l.n {
		panic("refs: List.At index out of range")
	}
	var x raw
	next := l.seek(i/blockLen, &x)
	for range i % blockLen {
		next = x.decode(l.data, next, x.start, l.names)
	}
	return l.unpack(&x)
}

// seek sets x to the first reference of block b and returns the offset of
// the next.
func (l List) seek(b int, x *raw) int {
	bk := l.blocks[b]
	// Its distance is from the reference before it, whose start the
	// block's own stands for.
	d, _ := uvarint(l.data, int(bk.off))
	return x.decode(l.data, int(bk.off), int(bk.start)-int(d), l.names)
}

// unpackTo sets r to the reference x encodes.
func (l List) unpackTo(x *raw, r *Ref) {
	if x.form == oddForm {
		*r = l.odd[x.name[0]]
		return
	}
	r.Form, r.Where = Form(x.form), Where(x.where)
	r.Span = document.Span{Start: x.start, End: x.end}
	r.DomainSpan, r.TopicSpan, r.SectionSpan, r.PathSpan = x.sub[0], x.sub[1], x.sub[2], x.sub[3]
	r.Domain, r.Topic, r.Section = l.name(x.name[0]), l.name(x.name[1]), l.name(x.name[2])
	r.Path, r.Fragment = l.name(x.name[3]), l.name(x.name[4])
	r.Call, r.Field = l.tag(x.call), l.tag(x.field)
}

func (l List) unpack(x *raw) Ref {
	var r Ref
	l.unpackTo(x, &r)
	return r
}

func (l List) name(id uint32) string {
	if id == 0 {
		return ""
	}
	return l.names[id-1]
}

func (l List) tag(id uint32) string {
	if id == 0 {
		return ""
	}
	return l.tags[id-1]
}

// raws yields the encoded references in order.
func (l List) raws() iter.Seq2[int, *raw] {
	return func(yield func(int, *raw) bool) {
		var x raw
		next := 0
		for i := range l.n {
			next = x.decode(l.data, next, x.start, l.names)
			if !yield(i, &x) {
				return
			}
		}
	}
}

// All yields the references with their index, in order.
func (l List) All() iter.Seq2[int, Ref] {
	return func(yield func(int, Ref) bool) {
		var x raw
		var r Ref
		next := 0
		for i := range l.n {
			next = x.decode(l.data, next, x.start, l.names)
			l.unpackTo(&x, &r)
			if !yield(i, r) {
				return
			}
		}
	}
}

// Picked yields the references at the indexes idx, which ascend, each
// with its index. It decodes the list once, skipping the blocks that hold
// none of them: the way to read back the references a walk with All
// picked without keeping them.
func (l List) Picked(idx []int) iter.Seq2[int, Ref] {
	return func(yield func(int, Ref) bool) {
		var x raw
		var r Ref
		cur, next := -1, 0 // the index of x and where the one after it is
		for _, i := range idx {
			if i < 0 || i >= l.n || i < cur {
				panic("refs: List.Picked indexes out of range or order")
			}
			if b := i / blockLen; cur < 0 || b > cur/blockLen {
				// Past the block of x: start from the block of i.
				next = l.seek(b, &x)
				cur = b * blockLen
			}
			for cur < i {
				next = x.decode(l.data, next, x.start, l.names)
				cur++
			}
			l.unpackTo(&x, &r)
			if !yield(i, r) {
				return
			}
		}
	}
}

// Slice returns the references as a slice of Ref.
func (l List) Slice() []Ref {
	if l.n == 0 {
		return nil
	}
	out := make([]Ref, 0, l.n)
	for _, r := range l.All() {
		out = append(out, r)
	}
	return out
}

// Find returns the reference whose Span contains byte offset off (its end
// included, so a cursor just after a reference still finds it).
func (l List) Find(off int) (Ref, bool) {
	b := sort.Search(len(l.blocks), func(b int) bool { return int(l.blocks[b].start) > off }) - 1
	if b < 0 {
		return Ref{}, false
	}
	// The last reference of the block that starts at or before off.
	var x, y raw
	next := l.seek(b, &x)
	for i := b*blockLen + 1; i < min(l.n, (b+1)*blockLen); i++ {
		after := y.decode(l.data, next, x.start, l.names)
		if y.start > off {
			break
		}
		x, next = y, after
	}
	if off <= x.end {
		return l.unpack(&x), true
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
//
// It keeps what it is given as runs, each in order and encoded as a List
// is: a scanner finds references in a few passes over the text, each in
// order, and List merges the runs. A run grows by chunks rather than by
// copying what it holds, so that a document of many references is not
// held twice while it is read, nor copied over and over.
type ListBuilder struct {
	l List
	// runs are the runs before cur, in the order they were added; their
	// lengths fall by more than half from each to the next, so there are
	// at most about log2 of the references of them.
	runs   []run
	cur    run
	nameID map[string]uint32
	tagID  map[string]uint32
}

// run is a sequence of encoded references in the order of List.
type run struct {
	n int
	// full are the chunks filled before data, size their length in all.
	// No reference spans two chunks.
	full [][]byte
	size int
	data []byte
	// blocks locate references as if the chunks were one.
	blocks []block
	// last is the last reference added.
	last raw
	// keptEnd is the end of the last reference that List would keep, and
	// overlaps whether it would drop any.
	keptEnd  int
	overlaps bool
}

// bytesPerRef is about the encoded size of an ordinary reference: a
// little less leaves the list less spare room to trim than a little more.
const bytesPerRef = 8

// Grow makes room for n more references.
func (b *ListBuilder) Grow(n int) {
	if need := n * bytesPerRef; n > 0 && cap(b.cur.data)-len(b.cur.data) < need {
		b.cur.newChunk(need)
	}
}

// maxChunk is the size of a run's chunks once it holds that much: before,
// each chunk is as large as the ones before it together.
const maxChunk = 1 << 20

// newChunk starts a chunk of at least n bytes.
func (r *run) newChunk(n int) {
	if len(r.data) > 0 {
		r.full = append(r.full, r.data)
		r.size += len(r.data)
	}
	r.data = make([]byte, 0, max(n, min(r.size, maxChunk), 4*maxRawLen))
}

// chunk returns the i-th chunk of r.
func (r *run) chunk(i int) []byte {
	if i < len(r.full) {
		return r.full[i]
	}
	return r.data
}

// flat returns the chunks of r as one.
func (r *run) flat() []byte {
	if len(r.full) == 0 {
		return r.data
	}
	b := make([]byte, 0, r.size+len(r.data))
	for _, c := range r.full {
		b = append(b, c...)
	}
	return append(b, r.data...)
}

// add appends x, which must not sort before the last reference of r;
// names are the names of its ids.
func (r *run) add(x *raw, names []string) {
	if cap(r.data)-len(r.data) < maxRawLen {
		r.newChunk(0)
	}
	if r.n%blockLen == 0 {
		r.blocks = append(r.blocks, block{off: uint32(r.size + len(r.data)), start: uint32(x.start)})
	}
	k := x.put(r.data[len(r.data):len(r.data)+maxRawLen], r.last.start, names)
	r.data = r.data[:len(r.data)+k]
	if x.start < r.keptEnd {
		r.overlaps = true
	} else {
		r.keptEnd = x.end
	}
	r.last = *x
	r.n++
}

// before reports whether x sorts before y in a List: by start, the longer
// first on a tie.
func before(x, y *raw) bool {
	return x.start < y.start || x.start == y.start && x.end > y.end
}

// Add appends r.
func (b *ListBuilder) Add(r Ref) {
	x, ok := b.pack(&r)
	if !ok {
		// Whatever the encoding cannot hold is kept whole; its place in
		// the order is its span, clamped.
		start := max(0, min(r.Span.Start, math.MaxUint32))
		x = raw{start: start, end: max(start, min(r.Span.End, math.MaxUint32)),
			form: oddForm, name: [5]uint32{uint32(len(b.l.odd))}}
		b.l.odd = append(b.l.odd, r)
	}
	if b.cur.n > 0 && before(&x, &b.cur.last) {
		b.endRun()
	}
	b.cur.add(&x, b.l.names)
}

// endRun closes the current run, merging the last runs while one is not
// more than twice the size of the one after it.
func (b *ListBuilder) endRun() {
	b.runs = append(b.runs, b.cur)
	b.cur = run{}
	for k := len(b.runs); k >= 2 && b.runs[k-2].n <= 2*b.runs[k-1].n; k-- {
		b.runs[k-2] = merge(b.runs[k-2:k], b.l.names, false)
		b.runs[k-1] = run{}
		b.runs = b.runs[:k-1]
	}
}

// merge merges runs, adjacent and in the order they were added, keeping
// the order they were added in among equal references; names are the
// names of their ids. dedup drops every reference that overlaps one kept
// before it.
func merge(runs []run, names []string, dedup bool) run {
	// A cursor is at reference i of r, x, encoded in chunk c before next.
	type cursor struct {
		r    *run
		i, c int
		buf  []byte
		next int
		x    raw
	}
	cs := make([]cursor, 0, len(runs))
	blocks := 0
	for i := range runs {
		r := &runs[i]
		if r.n == 0 {
			continue
		}
		c := cursor{r: r, buf: r.chunk(0)}
		c.next = c.x.decode(c.buf, 0, 0, names)
		cs = append(cs, c)
		blocks += len(r.blocks)
	}
	out := run{blocks: make([]block, 0, blocks+1)}
	for len(cs) > 0 {
		m := 0
		for k := 1; k < len(cs); k++ {
			if before(&cs[k].x, &cs[m].x) {
				m = k
			}
		}
		c := &cs[m]
		if !dedup || c.x.start >= out.keptEnd || out.n == 0 {
			out.add(&c.x, names)
		}
		if c.i++; c.i == c.r.n {
			cs = slices.Delete(cs, m, m+1)
			continue
		}
		if c.next == len(c.buf) {
			c.c++
			c.buf, c.next = c.r.chunk(c.c), 0
		}
		c.next = c.x.decode(c.buf, c.next, c.x.start, names)
	}
	if dedup {
		out.overlaps = false
	}
	return out
}

func (b *ListBuilder) pack(r *Ref) (raw, bool) {
	if r.Span.Start < 0 || r.Span.End < r.Span.Start || r.Span.End > math.MaxUint32 ||
		r.Form < 0 || r.Form >= oddForm || r.Where < 0 || r.Where > 7 {
		return raw{}, false
	}
	x := raw{start: r.Span.Start, end: r.Span.End, form: uint8(r.Form), where: uint8(r.Where),
		sub: [4]document.Span{r.DomainSpan, r.TopicSpan, r.SectionSpan, r.PathSpan}}
	for _, s := range x.sub {
		if s != (document.Span{}) && (s.Start < x.start || s.End < s.Start) {
			return raw{}, false
		}
	}
	for i, s := range [...]string{r.Domain, r.Topic, r.Section, r.Path, r.Fragment} {
		x.name[i] = b.nameOf(s)
	}
	x.call = b.tagOf(r.Call)
	x.field = b.tagOf(r.Field)
	return x, true
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

func (b *ListBuilder) tagOf(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := b.tagID[s]; ok {
		return id
	}
	if b.tagID == nil {
		b.tagID = make(map[string]uint32)
	}
	b.l.tags = append(b.l.tags, s)
	id := uint32(len(b.l.tags))
	b.tagID[s] = id
	return id
}

// List returns the references added, sorted by Span.Start (longest first
// on ties, in the order added among equals) with every reference that
// overlaps one kept before it dropped, and resets b.
func (b *ListBuilder) List() List {
	l := b.l
	runs := b.runs
	if b.cur.n > 0 {
		runs = append(runs, b.cur)
	}
	*b = ListBuilder{}
	var r run
	switch {
	case len(runs) == 0:
		return List{}
	case len(runs) == 1 && !runs[0].overlaps:
		r = runs[0]
	default:
		r = merge(runs, l.names, true)
	}
	clear(runs)
	l.n, l.data, l.blocks = r.n, r.flat(), r.blocks
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

// trim returns l without the spare room of its encoding, copying it when
// that room is more than an eighth: the list lives as long as its file.
func (l List) trim() List {
	if l.n == 0 {
		return List{}
	}
	l.data = tight(l.data)
	l.blocks = tight(l.blocks)
	return l
}

// Retain returns the references of l for which keep reports true. It
// reuses l's storage: l must not be used afterwards.
func (l List) Retain(keep func(Ref) bool) List {
	// The references kept are encoded again over the ones read, and
	// writing never overtakes reading: the distance from the reference
	// kept before takes no more bytes than the distances it replaces, and
	// the kept odd references, numbered again in order, take the smallest
	// numbers.
	w, n := 0, 0
	var odd []Ref // few, and not in the order of the list
	var buf [maxRawLen]byte
	prev := 0
	for _, x := range l.raws() {
		if !keep(l.unpack(x)) {
			continue
		}
		if x.form == oddForm {
			odd = append(odd, l.odd[x.name[0]])
			x.name[0] = uint32(len(odd) - 1)
		}
		if n%blockLen == 0 {
			l.blocks[n/blockLen] = block{off: uint32(w), start: uint32(x.start)}
		}
		k := x.put(buf[:], prev, l.names)
		w += copy(l.data[w:], buf[:k])
		prev = x.start
		n++
	}
	l.n, l.data, l.blocks, l.odd = n, l.data[:w], l.blocks[:(n+blockLen-1)/blockLen], odd
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
	for _, x := range l.raws() {
		if x.form == oddForm {
			r := &l.odd[x.name[0]]
			d, t := r.Domain, r.Topic
			share(r)
			if r.Domain != d || r.Topic != t {
				r.Domain, r.Topic = d, t
			}
			continue
		}
		k := pair{x.name[0], x.name[1]}
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
