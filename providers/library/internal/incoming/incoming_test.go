package incoming

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
	ix := New(0)
	want := map[string]bool{}
	check := func(step string) {
		t.Helper()
		got := slices.Sorted(ix.Paths("@python"))
		if exp := slices.Sorted(maps.Keys(want)); !slices.Equal(got, exp) {
			t.Fatalf("%s: paths = %v, want %v", step, got, exp)
		}
	}
	ix.Add("@other", "/w/context/d/other.md")
	key := ""
	for i := range 2 * MinBitset {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		k := ix.Add(string([]byte("@python")), p)
		if key == "" {
			key = k
		} else if unsafe.StringData(k) != unsafe.StringData(key) {
			t.Fatalf("add returned %q, want the first copy %q", k, key)
		}
		ix.Add("@python", p) // twice: still once in the set
		want[p] = true
		if i == MinBitset-1 || i == MinBitset {
			check(fmt.Sprintf("after %d adds", i+1))
		}
	}
	check("all added")
	if s, _ := ix.m.Lookup("@python"); s.bits == nil {
		t.Errorf("a set of every file but one is still a list")
	}
	for i := 0; i < 2*MinBitset; i += 3 {
		p := fmt.Sprintf("/w/context/d/t%02d.md", i)
		ix.Remove("@python", p)
		delete(want, p)
	}
	ix.Remove("@python", "/never/added.md")
	ix.Remove("@nothing", "/w/context/d/t01.md")
	check("after removals")
	if got := slices.Collect(ix.Paths("@nothing")); len(got) != 0 {
		t.Errorf("unknown key has paths %v", got)
	}
	if got := slices.Collect(ix.Paths("@other")); !slices.Equal(got, []string{"/w/context/d/other.md"}) {
		t.Errorf("@other = %v", got)
	}

	small := New(0)
	small.Add("d/x", "/a.md")
	small.Add("d/x", "/b.md")
	small.Remove("d/x", "/a.md")
	if got := slices.Collect(small.Paths("d/x")); !slices.Equal(got, []string{"/b.md"}) {
		t.Errorf("small set after removal = %v", got)
	}
}

// TestFileSetStaysListAmongManyFiles checks that a key named by a few of
// many files keeps a list, that one named by most of them turns into a
// bitset, and that both give back exactly what was filed, a file added
// after the bitset was sized included.
func TestFileSetStaysListAmongManyFiles(t *testing.T) {
	t.Parallel()
	ix := New(0)
	const files = 4096
	for i := range files {
		ix.Add("@big", fmt.Sprintf("/w/f%04d.md", i))
		if i%64 == 0 {
			ix.Add("d/few", fmt.Sprintf("/w/f%04d.md", i))
		}
	}
	late := "/w/late.md"
	ix.Add("@big", late)
	if s, _ := ix.m.Lookup("d/few"); s.bits != nil || len(s.list) != files/64 {
		t.Errorf("d/few: list of %d, bitset of %d words; want a list of %d", len(s.list), len(s.bits), files/64)
	}
	if s, _ := ix.m.Lookup("@big"); s.bits == nil {
		t.Fatalf("@big is a list of %d", len(s.list))
	}
	got := slices.Collect(ix.Paths("@big"))
	if len(got) != files+1 || !slices.Contains(got, late) || !slices.IsSorted(got) {
		t.Errorf("@big gave %d paths (late file there: %v), want %d in the order filed", len(got), slices.Contains(got, late), files+1)
	}
	ix.Remove("@big", late)
	ix.Remove("@big", "/w/f0000.md")
	if got := slices.Collect(ix.Paths("@big")); len(got) != files-1 || slices.Contains(got, late) || got[0] != "/w/f0001.md" {
		t.Errorf("after two removals @big gave %d paths starting %q", len(got), got[0])
	}
}
