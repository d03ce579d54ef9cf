package lsp

import (
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/present"
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

// Symbols finds the topics, skills, commands, subagents and rules that
// match the query, best matches first: the catalog's entries, each listed
// by its reference, title and cost.
func (s *Server) Symbols(ctx context.Context, params *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	o, err := s.operations(ctx)
	if err != nil {
		return nil, err
	}
	res, err := o.Symbols(ctx, ops.SymbolsRequest{Query: params.Query, Limit: maxWorkspaceSymbols})
	if err != nil {
		return nil, opsError(err)
	}
	dir := o.Library().Dir()
	out := make(protocol.WorkspaceSymbolSlice, 0, len(res.Items))
	for _, sym := range res.Items {
		loc := protocol.Location{URI: uriOf(filepath.Join(dir, filepath.FromSlash(sym.Path)))}
		out = append(out, protocol.WorkspaceSymbol{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: sym.Name, Kind: protocol.SymbolKindFile, ContainerName: &sym.Container},
			Location:              &loc,
		})
	}
	return out, nil
}
