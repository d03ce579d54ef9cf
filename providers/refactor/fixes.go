package refactor

import (
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// Fix is a fix of one file that an editor offers as a code action.
type Fix struct {
	diag.Fix
	// Diagnostic is the diagnostic the fix resolves, or nil for a fix of
	// none.
	Diagnostic *diag.Diagnostic
}

// Fixes returns the fixes that the diagnostics of one file carry, in
// order, of those whose span overlaps the byte range [start, end].
func Fixes(diags []diag.Diagnostic, start, end int) []Fix {
	var out []Fix
	for i := range diags {
		d := &diags[i]
		if d.Span.End < start || d.Span.Start > end {
			continue
		}
		for _, f := range d.Fixes {
			out = append(out, Fix{Fix: f, Diagnostic: d})
		}
	}
	return out
}

// AddFrontmatter returns the fix that writes the frontmatter of topic t
// (see frontmatter) at the start of doc, its current text, when neither
// has a frontmatter block; t may be nil.
func AddFrontmatter(t *library.Topic, doc *document.Doc) (Fix, bool) {
	if t == nil || t.HasFrontmatter || doc.Frontmatter != nil {
		return Fix{}, false
	}
	return Fix{Fix: diag.Fix{
		Title: "Add frontmatter with the derived metadata",
		Edits: []diag.Edit{{Span: document.Span{}, NewText: frontmatter(t)}},
	}}, true
}
