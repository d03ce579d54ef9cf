package agentfiles

import (
	"fmt"
	"slices"

	"github.com/ctxls/ctxls/providers/diag"
)

// ApplyEdits returns text with the edits applied. Edits may come in any
// order but must not overlap.
func ApplyEdits(text []byte, edits []diag.Edit) ([]byte, error) {
	es := slices.Clone(edits)
	slices.SortStableFunc(es, func(a, b diag.Edit) int { return a.Span.Start - b.Span.Start })
	out := make([]byte, 0, len(text))
	at := 0
	for _, e := range es {
		if e.Span.Start < at || e.Span.End < e.Span.Start || e.Span.End > len(text) {
			return nil, fmt.Errorf("edit of bytes %d-%d overlaps another or leaves the text (%d bytes)", e.Span.Start, e.Span.End, len(text))
		}
		out = append(out, text[at:e.Span.Start]...)
		out = append(out, e.NewText...)
		at = e.Span.End
	}
	return append(out, text[at:]...), nil
}
