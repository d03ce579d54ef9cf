package library

import (
	"fmt"
	"slices"
	"testing"
)

// TestFileSetStaysListAmongManyFiles checks that a key named by a few of
// many files keeps a list, that one named by most of them turns into a
// bitset, and that both give back exactly what was filed, a file added
// after the bitset was sized included.
func TestFileSetStaysListAmongManyFiles(t *testing.T) {
	t.Parallel()
	ix := newIncoming(0)
	const files = 4096
	for i := range files {
		ix.add("@big", fmt.Sprintf("/w/f%04d.md", i))
		if i%64 == 0 {
			ix.add("d/few", fmt.Sprintf("/w/f%04d.md", i))
		}
	}
	late := "/w/late.md"
	ix.add("@big", late)
	few, _ := ix.keyID("d/few")
	big, _ := ix.keyID("@big")
	if s := ix.sets[few]; s.bits != nil || len(s.list) != files/64 {
		t.Errorf("d/few: list of %d, bitset of %d words; want a list of %d", len(s.list), len(s.bits), files/64)
	}
	if s := ix.sets[big]; s.bits == nil {
		t.Fatalf("@big is a list of %d", len(s.list))
	}
	got := slices.Collect(ix.paths("@big"))
	if len(got) != files+1 || !slices.Contains(got, late) || !slices.IsSorted(got) {
		t.Errorf("@big gave %d paths (late file there: %v), want %d in the order filed", len(got), slices.Contains(got, late), files+1)
	}
	ix.remove(big, late)
	ix.remove(big, "/w/f0000.md")
	if got := slices.Collect(ix.paths("@big")); len(got) != files-1 || slices.Contains(got, late) || got[0] != "/w/f0001.md" {
		t.Errorf("after two removals @big gave %d paths starting %q", len(got), got[0])
	}
}
