package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// heavyMethods are the LSP methods whose work grows with the workspace or
// with the whole document they name (not with a cursor's neighbourhood):
// they wait for a place among the few heavy requests of the operations,
// beside the custom methods that price, list and search, so that a flood
// of them queues instead of holding each its memory at once.
var heavyMethods = map[string]bool{
	protocol.MethodTextDocumentReferences:     true,
	protocol.MethodTextDocumentPrepareRename:  true,
	protocol.MethodTextDocumentRename:         true,
	protocol.MethodWorkspaceSymbol:            true,
	protocol.MethodTextDocumentDocumentSymbol: true,
	protocol.MethodTextDocumentDocumentLink:   true,
	protocol.MethodTextDocumentInlayHint:      true,
	protocol.MethodTextDocumentCodeLens:       true,
}

// holdHeavy waits for a place among the heavy requests when method is one
// of heavyMethods, and returns the context that carries it and the
// function that gives it back. A request cancelled while it waits gets
// the context's error. Before the workspace is open there is no place to
// wait for: the method's handler reports why.
func (s *Server) holdHeavy(ctx context.Context, method string) (context.Context, func(), error) {
	if !heavyMethods[method] {
		return ctx, func() {}, nil
	}
	o, err := s.operations(ctx)
	if err != nil || o == nil {
		return ctx, func() {}, nil
	}
	return o.Heavy(ctx)
}
