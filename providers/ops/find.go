package ops

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/contextapi"
)

// InventorySearchRequest asks for what matches Query among the topics,
// skills, commands, subagents and rules, best first. Domain keeps one
// domain's topics only; Kind keeps one kind.
type InventorySearchRequest struct {
	Query  string `json:"query"`
	Domain string `json:"domain,omitempty"`
	Kind   string `json:"kind,omitempty"`
	// Limit is the most results returned; 0 means the default of 50.
	Limit int `json:"limit,omitempty"`
	// Tokenizer, when set, counts in that encoding rather than the
	// library's, as InventoryRequest's does.
	Tokenizer string `json:"tokenizer,omitempty"`
}

// InventoryMatch is one result: an inventory entry, how well it matched
// and on what.
type InventoryMatch struct {
	InventoryEntry
	// Relevance is in 0..1: the share of the query's words that matched,
	// each weighted by the field it matched in.
	Relevance float64 `json:"relevance"`
	// MatchedOn lists the fields that matched: tag, keyword, title,
	// detectionTrigger, id for a topic; name, description, path for the
	// other kinds.
	MatchedOn []string `json:"matchedOn"`
}

// InventorySearchResponse is the results, best first.
type InventorySearchResponse struct {
	Items     []InventoryMatch `json:"items"`
	Warnings  []Warning        `json:"warnings"`
	Tokenizer string           `json:"tokenizer"`
}

// Weights of the fields of an agent file, beside a topic's (tag 1, title
// 0.9, id 0.85): its name is what the agent calls it by, its description
// what the agent reads to pick it.
var agentFields = [...]struct {
	name   string
	weight float64
}{{"name", 0.9}, {"description", 0.8}, {"path", 0.6}}

// SearchInventory ranks the topics by their tags, section keywords,
// titles, detection triggers and names, as Search does, and the skills,
// commands, subagents and rules by their names, descriptions and paths, in
// one list, best first. The command line's search, the editor's
// ctxls/inventory/search and the MCP search tool all answer with it.
func (o *Ops) SearchInventory(ctx context.Context, req InventorySearchRequest) (InventorySearchResponse, error) {
	if err := require(field{"query", req.Query}); err != nil {
		return InventorySearchResponse{}, err
	}
	if req.Limit < 0 {
		return InventorySearchResponse{}, invalidf("limit must not be negative")
	}
	kind := strings.TrimSpace(req.Kind)
	if kind != "" && !slices.Contains(inventoryKinds, kind) {
		return InventorySearchResponse{}, invalidf("unknown kind %q: use %s", req.Kind, strings.Join(inventoryKinds, ", "))
	}
	limit := cmp.Or(req.Limit, contextapi.DefaultSearchLimit)
	domain := strings.TrimSpace(req.Domain)
	own, err := namedCounter(req.Tokenizer)
	if err != nil {
		return InventorySearchResponse{}, err
	}
	return withHeavy(o, ctx, func(ctx context.Context) (InventorySearchResponse, error) {
		// One state for the whole request: the topics and the other kinds
		// come from the same library and agent files.
		snap := o.opts.Snapshot()
		lib := snap.Library()
		counter := cmp.Or(own, lib.Counter())
		out := InventorySearchResponse{Items: []InventoryMatch{}, Warnings: []Warning{}, Tokenizer: counter.Name()}
		if kind == "" || kind == KindTopic {
			// Every topic that matches, so that the cut below ranks them
			// with the other kinds.
			res, err := o.prov.SearchIn(ctx, lib, req.Query, domain, max(len(lib.Topics()), 1))
			if err != nil {
				return InventorySearchResponse{}, err
			}
			for _, w := range res.Warnings {
				if w.Code == contextapi.WarnDomainNotFound {
					out.Warnings = append(out.Warnings, w)
					return out, nil
				}
				if w.Code != contextapi.WarnTruncated {
					out.Warnings = append(out.Warnings, w)
				}
			}
			for _, it := range res.Items {
				out.Items = append(out.Items, InventoryMatch{InventoryEntry: topicEntry(lib, counter, it.Reference), Relevance: it.Relevance, MatchedOn: it.MatchedOn})
			}
		}
		var inv InventoryResponse
		if domain == "" {
			var err error
			if inv, err = o.inventoryIn(ctx, lib, o.agentFiles(ctx, snap), counter, "", kind); err != nil {
				return InventorySearchResponse{}, err
			}
		}
		for _, e := range inv.Entries {
			if e.Kind == KindTopic {
				continue
			}
			texts := [...]string{entryName(e), e.Title, e.Path}
			fields := make([]contextapi.MatchField, len(agentFields))
			for i, f := range agentFields {
				fields[i] = contextapi.MatchField{Name: f.name, Text: texts[i], Weight: f.weight}
			}
			if rel, on := contextapi.Match(req.Query, fields...); rel > 0 {
				out.Items = append(out.Items, InventoryMatch{InventoryEntry: e, Relevance: rel, MatchedOn: on})
			}
		}
		slices.SortStableFunc(out.Items, func(a, b InventoryMatch) int {
			if a.Relevance != b.Relevance {
				return cmp.Compare(b.Relevance, a.Relevance)
			}
			return cmp.Compare(a.Reference, b.Reference)
		})
		if len(out.Items) > limit {
			out.Warnings = append(out.Warnings, Warning{Code: contextapi.WarnTruncated, Message: fmt.Sprintf("showing the best %d of %d matches", limit, len(out.Items))})
			out.Items = out.Items[:limit]
		}
		return out, nil
	})
}

// entryName is the name an agent calls an entry of a kind but topics by:
// a skill's name, the file name of a command, subagent or rule without
// its extension.
func entryName(e InventoryEntry) string {
	if e.Kind == KindSkill && e.Reference != e.Path {
		return e.Reference
	}
	if e.Kind == KindSkill {
		// Its name is shared, so its path is its reference: the name
		// is its folder's.
		return path.Base(path.Dir(e.Path))
	}
	return strings.TrimSuffix(path.Base(e.Path), path.Ext(e.Path))
}
