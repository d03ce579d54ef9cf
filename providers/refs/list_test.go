package refs

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/ctxls/ctxls/providers/document"
)

func TestListRoundTrip(t *testing.T) {
	t.Parallel()
	d := document.Parse("/ws/commands/big.md", benchDoc(64<<10))
	want := scan(d, testOpts())
	if len(want) < 100 {
		t.Fatalf("the document holds %d references, want at least 100", len(want))
	}
	l := NewList(want)
	if l.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", l.Len(), len(want))
	}
	for i, r := range l.All() {
		if r != want[i] {
			t.Fatalf("At(%d) = %+v, want %+v", i, r, want[i])
		}
		if got, ok := l.Find(r.Span.End); !ok || got != r {
			t.Fatalf("Find(%d) = %+v, %v; want %+v", r.Span.End, got, ok, r)
		}
	}
	if len(l.odd) != 0 {
		t.Errorf("%d of %d references of an ordinary document are not encoded", len(l.odd), len(want))
	}
	if per := float64(len(l.data)+len(l.blocks)*int(unsafe.Sizeof(block{}))) / float64(l.Len()); per > 16 {
		t.Errorf("a reference takes %.1f bytes, want at most 16", per)
	}
}

// TestListOdd checks that references the encoding cannot hold come back
// whole, and that the list sorts and drops overlaps as scan does.
func TestListOdd(t *testing.T) {
	t.Parallel()
	far := Ref{Form: KeyForm, Span: document.Span{Start: 10, End: 70010}, Domain: "d",
		DomainSpan: document.Span{Start: 10, End: 11}, Topic: "t", TopicSpan: document.Span{Start: 70000, End: 70010}}
	outside := Ref{Form: IDForm, Where: Frontmatter, Span: document.Span{Start: 5, End: 8}, Domain: "x",
		DomainSpan: document.Span{Start: 1, End: 2}}
	plain := Ref{Form: PathForm, Span: document.Span{Start: 80000, End: 80004}, Path: "a.md",
		PathSpan: document.Span{Start: 80000, End: 80004}, Call: "getReference", Field: "context"}
	inner := Ref{Form: PathForm, Span: document.Span{Start: 80001, End: 80003}, Path: "b"}
	var b ListBuilder
	for _, r := range []Ref{plain, far, inner, outside} {
		b.Add(r)
	}
	l := b.List()
	want := []Ref{outside, far, plain}
	if l.Len() != len(want) {
		t.Fatalf("Len = %d, want %d: %+v", l.Len(), len(want), l.Slice())
	}
	for i, r := range want {
		if got := l.At(i); got != r {
			t.Errorf("At(%d) = %+v, want %+v", i, got, r)
		}
	}
	if len(l.odd) != 1 {
		t.Errorf("%d references kept whole, want 1", len(l.odd))
	}
	if _, ok := l.Find(9); ok {
		t.Errorf("Find(9) found a reference between two")
	}
	var empty List
	if _, ok := empty.Find(0); ok || empty.Len() != 0 || empty.Slice() != nil {
		t.Errorf("the zero List is not empty")
	}
}

// TestListBuilderReversed adds references in reverse order, without a
// size given, so that each is a run of its own that the builder merges.
func TestListBuilderReversed(t *testing.T) {
	t.Parallel()
	const n = 5000
	var b ListBuilder
	for i := n - 1; i >= 0; i-- {
		b.Add(Ref{Form: KeyForm, Span: document.Span{Start: 10 * i, End: 10*i + 5}, Domain: "d", DomainSpan: document.Span{Start: 10 * i, End: 10*i + 1}})
	}
	l := b.List()
	if l.Len() != n || cap(l.data) > len(l.data)+len(l.data)/8 {
		t.Fatalf("Len = %d, %d bytes in %d; want %d references without spare room", l.Len(), len(l.data), cap(l.data), n)
	}
	for i, r := range l.All() {
		if r.Span.Start != 10*i || r.Domain != "d" {
			t.Fatalf("At(%d) = %+v", i, r)
		}
	}
}

func TestListRetainShare(t *testing.T) {
	t.Parallel()
	d := document.Parse("/ws/commands/big.md", benchDoc(16<<10))
	all := scan(d, testOpts())
	var want []Ref
	for _, r := range all {
		if r.Form != PathForm {
			want = append(want, r)
		}
	}
	if len(want) == len(all) || len(want) == 0 {
		t.Fatalf("%d of %d references are not paths; want some of each", len(want), len(all))
	}
	l := NewList(all).Retain(func(r Ref) bool { return r.Form != PathForm })
	shared := map[string]string{}
	l.Share(func(r *Ref) {
		for _, s := range []*string{&r.Domain, &r.Topic} {
			if *s == "" {
				continue
			}
			if _, ok := shared[*s]; !ok {
				shared[*s] = strings.Clone(*s)
			}
			*s = shared[*s]
		}
	})
	if got := l.Slice(); !slices.Equal(got, want) {
		t.Fatalf("after Retain and Share: %d references, want %d", len(got), len(want))
	}
	for _, r := range l.All() {
		if r.Domain != "" && unsafe.StringData(r.Domain) != unsafe.StringData(shared[r.Domain]) {
			t.Fatalf("domain %q of %+v is not the shared copy", r.Domain, r)
		}
	}
}

// TestListMatchesStableSort builds lists of random references added in
// several orders and compares each with the plain form: the references
// sorted stably by start (longest first on ties) with every one that
// overlaps one kept before it dropped.
func TestListMatchesStableSort(t *testing.T) {
	t.Parallel()
	orders := []struct {
		name  string
		order func(rng *rand.Rand, rs []Ref)
	}{
		{"as made", func(*rand.Rand, []Ref) {}},
		{"sorted", func(_ *rand.Rand, rs []Ref) { slices.SortStableFunc(rs, cmpRef) }},
		{"reversed", func(_ *rand.Rand, rs []Ref) {
			slices.SortStableFunc(rs, cmpRef)
			slices.Reverse(rs)
		}},
		{"sorted runs", func(rng *rand.Rand, rs []Ref) {
			// As a scanner's passes make them: a few runs, each in order.
			for i := 0; i < len(rs); {
				n := min(len(rs)-i, 1+rng.IntN(len(rs)/3+1))
				slices.SortStableFunc(rs[i:i+n], cmpRef)
				i += n
			}
		}},
	}
	for _, n := range []int{0, 1, 31, 32, 33, 500, 5000} {
		for _, o := range orders {
			for _, hint := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				rs := randomRefs(rng, n)
				o.order(rng, rs)
				var b ListBuilder
				if hint {
					b.Grow(len(rs))
				}
				for _, r := range rs {
					b.Add(r)
				}
				l := b.List()
				want := plainList(rs)
				t.Run(fmt.Sprintf("%d/%s/hint=%v", n, o.name, hint), func(t *testing.T) {
					checkList(t, l, want, rng)
				})
			}
		}
	}
}

// checkList compares every way of reading l with want.
func checkList(t *testing.T, l List, want []Ref, rng *rand.Rand) {
	t.Helper()
	if got := l.Slice(); !slices.Equal(got, want) {
		t.Fatalf("Slice: %s", firstDiff(got, want))
	}
	if l.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", l.Len(), len(want))
	}
	for i, r := range want {
		if got := l.At(i); got != r {
			t.Fatalf("At(%d) = %+v, want %+v", i, got, r)
		}
	}
	offs := []int{-1, 0}
	for _, r := range want {
		offs = append(offs, r.Span.Start-1, r.Span.Start, r.Span.End, r.Span.End+1)
	}
	for _, off := range offs {
		w, wok := findPlain(want, off)
		if got, ok := l.Find(off); ok != wok || got != w {
			t.Fatalf("Find(%d) = %+v, %v; want %+v, %v", off, got, ok, w, wok)
		}
	}
	var idx []int
	for i := range want {
		if rng.IntN(3) == 0 {
			idx = append(idx, i)
		}
	}
	var picked []int
	for i, r := range l.Picked(idx) {
		if r != want[i] {
			t.Fatalf("Picked %d = %+v, want %+v", i, r, want[i])
		}
		picked = append(picked, i)
	}
	if !slices.Equal(picked, idx) {
		t.Fatalf("Picked yielded %v, want %v", picked, idx)
	}
	keep := func(r Ref) bool { return r.Span.Start%3 != 0 }
	var kept []Ref
	for _, r := range want {
		if keep(r) {
			kept = append(kept, r)
		}
	}
	if got := l.Retain(keep).Slice(); !slices.Equal(got, kept) {
		t.Fatalf("Retain: %s", firstDiff(got, kept))
	}
}

// firstDiff describes where got and want first differ.
func firstDiff(got, want []Ref) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("reference %d of %d is %+v, want %+v (of %d)", i, len(got), got[i], want[i], len(want))
		}
	}
	return fmt.Sprintf("%d references, want %d", len(got), len(want))
}

// randomRefs returns n references with parts at random, overlapping and
// repeating spans, a few of them of a shape the encoding keeps whole.
func randomRefs(rng *rand.Rand, n int) []Ref {
	names := []string{"", "d", "python", "topic", "Security Issues", "a/b.md", "frag"}
	name := func() string { return names[rng.IntN(len(names))] }
	rs := make([]Ref, n)
	for i := range rs {
		start := rng.IntN(10*n + 1)
		if rng.IntN(20) == 0 {
			start = rng.IntN(1 << 24)
		}
		end := start + rng.IntN(40)
		part := func() document.Span {
			if rng.IntN(2) == 0 {
				return document.Span{}
			}
			a := start + rng.IntN(end-start+1)
			if rng.IntN(50) == 0 {
				a = max(0, start-1-rng.IntN(5)) // before the reference: kept whole
			}
			return document.Span{Start: a, End: a + rng.IntN(end-a+1)}
		}
		rs[i] = Ref{Form: Form(rng.IntN(5)), Where: Where(rng.IntN(6)), Span: document.Span{Start: start, End: end},
			Domain: name(), DomainSpan: part(), Topic: name(), TopicSpan: part(), Section: name(), SectionSpan: part(),
			Path: name(), PathSpan: part(), Fragment: name()}
		if rng.IntN(4) == 0 {
			rs[i].Call = fmt.Sprintf("call%d", rng.IntN(300))
		}
		if rng.IntN(4) == 0 {
			rs[i].Field = "context"
		}
	}
	return rs
}

func cmpRef(x, y Ref) int {
	if c := cmp.Compare(x.Span.Start, y.Span.Start); c != 0 {
		return c
	}
	return cmp.Compare(y.Span.End, x.Span.End)
}

// plainList is what a List of rs holds, computed on the plain form.
func plainList(rs []Ref) []Ref {
	sorted := slices.Clone(rs)
	slices.SortStableFunc(sorted, cmpRef)
	var out []Ref
	end := -1
	for _, r := range sorted {
		if r.Span.Start >= end {
			out = append(out, r)
			end = r.Span.End
		}
	}
	return out
}

func findPlain(rs []Ref, off int) (Ref, bool) {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Span.Start > off }) - 1
	if i >= 0 && off <= rs[i].Span.End {
		return rs[i], true
	}
	return Ref{}, false
}
