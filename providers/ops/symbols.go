package ops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/present"
)

// SymbolsRequest asks for what an editor's symbol search for Query finds
// among the topics, skills, commands, subagents and rules: each whose
// name starts with the query, whose reference or title holds it, whose
// reference holds its characters in order, or whose tags hold it,
// ignoring case. The empty query finds everything.
type SymbolsRequest struct {
	Query string `json:"query"`
	// Limit is the most results returned; 0 means the default of 500.
	Limit int `json:"limit,omitempty"`
}

// Symbol is one result: an inventory entry and how an editor lists it.
type Symbol struct {
	InventoryEntry
	// Name is the entry's reference, title and measured cost.
	Name string `json:"name"`
	// Container is a topic's domain, the kind of any other entry.
	Container string `json:"container"`
}

// SymbolsResponse is the results, best first, and otherwise topics in
// the library's order before the other kinds in the inventory's.
type SymbolsResponse = List[Symbol]

// defaultSymbols is the default Limit of a SymbolsRequest.
const defaultSymbols = 500

// Symbols finds topics, skills, commands, subagents and rules for an
// editor's symbol search. It reads what the inventory lists, with the
// same references, titles and costs, so that the editor's symbols are the
// catalog's entries.
func (o *Ops) Symbols(ctx context.Context, req SymbolsRequest) (SymbolsResponse, error) {
	if req.Limit < 0 {
		return SymbolsResponse{}, invalidf("limit must not be negative")
	}
	limit := cmp.Or(req.Limit, defaultSymbols)
	q := strings.ToLower(strings.TrimSpace(req.Query))
	snap := o.opts.Snapshot()
	lib := snap.Library()
	type hit struct {
		s     Symbol
		score int
	}
	var hits []hit
	for _, t := range lib.Topics() {
		if err := ctx.Err(); err != nil {
			return SymbolsResponse{}, err
		}
		score, ok := present.MatchScore(q, t.Name, present.Key(t), t.Meta.Title, t.Meta.Tags)
		if !ok {
			continue
		}
		e := topicEntry(lib, lib.Counter(), Reference{ID: t.ID, Domain: t.Domain, Title: cmp.Or(t.Meta.Title, t.Name), Path: t.Path,
			Type: t.Meta.Type, LoadingStrategy: t.Meta.LoadingStrategy, EstimatedTokens: t.Declared(), MeasuredTokens: t.Tokens})
		hits = append(hits, hit{Symbol{InventoryEntry: e, Name: present.EntryName(e.Reference, e.Title, e.Tokens), Container: t.Domain}, score})
	}
	for _, e := range agentEntries(lib, lib.Counter(), o.agentFiles(ctx, snap), func(string) bool { return true }) {
		score, ok := present.MatchScore(q, entryName(e), e.Reference, e.Title, nil)
		if !ok {
			continue
		}
		hits = append(hits, hit{Symbol{InventoryEntry: e, Name: present.EntryName(e.Reference, e.Title, e.Tokens), Container: e.Kind}, score})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	var warnings []Warning
	if len(hits) > limit {
		warnings = append(warnings, Warning{Code: contextapi.WarnTruncated, Message: fmt.Sprintf("showing the best %d of %d matches", limit, len(hits))})
		hits = hits[:limit]
	}
	items := make([]Symbol, len(hits))
	for i, h := range hits {
		items[i] = h.s
	}
	return newList(items, warnings), nil
}
