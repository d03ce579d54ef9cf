package lsp

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/present"
	"github.com/ctxls/ctxls/providers/context/refactor"
	"github.com/ctxls/ctxls/providers/context/refs"
	"github.com/ctxls/ctxls/providers/context/workspace"
)

// PrepareRename accepts the topic part of a reference and proposes the
// topic's name.
func (s *Server) PrepareRename(ctx context.Context, params *protocol.PrepareRenameParams) (protocol.PrepareRenameResult, error) {
	v, r, t, err := s.renameTarget(ctx, params.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	return &protocol.PrepareRenamePlaceholder{Range: v.rng(refactor.NameSpan(v.doc, r)), Placeholder: path.Base(t.Name)}, nil
}

// codeRequestFailed is LSP's RequestFailed: the request was valid, but
// there is nothing here it can do (the client shows the message).
const codeRequestFailed jsonrpc2.Code = -32803

// renameTarget finds the document's view and the topic reference under
// the cursor.
func (s *Server) renameTarget(ctx context.Context, at protocol.TextDocumentPositionParams) (*view, refs.Ref, *library.Topic, error) {
	v, err := s.view(ctx, at.TextDocument.URI)
	if err != nil {
		return nil, refs.Ref{}, nil, err
	}
	r, ok, err := v.refAt(at.Position)
	if err != nil {
		return nil, refs.Ref{}, nil, err
	}
	if !ok {
		return nil, refs.Ref{}, nil, jsonrpc2.NewError(codeRequestFailed, "no topic reference here to rename")
	}
	t := v.lib.Resolve(v.file, r)
	if t.Kind == library.DomainTarget || r.Form == refs.DomainForm {
		return nil, refs.Ref{}, nil, jsonrpc2.NewError(codeRequestFailed, "a domain is renamed by renaming its folder")
	}
	if t.Topic == nil || (!t.OK() && t.Failed != library.PartSection) {
		return nil, refs.Ref{}, nil, jsonrpc2.NewError(codeRequestFailed, "the reference does not resolve to a topic")
	}
	if t.Topic.Domain == "" {
		return nil, refs.Ref{}, nil, jsonrpc2.NewError(codeRequestFailed, "files directly in a context root are not renamed")
	}
	return v, r, t.Topic, nil
}

// Rename renames a topic: every reference, the frontmatter id, and the
// file itself when the client can rename files.
func (s *Server) Rename(ctx context.Context, params *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	v, _, t, err := s.renameTarget(ctx, params.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	m, err := refactor.Rename(v.lib, t, params.NewName)
	if err != nil {
		return nil, opsError(err)
	}
	if m.Name == t.Name {
		return &protocol.WorkspaceEdit{}, nil
	}
	edits := refactor.Edits(v.lib, []refactor.Move{m}, "", "")
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	var renames []refactor.Move
	if caps.resourceRename {
		renames = []refactor.Move{m}
	} else {
		// The references change now and the file does not: say so where
		// the user looks, not only in the log.
		msg := "the client cannot rename files: rename " + present.RelPath(v.lib, t.Path) + " to " + filepath.Base(m.NewPath) + " yourself"
		s.log.Warn(msg)
		s.showMessage(ctx, protocol.MessageTypeWarning, msg)
	}
	return s.workspaceEdit(ctx, v.ws, edits, renames, caps)
}

// WillRenameFiles updates every reference to topics the user is moving or
// renaming in the editor (files, or folders holding topics), and every
// @import of a memory file's tree that names a moved file or is made by
// one.
func (s *Server) WillRenameFiles(ctx context.Context, params *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	snap := ws.Snapshot()
	lib := snap.Library()
	edits := map[string][]refactor.Edit{}
	for _, fr := range params.Files {
		oldPath, err1 := pathOfString(fr.OldURI)
		newPath, err2 := pathOfString(fr.NewURI)
		if err1 != nil || err2 != nil {
			continue
		}
		moves, stranded := refactor.Moves(lib, oldPath, newPath)
		for _, t := range stranded {
			s.log.Warn(fmt.Sprintf("%s moves out of the context roots: its references are left as they are", present.RelPath(lib, t.Path)))
		}
		for p, es := range refactor.Edits(lib, moves, oldPath, newPath) {
			for _, e := range es {
				if !slices.ContainsFunc(edits[p], func(x refactor.Edit) bool { return x.Span == e.Span }) {
					edits[p] = append(edits[p], e)
				}
			}
		}
	}
	if len(edits) == 0 {
		return s.addImportRenames(ctx, snap, params, nil), nil
	}
	for p := range edits {
		slices.SortFunc(edits[p], func(a, b refactor.Edit) int { return a.Span.Start - b.Span.Start })
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	out, err := s.workspaceEdit(ctx, snap, edits, nil, caps)
	if err != nil {
		return nil, err
	}
	return s.addImportRenames(ctx, snap, params, out), nil
}

// pathOfString is pathOf for a URI held as a string.
func pathOfString(raw string) (string, error) {
	u, err := uri.Parse(raw)
	if err != nil {
		return "", err
	}
	return pathOf(u)
}

// workspaceEdit converts edits (and file renames) into the protocol's
// form: versioned document changes when the client supports them.
func (s *Server) workspaceEdit(ctx context.Context, snap *workspace.Snapshot, edits map[string][]refactor.Edit, renames []refactor.Move, caps clientCaps) (*protocol.WorkspaceEdit, error) {
	lib := snap.Library()
	enc := s.encoding()
	paths := make([]string, 0, len(edits))
	for p := range edits {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	convert := func(p string) ([]protocol.TextEdit, bool) {
		f, ok := lib.File(p)
		if !ok || f.Doc == nil {
			return nil, false
		}
		var tes []protocol.TextEdit
		for _, e := range edits[p] {
			tes = append(tes, protocol.TextEdit{Range: toRange(f.Doc, e.Span, enc), NewText: e.NewText})
		}
		return tes, true
	}
	out := &protocol.WorkspaceEdit{}
	if !caps.documentChanges {
		out.Changes = map[uri.URI][]protocol.TextEdit{}
		for _, p := range paths {
			if tes, ok := convert(p); ok {
				out.Changes[uriOf(p)] = tes
			}
		}
		return out, nil
	}
	for _, p := range paths {
		tes, ok := convert(p)
		if !ok {
			continue
		}
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uriOf(p)}}
		if _, version, open := snap.Overlay(p); open {
			id.Version = &version
		}
		elems := make([]protocol.TextDocumentEditElement, len(tes))
		for i := range tes {
			elems[i] = &tes[i]
		}
		out.DocumentChanges = append(out.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: id, Edits: elems})
	}
	for _, m := range renames {
		out.DocumentChanges = append(out.DocumentChanges, &protocol.RenameFile{
			ResourceOperation: protocol.ResourceOperation{Kind: "rename"},
			Kind:              "rename",
			OldURI:            uriOf(m.Topic.Path),
			NewURI:            uriOf(m.NewPath),
		})
	}
	return out, nil
}
