package refcost

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ctxls/ctxls/providers/library"
)

// Mark is what an editor shows after one reference of a document that
// loads a topic or a section: where the reference ends and what loading it
// costs, in a few words however many references the document makes.
type Mark struct {
	// End is the byte offset where the reference ends in the document.
	End int32
	// Tokens is the cost of the topic or section the reference loads.
	Tokens int32
	// Counted reports whether Tokens is part of the document's total, as
	// Item.Counted does.
	Counted bool
}

// Marks prices the references of f against lib as summarize does and
// returns a mark for each reference that loads a topic or a section, in
// order of End. It stops with the context's error when ctx is done.
func Marks(ctx context.Context, lib *library.Snapshot, f *library.File) ([]Mark, error) {
	targets := make([]brief, f.Refs.Len())
	whole := map[*library.Topic]bool{}
	n := 0
	for i, r := range f.Refs.All() {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("price %s: %w", f.Path, err)
			}
		}
		t := lib.ResolveBrief(f, r)
		targets[i] = brief{topic: t.Topic, section: t.Section, kind: t.Kind}
		if t.Topic != nil && t.OK() {
			n++
			if t.Section == nil {
				whole[t.Topic] = true
			}
		}
	}
	type sectionKey struct {
		topic   *library.Topic
		section *library.Section
	}
	seen := map[sectionKey]bool{}
	marks := make([]Mark, 0, n)
	for i, r := range f.Refs.All() {
		b := targets[i]
		if b.topic == nil || (b.kind != library.TopicTarget && b.kind != library.SectionTarget && b.kind != library.DomainTarget) {
			continue
		}
		tokens := b.topic.Tokens
		if b.section != nil {
			tokens = b.section.Tokens
		}
		k := sectionKey{b.topic, b.section}
		counted := !seen[k] && (b.section == nil || !whole[b.topic])
		if counted {
			seen[k] = true
		}
		marks = append(marks, Mark{End: clamp32(r.Span.End), Tokens: clamp32(tokens), Counted: counted})
	}
	if !slices.IsSortedFunc(marks, byEnd) {
		slices.SortStableFunc(marks, byEnd)
	}
	return marks, nil
}

func byEnd(a, b Mark) int { return cmp.Compare(a.End, b.End) }

// clamp32 narrows n to an int32; offsets and costs of a document bounded
// in size never reach the limit.
func clamp32(n int) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}
