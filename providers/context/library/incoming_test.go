package library

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"unsafe"
)

// TestIncomingIndexSmallAndLarge files paths under one key past the size at
// which its set turns from a slice into a map, removes some, and checks the
// set and the index's copy of the key at each step.
func TestIncomingIndexSmallAndLarge(t *testing.T) {
	t.Parallel()
	ix := incomingIndex{}
	want := map[string]bool{}
	check := func(step string) {
		t.Helper()
		got := slices.Sorted(ix.paths("@python"))
		if exp := slices.Sorted(maps.Keys(want)); !slices.Equal(got, exp) {
			t.Fatalf("%s: paths = %v, want %v", step, got, exp)
		}
	}
	key := ""
	for i := range 2 * smallSet {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		k := ix.add(string([]byte("@python")), p)
		if key == "" {
			key = k
		} else if unsafe.StringData(k) != unsafe.StringData(key) {
			t.Fatalf("add returned %q, want the first copy %q", k, key)
		}
		ix.add("@python", p) // twice: still once in the set
		want[p] = true
		if i == smallSet-1 || i == smallSet {
			check(fmt.Sprintf("after %d adds", i+1))
		}
	}
	check("all added")
	for i := 0; i < 2*smallSet; i += 3 {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		ix.remove("@python", p)
		delete(want, p)
	}
	ix.remove("@python", "/never/added.md")
	ix.remove("@nothing", "/w/context/d/t01.md")
	check("after removals")
	if got := slices.Collect(ix.paths("@nothing")); len(got) != 0 {
		t.Errorf("unknown key has paths %v", got)
	}

	small := incomingIndex{}
	small.add("d/x", "/a.md")
	small.add("d/x", "/b.md")
	small.remove("d/x", "/a.md")
	if got := slices.Collect(small.paths("d/x")); !slices.Equal(got, []string{"/b.md"}) {
		t.Errorf("small set after removal = %v", got)
	}
}
