package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/library"
)

// Hover describes the reference under the cursor: what it loads and what
// that costs. An unresolved reference shows why and what was meant.
func (s *Server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	r, ok, err := v.refAt(params.Position)
	if err != nil || !ok {
		return nil, err
	}
	t := v.lib.Resolve(v.file, r)
	var md string
	switch {
	case t.Kind == library.NotAReference:
		return nil, nil
	case t.Kind == library.DomainTarget && t.Domain != nil:
		md = domainMarkdown(v.lib, t.Domain)
	case t.Topic != nil && (t.OK() || t.Failed == library.PartSection):
		md = topicMarkdown(v.lib, t.Topic, t.Section)
		if !t.OK() {
			md = fmt.Sprintf("⚠ %s\n\n%s", mdEscape(t.Message), md)
		}
	default:
		md = "⚠ " + mdEscape(t.Message)
		if len(t.Candidates) > 0 {
			md += "\n\nDid you mean " + quoteList(t.Candidates) + "?"
		}
	}
	rng := v.rng(r.Span)
	contents := markup(md)
	s.mu.Lock()
	if !s.caps.markdown {
		contents.Kind = protocol.MarkupKindPlainText
	}
	s.mu.Unlock()
	return &protocol.Hover{Contents: contents, Range: &rng}, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
