package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
	"github.com/ctxls/ctxls/providers/context/session"
	"github.com/ctxls/ctxls/providers/ops"
)

// CatalogInput filters the catalog.
type CatalogInput struct {
	Domain string `json:"domain,omitempty" jsonschema:"list only this domain's topics"`
	Kind   string `json:"kind,omitempty" jsonschema:"list only this kind: topic, skill, command or rule"`
}

// CatalogEntry is one loadable thing of the workspace.
type CatalogEntry struct {
	Reference string `json:"reference" jsonschema:"what load_context takes: domain:topic, a skill's name, or a command's or rule's path"`
	Title     string `json:"title"`
	Kind      string `json:"kind" jsonschema:"topic, skill, command or rule"`
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
	Refs         []string `json:"refs" jsonschema:"in order: domain:topic, domain:topic#Section, a root topic's or a skill's name, or the path of a markdown file of the workspace (a topic, command, rule or other note)"`
	BudgetTokens int      `json:"budgetTokens,omitempty" jsonschema:"most tokens the returned text may cost (default and most 1000000); refs that do not fit are cut to the sections that fit, then left out"`
}

func (s *Server) addTools() {
	addTool(s.srv, &sdk.Tool{
		Name:        "catalog",
		Title:       "Catalog of the context library",
		Description: "Lists every topic, skill, command and rule of the project's context library with its reference, title, kind and measured token cost.",
		Annotations: readOnly,
	}, s.catalog)
	addTool(s.srv, &sdk.Tool{
		Name:        "search",
		Title:       "Search the context library",
		Description: "Finds topics by tags, titles, section keywords, detection triggers and names, best first, with relevance 0..1 and token costs.",
		Annotations: readOnly,
	}, s.search)
	addTool(s.srv, &sdk.Tool{
		Name:        "load_context",
		Title:       "Load context within a token budget",
		Description: "Returns the text of topics, sections and files, in the order given, within budgetTokens: a topic that does not fit is cut to the sections that fit before it is left out. Says what was loaded and what was omitted and why.",
		Annotations: readOnly,
	}, s.loadContext)
	addTool(s.srv, &sdk.Tool{
		Name:        "check",
		Title:       "Check the context library",
		Description: "Reports the diagnostics of the workspace, or of one file or folder of it: broken references, unknown sections, frontmatter problems, token drift, problems of agent files (skills, rules, memory files and their imports) and of .ctxls.yaml; each with file, 1-based line and column, severity, code and message, as ctxls check --format json gives them.",
		Annotations: readOnly,
	}, s.check)
	addTool(s.srv, &sdk.Tool{
		Name:        "session_cost",
		Title:       "What a coding agent's session loads",
		Description: "The tokens a session of claude, codex, cursor or copilot loads from this project before the first prompt (memory files and their imports, rules, the listing of skills and commands) and what loads on demand, as ctxls cost --format json gives them.",
		Annotations: readOnly,
	}, s.sessionCost)
}

// SessionCostInput names the agent.
type SessionCostInput struct {
	Agent         string `json:"agent" jsonschema:"the agent whose session is costed: claude, codex, cursor or copilot"`
	ContextWindow int    `json:"contextWindow,omitempty" jsonschema:"the model's context window in tokens (default 200000)"`
}

func (s *Server) sessionCost(ctx context.Context, in SessionCostInput) (string, session.Cost, error) {
	c, err := s.ops.SessionCost(ctx, ops.SessionCostRequest{Agent: in.Agent, ContextWindow: in.ContextWindow})
	if err != nil {
		return "", session.Cost{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d tokens always loaded\n", c.Agent, c.TotalAlwaysLoaded)
	for _, e := range c.AlwaysLoaded {
		fmt.Fprintf(&b, "always\t%s\t%d tokens\t%s\n", e.File, e.Tokens, e.Reason)
	}
	for _, e := range c.OnDemand {
		fmt.Fprintf(&b, "on demand\t%s\t%d tokens\t%s\n", e.File, e.Tokens, e.Reason)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String(), *c, nil
}

// CheckInput names what to check.
type CheckInput struct {
	Path string `json:"path,omitempty" jsonschema:"a file or folder of the workspace (relative to it, or absolute inside it); the whole workspace when empty"`
}

func (s *Server) check(ctx context.Context, in CheckInput) (string, ops.CheckResponse, error) {
	p := strings.TrimSpace(in.Path)
	if strings.ContainsRune(p, 0) {
		return "", ops.CheckResponse{}, fmt.Errorf("path %q holds a NUL byte", in.Path)
	}
	if p != "" {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(s.ws.Dir(), abs)
		}
		if _, err := os.Stat(abs); err != nil && errors.Is(err, fs.ErrNotExist) {
			// Checked after the workspace bound, so that the error of a
			// path outside it says so rather than whether it exists.
			if _, err := s.ops.Check(ctx, ops.CheckRequest{Path: p}); err != nil {
				return "", ops.CheckResponse{}, err
			}
			return "", ops.CheckResponse{}, fmt.Errorf("%s does not exist in the workspace", p)
		}
	}
	res, err := s.ops.Check(ctx, ops.CheckRequest{Path: p})
	if err != nil {
		return "", ops.CheckResponse{}, err
	}
	return checkText(res), res, nil
}

// count writes n and the noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// maxCheckLines bounds the diagnostics the text block of check lists,
// errors first; the structured content has them all.
const maxCheckLines = 200

func checkText(res ops.CheckResponse) string {
	var b strings.Builder
	byCode := map[string]int{}
	var codes []string
	for _, d := range res.Items {
		if byCode[d.Code] == 0 {
			codes = append(codes, d.Code)
		}
		byCode[d.Code]++
	}
	fmt.Fprintf(&b, "%s, %s", count(len(res.Items), "problem"), count(res.Errors, "error"))
	for i, c := range codes {
		sep := "; "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "%s%s %d", sep, c, byCode[c])
	}
	b.WriteString("\n")
	n := 0
	for _, errorsFirst := range []bool{true, false} {
		for _, d := range res.Items {
			if (d.Severity == "error") != errorsFirst {
				continue
			}
			if n == maxCheckLines {
				fmt.Fprintf(&b, "… and %d more (call check with a path to see one file's)\n", len(res.Items)-n)
				break
			}
			n++
			fmt.Fprintf(&b, "%s:%d:%d\t%s\t%s\t%s\n", d.File, d.Line, d.Column, d.Severity, d.Code, d.Message)
		}
		if n == maxCheckLines && len(res.Items) > n {
			break
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w.Message)
	}
	return b.String()
}

var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}

func (s *Server) catalog(ctx context.Context, in CatalogInput) (string, CatalogOutput, error) {
	res, err := s.ops.Inventory(ctx, ops.InventoryRequest{Domain: in.Domain, Kind: in.Kind})
	if err != nil {
		return "", CatalogOutput{}, err
	}
	out := CatalogOutput{Entries: make([]CatalogEntry, 0, len(res.Entries)), Tokenizer: res.Tokenizer}
	listed := s.listedSet()
	for _, e := range res.Entries {
		if e.Kind == ops.KindTopic && !listed(e.ID) {
			continue
		}
		out.Entries = append(out.Entries, CatalogEntry{Reference: e.Reference, Title: e.Title, Kind: e.Kind, Tokens: e.Tokens})
		out.Tokens += e.Tokens
	}
	return catalogText(out), out, nil
}

// maxCatalogLines bounds the text block of the catalog: past it the text
// sums topics up by domain, since an agent that reads 10,000 lines has
// spent its context on the listing. The structured content keeps every
// entry.
const maxCatalogLines = 300

func catalogText(out CatalogOutput) string {
	var b strings.Builder
	entries := fmt.Sprintf("%d entries", len(out.Entries))
	if len(out.Entries) == 1 {
		entries = "1 entry"
	}
	fmt.Fprintf(&b, "%s, %d tokens (%s)\n", entries, out.Tokens, out.Tokenizer)
	if len(out.Entries) <= maxCatalogLines {
		for _, e := range out.Entries {
			fmt.Fprintf(&b, "%s\t%s\t%d tokens\t%s\n", e.Reference, e.Kind, e.Tokens, e.Title)
		}
		return b.String()
	}
	type sum struct{ topics, tokens int }
	var domains []string
	byDomain := map[string]*sum{}
	for _, e := range out.Entries {
		if e.Kind != ops.KindTopic {
			fmt.Fprintf(&b, "%s\t%s\t%d tokens\t%s\n", e.Reference, e.Kind, e.Tokens, e.Title)
			continue
		}
		d, _, ok := strings.Cut(e.Reference, ":")
		if !ok {
			d = "(root)"
		}
		if byDomain[d] == nil {
			byDomain[d] = &sum{}
			domains = append(domains, d)
		}
		byDomain[d].topics++
		byDomain[d].tokens += e.Tokens
	}
	fmt.Fprintf(&b, "topics by domain (call catalog with a domain to list its topics):\n")
	for _, d := range domains {
		fmt.Fprintf(&b, "%s\t%d topics\t%d tokens\n", d, byDomain[d].topics, byDomain[d].tokens)
	}
	return b.String()
}

func (s *Server) search(ctx context.Context, in SearchInput) (string, SearchOutput, error) {
	q := strings.TrimSpace(in.Query)
	res, err := s.ops.Search(ctx, ops.SearchRequest{Query: q, Domain: strings.TrimSpace(in.Domain), Limit: in.Limit})
	if err != nil {
		return "", SearchOutput{}, err
	}
	for _, w := range res.Warnings {
		if w.Code == contextprovider.WarnDomainNotFound {
			return "", SearchOutput{}, fmt.Errorf("%s", w.Message)
		}
	}
	out := SearchOutput{Results: make([]SearchResult, 0, len(res.Items))}
	listed := s.listedSet()
	var b strings.Builder
	for _, it := range res.Items {
		r := it.Reference
		if !listed(r.ID) {
			continue
		}
		out.Results = append(out.Results, SearchResult{Reference: r.Key(), Title: r.Title, Relevance: it.Relevance, MatchedOn: it.MatchedOn, Tokens: r.MeasuredTokens})
		fmt.Fprintf(&b, "%.2f\t%s\t%d tokens\t%s\t(%s)\n", it.Relevance, r.Key(), r.MeasuredTokens, r.Title, strings.Join(it.MatchedOn, ", "))
	}
	return fmt.Sprintf("%d results for %q\n", len(out.Results), q) + b.String(), out, nil
}

func (s *Server) loadContext(ctx context.Context, in LoadContextInput) (string, ops.LoadContextResult, error) {
	res, err := s.ops.LoadContext(ctx, ops.LoadContextRequest{Refs: in.Refs, BudgetTokens: in.BudgetTokens})
	if err != nil {
		return "", ops.LoadContextResult{}, err
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
	return text, res, nil
}
