package cost

import (
	"context"
	"errors"
	"testing"
)

// TestMarksAgreeWithDocument checks, for every file of the example
// library, that Marks gives one mark per reference that Document prices
// to a topic, with the same end, cost and counting, and that a cancelled
// context stops it.
func TestMarksAgreeWithDocument(t *testing.T) {
	t.Parallel()
	lib := exampleLibrary(t)
	marked := 0
	for _, f := range lib.Files() {
		items, _ := Document(lib, f)
		var want []Mark
		for _, it := range items {
			if it.Target.OK() && it.Target.Topic != nil {
				want = append(want, Mark{End: int32(it.Ref.Span.End), Tokens: int32(it.Tokens), Counted: it.Counted})
			}
		}
		got, err := Marks(context.Background(), lib, f)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d marks, want %d", f.Path, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: mark %d = %+v, want %+v", f.Path, i, got[i], want[i])
			}
		}
		marked += len(got)
	}
	if marked == 0 {
		t.Fatal("no file of the example library has a mark: the test checks nothing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range lib.Files() {
		if f.Refs.Len() == 0 {
			continue
		}
		if _, err := Marks(ctx, lib, f); !errors.Is(err, context.Canceled) {
			t.Errorf("Marks(%s) with a cancelled context: err = %v, want context.Canceled", f.Path, err)
		}
		break
	}
}
