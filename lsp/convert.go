package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/refs"
	"github.com/ctxls/ctxls/providers/workspace"
)

// pathOf converts a file URI into a cleaned absolute path.
func pathOf(u uri.URI) (string, error) {
	if u == "" {
		return "", jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing document uri")
	}
	if !u.IsFile() {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "not a file uri: %s", string(u))
	}
	p := u.FsPath()
	if p == "" || !filepath.IsAbs(p) {
		return "", jsonrpc2.Errorf(jsonrpc2.InvalidParams, "not an absolute file uri: %s", string(u))
	}
	return filepath.Clean(p), nil
}

// uriOf converts an absolute path into a file URI.
func uriOf(path string) uri.URI { return uri.File(path) }

// toPos converts a document position to a protocol position.
func toPos(p document.Position) protocol.Position {
	return protocol.Position{Line: uint32(max(p.Line, 0)), Character: uint32(max(p.Character, 0))}
}

// toRange converts a byte span of doc into a protocol range.
func toRange(doc *document.Doc, sp document.Span, enc document.Encoding) protocol.Range {
	r := doc.Lines.Range(sp, enc)
	return protocol.Range{Start: toPos(r.Start), End: toPos(r.End)}
}

// offsetOf converts a protocol position in doc into a byte offset.
func offsetOf(doc *document.Doc, p protocol.Position, enc document.Encoding) (int, error) {
	off, err := doc.Lines.Offset(document.Position{Line: int(p.Line), Character: int(p.Character)}, enc)
	if err != nil {
		return 0, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "position %d:%d is outside the document", p.Line, p.Character)
	}
	return off, nil
}

// view is one document as the editor sees it, with the library snapshot
// it is read against.
type view struct {
	// ws is the workspace as the request found it, and lib its library.
	ws   *workspace.Snapshot
	lib  *library.Snapshot
	path string
	// file is the document as the library knows it: the open text when the
	// library has caught up with it, else a parse of that text.
	file *library.File
	doc  *document.Doc
	enc  document.Encoding
}

// view returns the document at uri: the editor's text when open, the
// library's copy or the disk otherwise. Files that are not part of the
// workspace (or not markdown) still get a view, with no references
// resolved through the library's index of that file.
func (s *Server) view(ctx context.Context, u uri.URI) (*view, error) {
	path, err := pathOf(u)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	snap := ws.Snapshot()
	lib := snap.Library()
	v := &view{ws: snap, lib: lib, path: path, enc: s.encoding()}
	f, known := lib.File(path)
	text, _, open := snap.Overlay(path)
	switch {
	case known && f.Doc != nil && (!open || f.Doc.SameString(text)):
		v.file = f
	case open:
		v.file = lib.ParseFile(path, []byte(text), f)
	default:
		data, err := readText(ctx, lib, path)
		if err != nil {
			return nil, err
		}
		v.file = lib.ParseFile(path, data, f)
	}
	v.doc = v.file.Doc
	if v.doc != nil && v.doc.Released() {
		// The library keeps no text of a file no editor has open.
		held, err := v.doc.Held(ctx)
		switch {
		case errors.Is(err, document.ErrChanged):
			// Changed since it was indexed (the library hears of it): answer
			// from the text there is now.
			data, rerr := readText(ctx, lib, path)
			if rerr != nil {
				return nil, rerr
			}
			v.file = lib.ParseFile(path, data, f)
			held = v.file.Doc
		case err != nil:
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		v.doc = held
	}
	return v, nil
}

// readText reads the document at path through lib; a file that cannot be
// read or is not text is an invalid parameter.
func readText(ctx context.Context, lib *library.Snapshot, path string) ([]byte, error) {
	data, err := lib.ReadDocument(ctx, path)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "read %s: %v", path, discover.UnwrapPath(err))
	}
	if document.IsBinary(data) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is not a text file", path)
	}
	return data, nil
}

// refOptions tunes the reference scanner to lib.
func refOptions(lib *library.Snapshot) refs.Options { return lib.RefOptions() }

// offset converts a protocol position in the view's document.
func (v *view) offset(p protocol.Position) (int, error) { return offsetOf(v.doc, p, v.enc) }

// rng converts a span of the view's document.
func (v *view) rng(sp document.Span) protocol.Range { return toRange(v.doc, sp, v.enc) }

// refAt returns the reference at a position, if any.
func (v *view) refAt(p protocol.Position) (refs.Ref, bool, error) {
	off, err := v.offset(p)
	if err != nil {
		return refs.Ref{}, false, err
	}
	r, ok := v.file.Refs.Find(off)
	return r, ok, nil
}

// location returns the protocol location of a span in another file of the
// library, read with the same encoding.
func location(f *library.File, sp document.Span, enc document.Encoding) protocol.Location {
	return locationIn(uriOf(f.Path), f, sp, enc)
}

// locationIn is location for file f whose URI is u, for converting many
// spans of one file: making a URI escapes the whole path.
func locationIn(u uri.URI, f *library.File, sp document.Span, enc document.Encoding) protocol.Location {
	loc := protocol.Location{URI: u}
	if f.Doc != nil {
		loc.Range = toRange(f.Doc, sp, enc)
	}
	return loc
}

// invalidParams builds the error for params that do not make sense.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}
