package library

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/refs"
)

// TestReferencesAgreeWithResolve: References, which skips path references
// that end in another file name, finds exactly the references that
// resolve to the topic, on the example library and on a tree of path
// references written every way the resolver reads them.
func TestReferencesAgreeWithResolve(t *testing.T) {
	t.Parallel()
	trees := map[string]string{
		"example": filepath.Join("..", "..", "examples", "library"),
		"paths": testtree.New(t, map[string]string{
			"context/python/index.md":    "# Python\n\n- [a](a.md)\n- [b](b.md#Usage)\n",
			"context/python/a.md":        "# A\n\nSee [b](./b.md), [b again](../python/b.md) and b.md.\n",
			"context/python/b.md":        "# B\n\n## Usage\n\nBack to [a](a.md#Nothing) and [gone](gone.md).\n",
			"context/git/c.md":           "# C\n\n[b](../python/b.md) [deep](../../python/b.md) [index](../python/index.md)\n",
			"commands/run.md":            "# Run\n\n[a](../context/python/a.md) python:b git:c [x](x.md)\n",
			"commands/named.md":          "# Named\n\npython:a#Nothing python:b#Usage python:b.md python:nope nowhere:a old:legacy old:legacy#Gone old:x\n",
			"context/legacy.md":          "---\nid: old/legacy\n---\n# Legacy\n",
			"context/old/x.md":           "# X\n",
			"commands/nested/deeper.md":  "# Deeper\n\n[b](../../context/python/b.md) [a](../context/python/a.md)\n",
			"context/python/b_extra.md":  "# B extra\n\n[b](b)\n",
			"context/python/a_notes.txt": "not markdown\n",
		}),
	}
	for name, dir := range trees {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := load(t, dir, nil)
			n := 0
			for _, tp := range l.Snapshot().Topics() {
				var want []string
				for _, f := range l.Snapshot().Files() {
					for _, r := range f.Refs.All() {
						if r.Form == refs.DomainForm {
							continue
						}
						tg := l.snap.Load().resolveWith(f, r, false)
						if tg.Topic == tp && (tg.OK() || tg.Failed == PartSection) {
							want = append(want, fmt.Sprint(f.Rel, r.Span))
						}
					}
				}
				var got []string
				all := l.Snapshot().References(tp.ID)
				for _, loc := range all {
					got = append(got, fmt.Sprint(loc.File.Rel, loc.Ref.Span))
				}
				for _, n := range []int{-1, 0, 1, len(all) - 1, len(all), len(all) + 1} {
					want := all
					if n >= 0 && n < len(all) {
						want = all[:n]
					}
					first, total := l.Snapshot().FirstReferences(tp.ID, n)
					if total != len(all) || !slices.Equal(first, want) {
						t.Errorf("FirstReferences(%s, %d) = %d of %d, want the first of References' %d", tp.ID, n, len(first), total, len(all))
					}
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("References(%s):\n got  %q\n want %q", tp.ID, got, want)
				}
				n += len(got)
			}
			if n == 0 {
				t.Fatal("no topic has a reference: the test checks nothing")
			}
		})
	}
}
