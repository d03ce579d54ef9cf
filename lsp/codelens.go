package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/present"
)

// CodeLens shows, above a document that references topics, what loading
// them all costs; above a topic file, its cost and how often it is used.
func (s *Server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []protocol.CodeLens{}
	if l, ok := s.memoryLens(ctx, v); ok {
		out = append(out, l)
	}
	top := v.rng(document.Span{})
	if t := v.file.Topic; t != nil {
		label := fmt.Sprintf("%s · %s", present.Key(t), present.TokensIn(t.Tokens, v.lib.Counter().Name()))
		if d := t.Declared(); d > 0 {
			label += fmt.Sprintf(" (%s declared)", numfmt.Thousands(d))
		}
		_, n := v.lib.FirstReferences(t.ID, 0)
		label += fmt.Sprintf(" · %d reference%s", n, numfmt.Plural(n))
		out = append(out, protocol.CodeLens{Range: top, Command: protocol.Command{Title: label}})
	}
	o, err := s.operations(ctx)
	if err != nil {
		return nil, err
	}
	// The shared cache prices a document once per version of the library
	// and of its text, however many lenses and cost requests ask.
	sum, err := o.CostSummary(ctx, v.lib, v.file)
	if err != nil {
		return nil, err
	}
	if sum.References > 0 {
		topics := sum.Counted
		label := fmt.Sprintf("Context: %d topic%s · %s", topics, numfmt.Plural(topics), present.TokensIn(sum.Total, v.lib.Counter().Name()))
		if sum.Unresolved > 0 {
			label += fmt.Sprintf(" · %d unresolved", sum.Unresolved)
		}
		out = append(out, protocol.CodeLens{Range: top, Command: protocol.Command{Title: label}})
	}
	return out, nil
}
