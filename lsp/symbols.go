package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/present"
)

// DocumentSymbol outlines a document by its sections with their token
// costs: a topic's measured sections, or the headings of any other file
// measured with the workspace's tokenizer.
func (s *Server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := documentSymbols(present.Outline(v.doc, v.file.Topic, v.lib.Counter()), v)
	if out == nil {
		out = []protocol.DocumentSymbol{}
	}
	return protocol.DocumentSymbolSlice(out), nil
}

// documentSymbols converts an outline into document symbols whose detail
// is each section's cost.
func documentSymbols(hs []present.Heading, v *view) []protocol.DocumentSymbol {
	var out []protocol.DocumentSymbol
	for _, h := range hs {
		detail := present.Tokens(h.Tokens)
		out = append(out, protocol.DocumentSymbol{
			Name:           h.Name,
			Detail:         &detail,
			Kind:           protocol.SymbolKindString,
			Range:          v.rng(h.Content),
			SelectionRange: v.rng(h.Heading),
			Children:       documentSymbols(h.Children, v),
		})
	}
	return out
}

// maxWorkspaceSymbols bounds the answer to a workspace symbol query.
const maxWorkspaceSymbols = 500

// Symbols finds topics whose key, title or tags match the query (all its
// characters in order, ignoring case), best matches first.
func (s *Server) Symbols(ctx context.Context, params *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	lib := ws.Snapshot().Library()
	topics, err := present.Search(ctx, lib.Topics(), params.Query, maxWorkspaceSymbols)
	if err != nil {
		return nil, err
	}
	out := make(protocol.WorkspaceSymbolSlice, 0, len(topics))
	enc := s.encoding()
	for _, t := range topics {
		container := t.Domain
		name := present.SymbolName(t)
		loc := protocol.Location{URI: uriOf(t.Path)}
		if t.Doc != nil {
			loc = location(&library.File{Path: t.Path, Doc: t.Doc}, document.Span{}, enc)
		}
		out = append(out, protocol.WorkspaceSymbol{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: name, Kind: protocol.SymbolKindFile, ContainerName: &container},
			Location:              &loc,
		})
	}
	return out, nil
}
