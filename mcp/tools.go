package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
	"github.com/ctxls/ctxls/providers/ops"
)

// Kinds of catalog entries.
const (
	KindTopic   = "topic"
	KindCommand = "command"
)

// CatalogInput filters the catalog.
type CatalogInput struct {
	Domain string `json:"domain,omitempty" jsonschema:"list only this domain's topics"`
	Kind   string `json:"kind,omitempty" jsonschema:"list only this kind: topic or command"`
}

// CatalogEntry is one loadable thing of the library.
type CatalogEntry struct {
	Reference string `json:"reference" jsonschema:"what load_context takes: domain:topic or a command's path"`
	Title     string `json:"title"`
	Kind      string `json:"kind" jsonschema:"topic or command"`
	Tokens    int    `json:"tokens" jsonschema:"measured cost of the body"`
}

// CatalogOutput is the catalog.
type CatalogOutput struct {
	Entries []CatalogEntry `json:"entries"`
	// Tokens is the sum of the entries' tokens.
	Tokens    int    `json:"tokens" jsonschema:"sum of the entries' tokens"`
	Tokenizer string `json:"tokenizer" jsonschema:"the tokenizer that measured the tokens"`
}

// SearchInput is a search query.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"words to look for in tags, titles, section keywords, detection triggers and names"`
	Domain string `json:"domain,omitempty" jsonschema:"search only this domain"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most results to return (default 50)"`
}

// SearchResult is one matching topic.
type SearchResult struct {
	Reference string   `json:"reference"`
	Title     string   `json:"title"`
	Relevance float64  `json:"relevance" jsonschema:"0..1: the share of the query's words that matched, weighted by field"`
	MatchedOn []string `json:"matchedOn" jsonschema:"fields that matched: tag, keyword, title, detectionTrigger, id"`
	Tokens    int      `json:"tokens"`
}

// SearchOutput is the results, best first.
type SearchOutput struct {
	Results []SearchResult `json:"results"`
}

// LoadContextInput is what to load.
type LoadContextInput struct {
	Refs         []string `json:"refs" jsonschema:"in order: domain:topic, domain:topic#Section, a root topic's name or the path of a markdown file of the workspace"`
	BudgetTokens int      `json:"budgetTokens,omitempty" jsonschema:"most tokens the returned text may cost; refs that do not fit are cut to the sections that fit, then left out"`
}

func (s *Server) addTools() {
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:        "catalog",
		Title:       "Catalog of the context library",
		Description: "Lists every topic and command of the project's context library with its reference, title, kind and measured token cost.",
		Annotations: readOnly,
	}, s.catalog)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:        "search",
		Title:       "Search the context library",
		Description: "Finds topics by tags, titles, section keywords, detection triggers and names, best first, with relevance 0..1 and token costs.",
		Annotations: readOnly,
	}, s.search)
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:        "load_context",
		Title:       "Load context within a token budget",
		Description: "Returns the text of topics, sections and files, in the order given, within budgetTokens: a topic that does not fit is cut to the sections that fit before it is left out. Says what was loaded and what was omitted and why.",
		Annotations: readOnly,
	}, s.loadContext)
}

var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}

func (s *Server) catalog(ctx context.Context, _ *sdk.CallToolRequest, in CatalogInput) (*sdk.CallToolResult, CatalogOutput, error) {
	kind := strings.TrimSpace(in.Kind)
	if kind != "" && kind != KindTopic && kind != KindCommand {
		return nil, CatalogOutput{}, fmt.Errorf("unknown kind %q: use topic or command", in.Kind)
	}
	lib := s.ws.Library()
	out := CatalogOutput{Entries: []CatalogEntry{}, Tokenizer: lib.Counter().Name()}
	if kind == "" || kind == KindTopic {
		res, err := s.provider.Catalog(ctx, strings.TrimSpace(in.Domain))
		if err != nil {
			return nil, CatalogOutput{}, err
		}
		if len(res.Warnings) > 0 && len(res.Items) == 0 {
			return nil, CatalogOutput{}, fmt.Errorf("%s", joinWarnings(res.Warnings))
		}
		for _, r := range res.Items {
			if !s.listed(r.ID) {
				continue
			}
			out.Entries = append(out.Entries, CatalogEntry{Reference: r.Key(), Title: r.Title, Kind: KindTopic, Tokens: r.MeasuredTokens})
		}
	}
	if (kind == "" || kind == KindCommand) && in.Domain == "" {
		counter := lib.Counter()
		for _, c := range lib.Commands() {
			rel := c.Path
			if f, ok := lib.File(c.Path); ok {
				rel = f.Rel
			}
			out.Entries = append(out.Entries, CatalogEntry{Reference: rel, Title: c.Name, Kind: KindCommand, Tokens: counter.Count(c.Body())})
		}
	}
	for _, e := range out.Entries {
		out.Tokens += e.Tokens
	}
	return textResult(catalogText(out)), out, nil
}

func catalogText(out CatalogOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries, %d tokens (%s)\n", len(out.Entries), out.Tokens, out.Tokenizer)
	for _, e := range out.Entries {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\n", e.Reference, e.Kind, e.Tokens, e.Title)
	}
	return b.String()
}

func (s *Server) search(ctx context.Context, _ *sdk.CallToolRequest, in SearchInput) (*sdk.CallToolResult, SearchOutput, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, SearchOutput{}, fmt.Errorf("query is empty: give words to search for")
	}
	if in.Limit < 0 {
		return nil, SearchOutput{}, fmt.Errorf("limit %d is negative", in.Limit)
	}
	res, err := s.provider.Search(ctx, q, strings.TrimSpace(in.Domain), in.Limit)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	for _, w := range res.Warnings {
		if w.Code == contextprovider.WarnDomainNotFound {
			return nil, SearchOutput{}, fmt.Errorf("%s", w.Message)
		}
	}
	out := SearchOutput{Results: make([]SearchResult, 0, len(res.Items))}
	var b strings.Builder
	for _, it := range res.Items {
		r := it.Reference
		if !s.listed(r.ID) {
			continue
		}
		out.Results = append(out.Results, SearchResult{Reference: r.Key(), Title: r.Title, Relevance: it.Relevance, MatchedOn: it.MatchedOn, Tokens: r.MeasuredTokens})
		fmt.Fprintf(&b, "%.2f\t%s\t%d tokens\t%s\t(%s)\n", it.Relevance, r.Key(), r.MeasuredTokens, r.Title, strings.Join(it.MatchedOn, ", "))
	}
	return textResult(fmt.Sprintf("%d results for %q\n", len(out.Results), q) + b.String()), out, nil
}

func (s *Server) loadContext(ctx context.Context, _ *sdk.CallToolRequest, in LoadContextInput) (*sdk.CallToolResult, ops.LoadContextResult, error) {
	res, err := ops.LoadContext(ctx, s.provider, ops.LoadContextRequest{Refs: in.Refs, BudgetTokens: in.BudgetTokens})
	if err != nil {
		return nil, ops.LoadContextResult{}, err
	}
	text := res.Text
	if len(res.Omitted) > 0 {
		var b strings.Builder
		b.WriteString(text)
		b.WriteString("\n<!-- ctxls: omitted:")
		for _, o := range res.Omitted {
			fmt.Fprintf(&b, " %s (%d tokens, %s);", o.Ref, o.Tokens, o.Reason)
		}
		b.WriteString(" -->\n")
		text = b.String()
	}
	return textResult(text), res, nil
}

// textResult is a result whose text block is text; the SDK adds the
// structured content.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}
