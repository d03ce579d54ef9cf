package library

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"unsafe"
)

// TestIncomingIndexSmallAndLarge files paths under one key past the size at
// which its set turns from a list into a bitset, removes some, and checks
// the set and the index's copy of the key at each step.
func TestIncomingIndexSmallAndLarge(t *testing.T) {
	t.Parallel()
	ix := newSharedIncoming(0)
	want := map[string]bool{}
	check := func(step string) {
		t.Helper()
		got := slices.Sorted(ix.paths("@python"))
		if exp := slices.Sorted(maps.Keys(want)); !slices.Equal(got, exp) {
			t.Fatalf("%s: paths = %v, want %v", step, got, exp)
		}
	}
	ix.add("@other", "/w/context/d/other.md")
	key := ""
	for i := range 2 * minBitset {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		k := ix.add(string([]byte("@python")), p)
		if key == "" {
			key = k
		} else if unsafe.StringData(k) != unsafe.StringData(key) {
			t.Fatalf("add returned %q, want the first copy %q", k, key)
		}
		ix.add("@python", p) // twice: still once in the set
		want[p] = true
		if i == minBitset-1 || i == minBitset {
			check(fmt.Sprintf("after %d adds", i+1))
		}
	}
	check("all added")
	if s, _ := ix.m.Lookup("@python"); s.bits == nil {
		t.Errorf("a set of every file but one is still a list")
	}
	for i := 0; i < 2*minBitset; i += 3 {
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
	if got := slices.Collect(ix.paths("@other")); !slices.Equal(got, []string{"/w/context/d/other.md"}) {
		t.Errorf("@other = %v", got)
	}

	small := newSharedIncoming(0)
	small.add("d/x", "/a.md")
	small.add("d/x", "/b.md")
	small.remove("d/x", "/a.md")
	if got := slices.Collect(small.paths("d/x")); !slices.Equal(got, []string{"/b.md"}) {
		t.Errorf("small set after removal = %v", got)
	}
}

// TestFileSetStaysListAmongManyFiles checks that a key named by a few of
// many files keeps a list, that one named by most of them turns into a
// bitset, and that both give back exactly what was filed, a file added
// after the bitset was sized included.
func TestFileSetStaysListAmongManyFiles(t *testing.T) {
	t.Parallel()
	ix := newSharedIncoming(0)
	const files = 4096
	for i := range files {
		ix.add("@big", fmt.Sprintf("/w/f%04d.md", i))
		if i%64 == 0 {
			ix.add("d/few", fmt.Sprintf("/w/f%04d.md", i))
		}
	}
	late := "/w/late.md"
	ix.add("@big", late)
	if s, _ := ix.m.Lookup("d/few"); s.bits != nil || len(s.list) != files/64 {
		t.Errorf("d/few: list of %d, bitset of %d words; want a list of %d", len(s.list), len(s.bits), files/64)
	}
	if s, _ := ix.m.Lookup("@big"); s.bits == nil {
		t.Fatalf("@big is a list of %d", len(s.list))
	}
	got := slices.Collect(ix.paths("@big"))
	if len(got) != files+1 || !slices.Contains(got, late) || !slices.IsSorted(got) {
		t.Errorf("@big gave %d paths (late file there: %v), want %d in the order filed", len(got), slices.Contains(got, late), files+1)
	}
	ix.remove("@big", late)
	ix.remove("@big", "/w/f0000.md")
	if got := slices.Collect(ix.paths("@big")); len(got) != files-1 || slices.Contains(got, late) || got[0] != "/w/f0001.md" {
		t.Errorf("after two removals @big gave %d paths starting %q", len(got), got[0])
	}
}
