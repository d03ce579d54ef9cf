package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/cost"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/present"
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
		label := fmt.Sprintf("%s · %s", present.Key(t), present.Tokens(t.Tokens))
		if d := t.Declared(); d > 0 {
			label += fmt.Sprintf(" (%s declared)", present.Thousands(d))
		}
		n := len(v.lib.References(t.ID))
		label += fmt.Sprintf(" · %d reference%s", n, present.Plural(n))
		out = append(out, protocol.CodeLens{Range: top, Command: protocol.Command{Title: label}})
	}
	o, err := s.operations(ctx)
	if err != nil {
		return nil, err
	}
	// The shared cache prices a document once per version of the library
	// and of its text, however many lenses and cost requests ask.
	sum, err := o.CostSummary(ctx, v.file)
	if err != nil {
		return nil, err
	}
	if sum.References > 0 {
		topics := sum.Counted
		label := fmt.Sprintf("Context: %d topic%s · %s", topics, present.Plural(topics), present.Tokens(sum.Total))
		if sum.Unresolved > 0 {
			label += fmt.Sprintf(" · %d unresolved", sum.Unresolved)
		}
		out = append(out, protocol.CodeLens{Range: top, Command: protocol.Command{Title: label}})
	}
	return out, nil
}

// InlayHint shows the token cost after every resolving reference in range.
func (s *Server) InlayHint(ctx context.Context, params *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	start, err1 := v.offset(params.Range.Start)
	end, err2 := v.offset(params.Range.End)
	if err1 != nil || err2 != nil {
		start, end = 0, len(v.doc.Text)
	}
	out := []protocol.InlayHint{}
	costs, _ := cost.Document(v.lib, v.file)
	for _, c := range costs {
		if c.Ref.Span.End < start || c.Ref.Span.Start > end || !c.Target.OK() || c.Target.Topic == nil {
			continue
		}
		pad := true
		label := present.Tokens(c.Tokens)
		if !c.Counted {
			label += " (already counted)"
		}
		out = append(out, protocol.InlayHint{
			Position:    v.rng(document.Span{Start: c.Ref.Span.End, End: c.Ref.Span.End}).Start,
			Label:       protocol.String(label),
			Kind:        protocol.InlayHintKindType,
			PaddingLeft: &pad,
		})
	}
	return out, nil
}
