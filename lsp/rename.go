package lsp

import (
	"context"
	"errors"
	"path"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/refactor"
	"github.com/ctxls/ctxls/providers/refs"
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

// Rename renames a topic: every reference in every form (imports of
// memory files and markdown links included), the frontmatter id, and the
// file itself when the client can rename files.
func (s *Server) Rename(ctx context.Context, params *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	v, _, t, err := s.renameTarget(ctx, params.TextDocumentPositionParams)
	if err != nil {
		return nil, err
	}
	o, err := s.operations(ctx)
	if err != nil {
		return nil, err
	}
	edit, err := o.RenameTopic(ctx, ops.RenameTopicRequest{Topic: t.ID, NewName: params.NewName})
	if err != nil {
		return nil, renameError(err)
	}
	if len(edit.Moves) == 0 {
		return &protocol.WorkspaceEdit{}, nil
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	if !caps.resourceRename {
		// The references change now and the file does not: say so where
		// the user looks, not only in the log.
		msg := "the client cannot rename files: rename " + present.RelPath(v.lib, t.Path) + " to " + filepath.Base(edit.Moves[0].To) + " yourself"
		s.log.Warn(msg)
		s.showMessage(ctx, protocol.MessageTypeWarning, msg)
		edit.Moves = nil
	}
	return s.workspaceEdit(edit, caps), nil
}

// renameError is the error of a rename or move the operations refuse:
// a bad name is bad params, a refusal (a file exists, references would
// break) a request that failed, with the reason.
func renameError(err error) error {
	switch {
	case errors.Is(err, ops.ErrInvalid):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case errors.Is(err, ops.ErrConflict):
		return jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return err
}

// WillRenameFiles keeps every reference whole when the user moves or
// renames files or folders in the editor: references to the topics that
// move in every form, the @imports of memory files and the relative
// markdown links to what moves, and those a moving file makes. A move
// that would break references (out of the workspace, a topic out of the
// context roots, onto a file that exists) is refused, and the user told
// why: the editor moves the files all the same.
func (s *Server) WillRenameFiles(ctx context.Context, params *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	o, err := s.operations(ctx)
	if err != nil {
		return nil, err
	}
	var req ops.MoveFilesRequest
	for _, fr := range params.Files {
		oldPath, err1 := pathOfString(fr.OldURI)
		newPath, err2 := pathOfString(fr.NewURI)
		if err1 != nil || err2 != nil {
			continue
		}
		req.Moves = append(req.Moves, ops.FileMove{From: oldPath, To: newPath})
	}
	edit, err := o.MoveFiles(ctx, req)
	if err != nil {
		if errors.Is(err, ops.ErrConflict) {
			msg := "references left as they are: " + err.Error()
			s.log.Warn(msg)
			s.showMessage(ctx, protocol.MessageTypeWarning, msg)
		}
		return nil, renameError(err)
	}
	if len(edit.Files) == 0 {
		return nil, nil
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	return s.workspaceEdit(edit, caps), nil
}

// pathOfString is pathOf for a URI held as a string.
func pathOfString(raw string) (string, error) {
	u, err := uri.Parse(raw)
	if err != nil {
		return "", err
	}
	return pathOf(u)
}

// workspaceEdit converts an edit of the operations into the protocol's
// form: versioned document changes, the text edits before the file
// renames, when the client supports them.
func (s *Server) workspaceEdit(edit ops.WorkspaceEdit, caps clientCaps) *protocol.WorkspaceEdit {
	enc := s.encoding()
	convert := func(fe ops.FileEdit) []protocol.TextEdit {
		tes := make([]protocol.TextEdit, len(fe.Edits))
		for i, e := range fe.Edits {
			tes[i] = protocol.TextEdit{Range: toRange(fe.Doc, e.Span, enc), NewText: e.NewText}
		}
		return tes
	}
	out := &protocol.WorkspaceEdit{}
	if !caps.documentChanges {
		out.Changes = map[uri.URI][]protocol.TextEdit{}
		for _, fe := range edit.Files {
			out.Changes[uriOf(fe.Path)] = convert(fe)
		}
		return out
	}
	for _, fe := range edit.Files {
		tes := convert(fe)
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uriOf(fe.Path)}}
		if fe.Open {
			version := fe.Version
			id.Version = &version
		}
		elems := make([]protocol.TextDocumentEditElement, len(tes))
		for i := range tes {
			elems[i] = &tes[i]
		}
		out.DocumentChanges = append(out.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: id, Edits: elems})
	}
	for _, m := range edit.Moves {
		out.DocumentChanges = append(out.DocumentChanges, &protocol.RenameFile{
			ResourceOperation: protocol.ResourceOperation{Kind: "rename"},
			Kind:              "rename",
			OldURI:            uriOf(m.From),
			NewURI:            uriOf(m.To),
		})
	}
	return out
}
