package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/present"
)

// Hover describes the reference under the cursor: what it loads and what
// that costs. An unresolved reference shows why and what was meant.
func (s *Server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	if h, ok := s.importHover(ctx, v, params.Position); ok {
		return h, nil
	}
	r, ok, err := v.refAt(params.Position)
	if err != nil || !ok {
		return nil, err
	}
	md, ok := present.Hover(v.lib, v.lib.Resolve(v.file, r))
	if !ok {
		return nil, nil
	}
	rng := v.rng(r.Span)
	s.mu.Lock()
	plain := !s.caps.markdown
	s.mu.Unlock()
	contents := markup(md)
	if plain {
		contents = &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: present.PlainText(md)}
	}
	return &protocol.Hover{Contents: contents, Range: &rng}, nil
}
