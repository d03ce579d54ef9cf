package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// DocumentSymbol outlines a document by its sections with their token
// costs: a topic's measured sections, or the headings of any other file
// measured with the workspace's tokenizer.
func (s *Server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	type node struct {
		level   int
		heading document.Span
		content document.Span
		name    string
		tokens  int
	}
	var nodes []node
	if t := v.file.Topic; t != nil && len(v.doc.Text) == len(t.Doc.Text) {
		for _, sec := range t.Sections {
			nodes = append(nodes, node{sec.Level, sec.Heading, sec.Content, sec.Name, sec.Tokens})
		}
	} else {
		secs := v.doc.Sections()
		spans := make([][2]int, len(secs))
		for i, sec := range secs {
			spans[i] = [2]int{sec.Content.Start, sec.Content.End}
		}
		_, per := v.lib.Counter().CountSpans(string(v.doc.Text), spans)
		for i, sec := range secs {
			n := 0
			if i < len(per) {
				n = per[i]
			}
			nodes = append(nodes, node{sec.Level, sec.Span, sec.Content, sec.Text, n})
		}
	}
	syms := make([]protocol.DocumentSymbol, len(nodes))
	for i, n := range nodes {
		detail := tok(n.tokens)
		syms[i] = protocol.DocumentSymbol{
			Name:           nonEmpty(n.name),
			Detail:         &detail,
			Kind:           protocol.SymbolKindString,
			Range:          v.rng(n.content),
			SelectionRange: v.rng(n.heading),
		}
	}
	levels := make([]int, len(nodes))
	for i, n := range nodes {
		levels[i] = n.level
	}
	out, _ := nest(syms, levels, 0, 0)
	if out == nil {
		out = []protocol.DocumentSymbol{}
	}
	return protocol.DocumentSymbolSlice(out), nil
}

// nest arranges symbols [i:] whose level is deeper than parent into a
// tree, returning them and the index of the first symbol that is not.
func nest(syms []protocol.DocumentSymbol, levels []int, i, parent int) ([]protocol.DocumentSymbol, int) {
	var out []protocol.DocumentSymbol
	for i < len(syms) && levels[i] > parent {
		sym := syms[i]
		sym.Children, i = nest(syms, levels, i+1, levels[i])
		out = append(out, sym)
	}
	return out, i
}

func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(untitled)"
	}
	return s
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
	lib := ws.Library()
	q := strings.ToLower(strings.TrimSpace(params.Query))
	type hit struct {
		t     *library.Topic
		score int
	}
	var hits []hit
	for _, t := range lib.Topics() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		score, ok := matchScore(q, t)
		if ok {
			hits = append(hits, hit{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) > maxWorkspaceSymbols {
		hits = hits[:maxWorkspaceSymbols]
	}
	out := make(protocol.WorkspaceSymbolSlice, 0, len(hits))
	enc := s.encoding()
	for _, h := range hits {
		t := h.t
		container := t.Domain
		name := fmt.Sprintf("%s — %s · %s", key(t), title(t), tok(t.Tokens))
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

// matchScore scores a topic against a lower-case query: a prefix of the
// name beats a substring of the key, which beats a subsequence or a title
// or tag match. The empty query matches everything.
func matchScore(q string, t *library.Topic) (int, bool) {
	if q == "" {
		return 0, true
	}
	k := strings.ToLower(key(t))
	name := strings.ToLower(t.Name)
	switch {
	case strings.HasPrefix(name, q):
		return 4, true
	case strings.Contains(k, q):
		return 3, true
	case strings.Contains(strings.ToLower(t.Meta.Title), q):
		return 2, true
	case subsequence(q, k):
		return 1, true
	}
	for _, tag := range t.Meta.Tags {
		if strings.Contains(strings.ToLower(tag), q) {
			return 1, true
		}
	}
	return 0, false
}

// subsequence reports whether every byte of q occurs in s in order.
func subsequence(q, s string) bool {
	i := 0
	for j := 0; j < len(s) && i < len(q); j++ {
		if s[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}
