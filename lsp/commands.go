package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ctxls/ctxls/providers/context/cost"
	"github.com/ctxls/ctxls/providers/context/refs"
)

// commandInfo is one entry of ctxls/commands.
type commandInfo struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	URI         string   `json:"uri"`
	Description string   `json:"description,omitempty"`
	References  []string `json:"references"`
	Tokens      int      `json:"tokens"`
	Unresolved  int      `json:"unresolved,omitempty"`
}

// commands answers ctxls/commands {}: every command with its references
// and their total token cost.
func commands(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	lib := ws.Library()
	var items []commandInfo
	for _, c := range lib.Commands() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		info := commandInfo{Name: c.Name, Path: c.Path, URI: string(uriOf(c.Path)), Description: c.Description, References: []string{}}
		if f, ok := lib.File(c.Path); ok {
			costs, total := cost.Document(lib, f)
			info.Tokens = total
			for _, rc := range costs {
				text := cost.Text(rc.Ref, rc.Target)
				if !rc.Target.OK() {
					info.Unresolved++
				}
				if !slices.Contains(info.References, text) {
					info.References = append(info.References, text)
				}
			}
		}
		items = append(items, info)
	}
	return newList(items, nil), nil
}

// documentCostItem is one reference in ctxls/documentCost.
type documentCostItem struct {
	Reference string `json:"reference"`
	Form      string `json:"form"`
	Domain    string `json:"domain,omitempty"`
	Topic     string `json:"topic,omitempty"`
	Section   string `json:"section,omitempty"`
	Title     string `json:"title,omitempty"`
	Tokens    int    `json:"tokens"`
	Counted   bool   `json:"counted"`
	Resolved  bool   `json:"resolved"`
	Path      string `json:"path,omitempty"`
	Line      int    `json:"line"`
	Message   string `json:"message,omitempty"`
}

type documentCostResult struct {
	URI      string             `json:"uri"`
	Total    int                `json:"total"`
	Items    []documentCostItem `json:"items"`
	Warnings []warning          `json:"warnings"`
}

// documentCost answers ctxls/documentCost {uri}: the references of a
// document and what loading them costs.
func documentCost(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("uri", p.URI); err != nil {
		return nil, err
	}
	res := documentCostResult{URI: p.URI, Items: []documentCostItem{}, Warnings: []warning{}}
	v, err := s.viewOf(ctx, p.URI)
	if err != nil {
		res.Warnings = append(res.Warnings, warning{Message: err.Error(), Code: "unreadable-document"})
		return res, nil
	}
	costs, total := cost.Document(v.lib, v.file)
	res.Total = total
	for _, rc := range costs {
		it := documentCostItem{
			Reference: cost.Text(rc.Ref, rc.Target),
			Form:      rc.Ref.Form.String(),
			Domain:    rc.Ref.Domain,
			Topic:     rc.Ref.Topic,
			Section:   rc.Ref.Section,
			Tokens:    rc.Tokens,
			Counted:   rc.Counted,
			Resolved:  rc.Target.OK(),
			Line:      v.doc.Lines.LineOf(rc.Ref.Span.Start),
			Message:   rc.Target.Message,
		}
		if t := rc.Target.Topic; t != nil {
			it.Domain, it.Topic, it.Title, it.Path = t.Domain, t.Name, t.Meta.Title, t.Path
			if rc.Target.Section != nil {
				it.Section = rc.Target.Section.Name
			}
		}
		if rc.Ref.Form == refs.PathForm && rc.Target.Topic == nil {
			it.Topic = ""
		}
		res.Items = append(res.Items, it)
	}
	return res, nil
}
