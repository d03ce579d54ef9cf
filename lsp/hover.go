package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/present"
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
	if h, ok := s.fieldHover(ctx, v, params.Position); ok {
		return h, nil
	}
	r, ok, err := v.refAt(params.Position)
	if err != nil {
		return nil, err
	}
	if ok {
		if md, ok := present.Hover(v.lib, v.lib.Resolve(v.file, r)); ok {
			return s.hover(md+"\n\n"+present.CountedIn(v.lib.Counter().Name()), v.rng(r.Span)), nil
		}
	}
	if h, ok := s.fileRefHover(ctx, v, params.Position); ok {
		return h, nil
	}
	return nil, nil
}

// hover is a hover of markdown md over rng, in plain text for clients
// without markdown.
func (s *Server) hover(md string, rng protocol.Range) *protocol.Hover {
	s.mu.Lock()
	plain := !s.caps.markdown
	s.mu.Unlock()
	contents := markup(md)
	if plain {
		contents = &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: present.PlainText(md)}
	}
	return &protocol.Hover{Contents: contents, Range: &rng}
}

// fieldHover documents the frontmatter key under the cursor in an agent
// file.
func (s *Server) fieldHover(ctx context.Context, v *view, pos protocol.Position) (*protocol.Hover, bool) {
	kind := s.agentKind(ctx, v)
	if kind == agentfiles.KindUnknown {
		return nil, false
	}
	off, err := v.offset(pos)
	if err != nil {
		return nil, false
	}
	if kind == agentfiles.KindMCP {
		rel, _ := fsguard.Rel(v.lib.Dir(), v.path)
		f, span, ok := agentfiles.MCPFieldAt(rel, v.doc.Text, off)
		if !ok {
			return nil, false
		}
		return s.hover(present.FieldDoc(f), v.rng(span)), true
	}
	if kind == agentfiles.KindOpenCodeConfig {
		f, span, ok := agentfiles.OpenCodeFieldAt(v.doc.Text, off)
		if !ok {
			return nil, false
		}
		return s.hover(present.FieldDoc(f), v.rng(span)), true
	}
	spotAt := agentfiles.SpotAt
	if kind == agentfiles.KindSettings {
		spotAt = agentfiles.SettingSpot
	}
	spot, ok := spotAt(v.doc.Text, off)
	if !ok || spot.Value || off >= spot.KeySpan.End {
		return nil, false
	}
	f, ok := agentfiles.FieldNamed(kind, spot.Key)
	if !ok {
		return nil, false
	}
	return s.hover(present.FieldDoc(f), v.rng(spot.KeySpan)), true
}
