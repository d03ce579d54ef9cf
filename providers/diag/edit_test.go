package diag

import (
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

func TestApplyEdits(t *testing.T) {
	t.Parallel()
	sp := func(s, e int) document.Span { return document.Span{Start: s, End: e} }
	tests := []struct {
		name  string
		edits []Edit
		want  string // "" with fails
		fails bool
	}{
		{"none", nil, "abcdef", false},
		{"out of order", []Edit{{Span: sp(4, 5), NewText: "E"}, {Span: sp(0, 1), NewText: "A"}}, "AbcdEf", false},
		{"insertion and deletion", []Edit{{Span: sp(3, 3), NewText: "-"}, {Span: sp(5, 6)}}, "abc-de", false},
		{"overlapping", []Edit{{Span: sp(1, 4)}, {Span: sp(3, 5)}}, "", true},
		{"past the end", []Edit{{Span: sp(5, 7), NewText: "x"}}, "", true},
		{"reversed span", []Edit{{Span: sp(4, 2)}}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ApplyEdits([]byte("abcdef"), tc.edits)
			if tc.fails != (err != nil) || !tc.fails && string(got) != tc.want {
				t.Errorf("ApplyEdits = %q, %v; want %q (fails: %v)", got, err, tc.want, tc.fails)
			}
		})
	}
}
