package library

import (
	"slices"
	"testing"
	"unsafe"
)

// TestInternListShares checks that equal lists come back as one copy,
// that lists differing in one word or in order do not, and that the
// caller's list is not the one kept.
func TestInternListShares(t *testing.T) {
	t.Parallel()
	var in interner
	a := in.internList([]string{"async", "ml00"})
	b := in.internList([]string{string([]byte("async")), "ml00"})
	if !slices.Equal(a, []string{"async", "ml00"}) || unsafe.SliceData(a) != unsafe.SliceData(b) {
		t.Errorf("equal lists: %v at %p and %v at %p, want one copy", a, unsafe.SliceData(a), b, unsafe.SliceData(b))
	}
	for _, other := range [][]string{{"ml00", "async"}, {"async", "ml01"}, {"async"}, {"asyncml00"}, {"async\x00ml00"}} {
		c := in.internList(slices.Clone(other))
		if !slices.Equal(c, other) || unsafe.SliceData(c) == unsafe.SliceData(a) {
			t.Errorf("%q came back as %q sharing %v", other, c, unsafe.SliceData(c) == unsafe.SliceData(a))
		}
	}
	mine := []string{"cache", "web00"}
	if got := in.internList(mine); unsafe.SliceData(got) == unsafe.SliceData(mine) {
		t.Errorf("the interner kept the caller's list")
	}
	if got := in.internList(nil); got != nil {
		t.Errorf("nil list came back as %v", got)
	}
}
