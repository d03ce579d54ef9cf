package lsp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refactor"
)

// kindAddFrontmatter is the kind of the action that writes a frontmatter
// block into a topic file that has none.
const kindAddFrontmatter protocol.CodeActionKind = "refactor.rewrite.addFrontmatter"

// CodeAction offers the fixes the library's diagnostics carry in the
// requested range (did-you-mean replacements, declared tokens updated to
// the measured ones), and frontmatter for a topic file without it.
// Diagnostics are recomputed rather than read from the request, so a fix
// never applies to stale text.
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	start, err1 := v.offset(params.Range.Start)
	end, err2 := v.offset(params.Range.End)
	if err1 != nil || err2 != nil {
		return nil, invalidParams("range is outside the document")
	}
	want := func(kind protocol.CodeActionKind) bool {
		if len(params.Context.Only) == 0 {
			return true
		}
		for _, k := range params.Context.Only {
			if kind == k || strings.HasPrefix(string(kind), string(k)+".") {
				return true
			}
		}
		return false
	}
	out := []protocol.CommandOrCodeAction{}
	diags := v.lib.Diagnose(v.path)
	synced := len(v.doc.Text) == len(fileText(v.lib, v.path))
	if want(protocol.CodeActionKindQuickFix) && synced {
		var drift []library.Diagnostic
		for _, d := range diags {
			if d.Code == library.CodeTokenDrift && d.Fix != nil {
				drift = append(drift, d)
			}
			if d.Fix == nil || d.Span.End < start || d.Span.Start > end {
				continue
			}
			pd := toDiagnostic(v.file, d, v.enc)
			if d.Code == library.CodeTokenDrift {
				out = append(out, s.quickFix(v, fmt.Sprintf("Update declared tokens to %d (measured)", d.Fix.Measured), pd, true,
					refactor.Edit{Span: d.Fix.Replace, NewText: strconv.Itoa(d.Fix.Measured)}))
				continue
			}
			for i, c := range d.Fix.Candidates {
				out = append(out, s.quickFix(v, fmt.Sprintf("Change to '%s'", c), pd, i == 0, refactor.Edit{Span: d.Fix.Replace, NewText: c}))
			}
		}
		if len(drift) > 1 && overlapsAny(drift, start, end) {
			var edits []refactor.Edit
			for _, d := range drift {
				edits = append(edits, refactor.Edit{Span: d.Fix.Replace, NewText: strconv.Itoa(d.Fix.Measured)})
			}
			out = append(out, s.quickFix(v, fmt.Sprintf("Update all %d declared token numbers in this file", len(drift)), protocol.Diagnostic{}, false, edits...))
		}
	}
	if t := v.file.Topic; t != nil && !t.HasFrontmatter && v.doc.Frontmatter == nil && want(kindAddFrontmatter) {
		kind := kindAddFrontmatter
		edit := s.editOf(v, []refactor.Edit{{Span: document.Span{}, NewText: refactor.Frontmatter(t)}})
		out = append(out, &protocol.CodeAction{Title: "Add frontmatter with the derived metadata", Kind: &kind, Edit: edit})
	}
	return out, nil
}

func overlapsAny(ds []library.Diagnostic, start, end int) bool {
	for _, d := range ds {
		if d.Span.End >= start && d.Span.Start <= end {
			return true
		}
	}
	return false
}

// fileText is the library's text of a file.
func fileText(lib *library.Library, p string) []byte {
	if f, ok := lib.File(p); ok && f.Doc != nil {
		return f.Doc.Text
	}
	return nil
}

// quickFix builds a quick fix editing the view's document.
func (s *Server) quickFix(v *view, title string, diag protocol.Diagnostic, preferred bool, edits ...refactor.Edit) *protocol.CodeAction {
	kind := protocol.CodeActionKindQuickFix
	a := &protocol.CodeAction{Title: title, Kind: &kind, Edit: s.editOf(v, edits)}
	if diag.Message != nil {
		a.Diagnostics = []protocol.Diagnostic{diag}
	}
	if preferred {
		a.IsPreferred = &preferred
	}
	return a
}

// editOf turns edits of the view's document into a workspace edit.
func (s *Server) editOf(v *view, edits []refactor.Edit) *protocol.WorkspaceEdit {
	tes := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		tes[i] = protocol.TextEdit{Range: v.rng(e.Span), NewText: e.NewText}
	}
	return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uriOf(v.path): tes}}
}
