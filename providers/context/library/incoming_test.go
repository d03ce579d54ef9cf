package library

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// TestIncomingIndexSmallAndLarge files paths under one key past the size at
// which its set turns from a list into a bitset, removes some, and checks
// the set and the key's id at each step.
func TestIncomingIndexSmallAndLarge(t *testing.T) {
	t.Parallel()
	ix := newIncoming(0)
	want := map[string]bool{}
	check := func(step string) {
		t.Helper()
		got := slices.Sorted(ix.paths("@python"))
		if exp := slices.Sorted(maps.Keys(want)); !slices.Equal(got, exp) {
			t.Fatalf("%s: paths = %v, want %v", step, got, exp)
		}
	}
	remove := func(k, p string) {
		if id, ok := ix.keyID(k); ok {
			ix.remove(id, p)
		}
	}
	first := ix.add("@other", "/w/context/d/other.md")
	for i := range 2 * minBitset {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		if k := ix.add(string([]byte("@python")), p); k == first {
			t.Fatalf("add gave @python the id %d of @other", k)
		}
		ix.add("@python", p) // twice: still once in the set
		want[p] = true
		if i == minBitset-1 || i == minBitset {
			check(fmt.Sprintf("after %d adds", i+1))
		}
	}
	check("all added")
	if ix.sets[ix.add("@python", "/w/context/d/t00.md")].bits == nil {
		t.Errorf("a set of every file but one is still a list")
	}
	for i := 0; i < 2*minBitset; i += 3 {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		remove("@python", p)
		delete(want, p)
	}
	remove("@python", "/never/added.md")
	remove("@nothing", "/w/context/d/t01.md")
	check("after removals")
	if got := slices.Collect(ix.paths("@nothing")); len(got) != 0 {
		t.Errorf("unknown key has paths %v", got)
	}
	if got := slices.Collect(ix.paths("@other")); !slices.Equal(got, []string{"/w/context/d/other.md"}) {
		t.Errorf("@other = %v", got)
	}

	small := newIncoming(0)
	small.add("d/x", "/a.md")
	k := small.add("d/x", "/b.md")
	small.remove(k, "/a.md")
	if got := slices.Collect(small.paths("d/x")); !slices.Equal(got, []string{"/b.md"}) {
		t.Errorf("small set after removal = %v", got)
	}
}
