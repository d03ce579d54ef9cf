package slab

import (
	"testing"
	"unsafe"
)

// TestSlabTake checks that the slices a slab hands out are zeroed, have
// no room to grow into their neighbours, do not overlap, and come from
// one array until it is used up; and that a nil slab still allocates.
func TestSlabTake(t *testing.T) {
	t.Parallel()
	var s Slab[int]
	a, b := s.Take(3), s.Take(2)
	if len(a) != 3 || cap(a) != 3 || len(b) != 2 || cap(b) != 2 {
		t.Fatalf("len/cap %d/%d and %d/%d, want 3/3 and 2/2", len(a), cap(a), len(b), cap(b))
	}
	if unsafe.Add(unsafe.Pointer(&a[0]), 3*unsafe.Sizeof(0)) != unsafe.Pointer(&b[0]) {
		t.Errorf("the second slice does not follow the first in one array")
	}
	for i := range a {
		a[i] = 7
	}
	a = append(a, 8) // past its cap: a copy, not b
	if a[3] != 8 || b[0] != 0 || b[1] != 0 {
		t.Fatalf("a = %v, b = %v after writes to a", a, b)
	}
	big := s.Take(Size)
	if len(big) != Size {
		t.Errorf("take(%d) gave %d", Size, len(big))
	}
	var none *Slab[int]
	if got := none.Take(4); len(got) != 4 || cap(got) != 4 {
		t.Errorf("nil slab gave len %d cap %d", len(got), cap(got))
	}
	for range Size {
		if got := s.Take(1); len(got) != 1 || got[0] != 0 {
			t.Fatalf("take(1) = %v", got)
		}
	}
}
