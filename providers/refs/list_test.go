package refs

import (
	"slices"
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
		t.Errorf("%d of %d references of an ordinary document are not packed", len(l.odd), len(want))
	}
	if got := unsafe.Sizeof(packed{}); got > 48 {
		t.Errorf("a packed reference takes %d bytes, want at most 48", got)
	}
}

// TestListOdd checks that references the packed form cannot hold come back
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
	if len(l.odd) != 2 {
		t.Errorf("%d references kept whole, want 2", len(l.odd))
	}
	if _, ok := l.Find(9); ok {
		t.Errorf("Find(9) found a reference between two")
	}
	var empty List
	if _, ok := empty.Find(0); ok || empty.Len() != 0 || empty.Slice() != nil {
		t.Errorf("the zero List is not empty")
	}
}

// TestListBuilderChunks adds references in reverse order, without a size
// given, so that the builder fills several chunks and sorts them.
func TestListBuilderChunks(t *testing.T) {
	t.Parallel()
	const n = 5000
	var b ListBuilder
	for i := n - 1; i >= 0; i-- {
		b.Add(Ref{Form: KeyForm, Span: document.Span{Start: 10 * i, End: 10*i + 5}, Domain: "d", DomainSpan: document.Span{Start: 10 * i, End: 10*i + 1}})
	}
	l := b.List()
	if l.Len() != n || cap(l.items) != n {
		t.Fatalf("Len = %d, cap %d; want %d", l.Len(), cap(l.items), n)
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
