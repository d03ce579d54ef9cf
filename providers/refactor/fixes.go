package refactor

import (
	"fmt"
	"strconv"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// Fix is a titled set of edits of one file.
type Fix struct {
	// Title says what the fix does.
	Title string
	// Diagnostic is the diagnostic the fix resolves, or nil for a fix of
	// several diagnostics or of none.
	Diagnostic *library.Diagnostic
	// Preferred marks the fix an editor may apply without asking.
	Preferred bool
	// Edits are the edits of the file, in order.
	Edits []Edit
}

// Fixes returns the quick fixes the diagnostics of one file carry, in
// order, for those whose span overlaps the byte range [start, end]: a
// replacement by each did-you-mean candidate, the first preferred, and
// the declared tokens of a token-drift updated to the measured ones,
// preferred. When the file has more than one token-drift with a fix and
// one of them overlaps the range, a last fix updates them all.
func Fixes(diags []library.Diagnostic, start, end int) []Fix {
	var out []Fix
	var drift []library.Diagnostic
	for _, d := range diags {
		if d.Code == library.CodeTokenDrift && d.Fix != nil {
			drift = append(drift, d)
		}
		if d.Fix == nil || !overlaps(d, start, end) {
			continue
		}
		if d.Code == library.CodeTokenDrift {
			title := fmt.Sprintf("Update declared tokens to %d (measured)", d.Fix.Measured)
			edits := []Edit{measuredEdit(d)}
			for _, m := range d.Fix.More {
				edits = append(edits, Edit{Span: m.Replace, NewText: strconv.Itoa(m.Measured)})
			}
			if len(edits) > 1 {
				title = fmt.Sprintf("Update all %d declared token numbers in this file", len(edits))
			}
			out = append(out, Fix{
				Title:      title,
				Diagnostic: &d,
				Preferred:  true,
				Edits:      edits,
			})
			continue
		}
		for i, c := range d.Fix.Candidates {
			out = append(out, Fix{
				Title:      fmt.Sprintf("Change to '%s'", c),
				Diagnostic: &d,
				Preferred:  i == 0,
				Edits:      []Edit{{Span: d.Fix.Replace, NewText: c}},
			})
		}
	}
	if len(drift) > 1 && overlapsAny(drift, start, end) {
		edits := make([]Edit, len(drift))
		for i, d := range drift {
			edits[i] = measuredEdit(d)
		}
		out = append(out, Fix{Title: fmt.Sprintf("Update all %d declared token numbers in this file", len(drift)), Edits: edits})
	}
	return out
}

// measuredEdit writes the measured tokens of a token-drift over the
// declared ones.
func measuredEdit(d library.Diagnostic) Edit {
	return Edit{Span: d.Fix.Replace, NewText: strconv.Itoa(d.Fix.Measured)}
}

// overlaps reports whether d's span meets the byte range [start, end].
func overlaps(d library.Diagnostic, start, end int) bool {
	return d.Span.End >= start && d.Span.Start <= end
}

// overlapsAny reports whether any of ds meets the byte range [start, end].
func overlapsAny(ds []library.Diagnostic, start, end int) bool {
	for _, d := range ds {
		if overlaps(d, start, end) {
			return true
		}
	}
	return false
}

// AddFrontmatter returns the fix that writes the frontmatter of topic t
// (see frontmatter) at the start of doc, its current text, when neither
// has a frontmatter block; t may be nil.
func AddFrontmatter(t *library.Topic, doc *document.Doc) (Fix, bool) {
	if t == nil || t.HasFrontmatter || doc.Frontmatter != nil {
		return Fix{}, false
	}
	return Fix{
		Title: "Add frontmatter with the derived metadata",
		Edits: []Edit{{Span: document.Span{}, NewText: frontmatter(t)}},
	}, true
}
