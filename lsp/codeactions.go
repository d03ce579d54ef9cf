package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/ops"
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
	synced := v.doc.Len() == fileLen(v.lib, v.path)
	if want(protocol.CodeActionKindQuickFix) && synced {
		lines := ops.FileLines(v.lib, s.agentSet(ctx, v.ws))
		for _, f := range refactor.Fixes(v.lib.Diagnose(v.path), start, end) {
			out = append(out, s.quickFix(v, fileLines(v.file), f, lines))
		}
	}
	if want(protocol.CodeActionKindQuickFix) {
		out = append(out, s.agentQuickFixes(ctx, v, start, end)...)
	}
	if want(kindAddFrontmatter) {
		if f, ok := refactor.AddFrontmatter(v.file.Topic, v.doc); ok {
			kind := kindAddFrontmatter
			out = append(out, &protocol.CodeAction{Title: f.Title, Kind: &kind, Edit: s.editOf(v, f.Edits)})
		}
	}
	return out, nil
}

// fileLines returns the lines of a library file's text, or nil for a file
// without text.
func fileLines(f *library.File) *document.Lines {
	if f == nil || f.Doc == nil {
		return nil
	}
	return f.Doc.Lines
}

// fileLen is the length of the library's text of a file.
func fileLen(lib *library.Snapshot, p string) int {
	if f, ok := lib.File(p); ok && f.Doc != nil {
		return f.Doc.Len()
	}
	return 0
}

// quickFix converts a fix of the view's document into a quick fix; lines
// are those of the text the spans of the fix's diagnostic are in, linesOf
// those of the files of its related places.
func (s *Server) quickFix(v *view, lines *document.Lines, f refactor.Fix, linesOf func(string) *document.Lines) *protocol.CodeAction {
	kind := protocol.CodeActionKindQuickFix
	a := &protocol.CodeAction{Title: f.Title, Kind: &kind, Edit: s.editOf(v, f.Edits)}
	if f.Diagnostic != nil {
		a.Diagnostics = []protocol.Diagnostic{toDiagnostic(lines, f.Diagnostic, v.enc, linesOf)}
	}
	if f.Preferred {
		preferred := true
		a.IsPreferred = &preferred
	}
	return a
}

// editOf turns edits of the view's document into a workspace edit.
func (s *Server) editOf(v *view, edits []diag.Edit) *protocol.WorkspaceEdit {
	tes := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		tes[i] = protocol.TextEdit{Range: v.rng(e.Span), NewText: e.NewText}
	}
	return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uriOf(v.path): tes}}
}
