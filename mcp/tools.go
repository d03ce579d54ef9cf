package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/present"
)

// CatalogInput filters the catalog and selects a page of it.
type CatalogInput struct {
	Domain    string `json:"domain,omitempty" jsonschema:"list only this domain's topics"`
	Kind      string `json:"kind,omitempty" jsonschema:"list only this kind: topic, skill, command, subagent or rule"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most entries to return (default 100, at most 1000)"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page; none for the first page"`
	Tokenizer string `json:"tokenizer,omitempty" jsonschema:"count in this encoding: claude, claude-3, claude-4.7, claude-5, o200k_base, cl100k_base or estimate (default: as load_context counts)"`
}

// CatalogEntry is one loadable thing of the workspace.
type CatalogEntry struct {
	Reference string `json:"reference" jsonschema:"what load_context takes: domain:topic, a skill's name, or a command's, subagent's or rule's path"`
	Title     string `json:"title"`
	Kind      string `json:"kind" jsonschema:"topic, skill, command, subagent or rule"`
	Tokens    int    `json:"tokens" jsonschema:"measured cost of the body"`
}

// CatalogOutput is a page of the catalog.
type CatalogOutput struct {
	Entries    []CatalogEntry `json:"entries" jsonschema:"this page's entries: skills, commands, subagents and rules first, then topics by domain"`
	Total      int            `json:"total" jsonschema:"number of entries on all pages"`
	Tokens     int            `json:"tokens" jsonschema:"sum of the tokens of the entries on all pages"`
	Tokenizer  string         `json:"tokenizer" jsonschema:"the tokenizer that measured the tokens"`
	NextCursor string         `json:"nextCursor,omitempty" jsonschema:"pass it as cursor to get the next page; absent on the last page"`
}

// SearchInput is a search query.
type SearchInput struct {
	Query     string `json:"query" jsonschema:"words to look for in topics' tags, titles, section keywords, detection triggers and names, and in the names, descriptions and paths of skills, commands, subagents and rules"`
	Domain    string `json:"domain,omitempty" jsonschema:"search only this domain's topics"`
	Kind      string `json:"kind,omitempty" jsonschema:"search only this kind: topic, skill, command, subagent or rule"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most results to return (default 50)"`
	Tokenizer string `json:"tokenizer,omitempty" jsonschema:"count in this encoding: claude, claude-3, claude-4.7, claude-5, o200k_base, cl100k_base or estimate (default: as load_context counts)"`
}

// SearchResult is one matching entry of the catalog.
type SearchResult struct {
	Reference string   `json:"reference" jsonschema:"what load_context takes, as in the catalog"`
	Title     string   `json:"title"`
	Kind      string   `json:"kind" jsonschema:"topic, skill, command, subagent or rule"`
	Relevance float64  `json:"relevance" jsonschema:"0..1: the share of the query's words that matched, weighted by field"`
	MatchedOn []string `json:"matchedOn" jsonschema:"fields that matched: tag, keyword, title, detectionTrigger, id for a topic; name, description, path for the other kinds"`
	Tokens    int      `json:"tokens"`
}

// SearchOutput is the results, best first.
type SearchOutput struct {
	Results   []SearchResult `json:"results"`
	Tokenizer string         `json:"tokenizer" jsonschema:"the tokenizer that measured the tokens"`
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
		Description: "Lists the topics, skills, commands, subagents and rules of the project's context library with their reference, title, kind and measured token cost: skills, commands, subagents and rules first, then topics by domain. Answers in pages of 100 entries unless limit says otherwise (at most 1000); nextCursor, passed as cursor, gets the next page. The first page of a long catalog also sums the topics up by domain: pass a domain to list one domain's topics. Tokens are counted as load_context counts them; tokenizer says which.",
		Annotations: readOnly,
	}, s.catalog)
	addTool(s.srv, &sdk.Tool{
		Name:        "search",
		Title:       "Search the context library",
		Description: "Finds topics by tags, titles, section keywords, detection triggers and names, and skills, commands, subagents and rules by names, descriptions and paths, in one list, best first, with relevance 0..1 and token costs, counted as load_context counts them.",
		Annotations: readOnly,
	}, s.search)
	addTool(s.srv, &sdk.Tool{
		Name:        "load_context",
		Title:       "Load context within a token budget",
		Description: "Returns the text of topics, sections and files, in the order given, within budgetTokens: a topic that does not fit is cut to the sections that fit before it is left out. Says what was loaded and what was omitted and why. Tokens are counted in the tokenizer of the client's models (Claude's for a Claude client, o200k_base for Codex) unless the workspace's .ctxls.yaml names one; tokenizer says which.",
		Annotations: readOnly,
	}, s.loadContext)
	addTool(s.srv, &sdk.Tool{
		Name:        "check",
		Title:       "Check the context library",
		Description: "Reports the diagnostics of the workspace, or of one file or folder of it: broken references, unknown sections, frontmatter problems, token drift, problems of agent files (skills, rules, memory files and their imports) and of .ctxls.yaml; each with file, 1-based line and column, severity, code and message, as ctxls check --format json gives them. Answers in pages of 100 diagnostics, by file and position, unless limit says otherwise (at most 1000); nextCursor, passed as cursor, gets the next page.",
		Annotations: readOnly,
	}, s.check)
	addTool(s.srv, &sdk.Tool{
		Name:        "session_cost",
		Title:       "What a coding agent's session loads",
		Description: "The tokens a session of an agent (claude, codex, gemini, cursor, copilot, windsurf, cline, kiro, opencode) loads from this project before the first prompt (memory files and their imports, rules, the listing of skills and commands) and what loads on demand, as ctxls cost --format json gives them; agent all gives every agent the project configures side by side, under agents.",
		Annotations: readOnly,
	}, s.sessionCost)
}

// SessionCostInput names the agent.
type SessionCostInput struct {
	Agent         string `json:"agent" jsonschema:"the agent whose session is costed: claude, codex, gemini, cursor, copilot, windsurf, cline, kiro, opencode, or all for every agent the project configures"`
	ContextWindow int    `json:"contextWindow,omitempty" jsonschema:"the model's context window in tokens (default 200000)"`
	Tokenizer     string `json:"tokenizer,omitempty" jsonschema:"count in this encoding rather than the agent's own: claude, claude-3, claude-4.7, claude-5, o200k_base, cl100k_base or estimate"`
}

func (s *Server) sessionCost(ctx context.Context, in SessionCostInput) (string, agentload.Cost, error) {
	c, err := s.ops.SessionCost(ctx, ops.SessionCostRequest{Agent: in.Agent, ContextWindow: in.ContextWindow, Tokenizer: in.Tokenizer})
	if err != nil {
		return "", agentload.Cost{}, err
	}
	return present.SessionCost(c, in.ContextWindow), *c, nil
}

// CheckInput names what to check and selects a page of the answer.
type CheckInput struct {
	Path   string `json:"path,omitempty" jsonschema:"a file or folder of the workspace (relative to it, or absolute inside it); the whole workspace when empty"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most diagnostics to return (default 100, at most 1000)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page; none for the first page"`
}

// CheckOutput is a page of the diagnostics: the object ctxls check
// --format json gives, with the paging fields.
type CheckOutput struct {
	Items      []ops.Diagnostic `json:"items" jsonschema:"this page's diagnostics, by file and position"`
	Errors     int              `json:"errors" jsonschema:"number of diagnostics of severity error on all pages"`
	Warnings   []ops.Warning    `json:"warnings" jsonschema:"problems met while indexing that no diagnostic reports, such as an unreadable file"`
	Total      int              `json:"total" jsonschema:"number of diagnostics on all pages"`
	NextCursor string           `json:"nextCursor,omitempty" jsonschema:"pass it as cursor to get the next page; absent on the last page"`
}

// checkAnswer is a check's answer kept for paging, and the first line of
// its text, which counts its items by code.
type checkAnswer struct {
	res     ops.CheckResponse
	summary string
	// errorFiles names the files with errors, when there are some.
	errorFiles string
}

func (s *Server) check(ctx context.Context, in CheckInput) (string, CheckOutput, error) {
	p := strings.TrimSpace(in.Path)
	if strings.ContainsRune(p, 0) {
		return "", CheckOutput{}, fmt.Errorf("path %q holds a NUL byte", in.Path)
	}
	key := ""
	if p != "" {
		key = p
		if !filepath.IsAbs(key) {
			key = filepath.Join(s.ws.Dir(), key)
		}
		key = filepath.Clean(key)
	}
	a, err := s.checks.Do(ctx, s.gen.Load(), key, func(ctx context.Context) (*checkAnswer, error) {
		res, err := s.ops.Check(ctx, ops.CheckRequest{Path: p})
		if err != nil {
			return nil, err
		}
		return newCheckAnswer(res), nil
	})
	if err != nil {
		return "", CheckOutput{}, err
	}
	lo, hi, next, err := pageOf(len(a.res.Items), in.Limit, in.Cursor)
	if err != nil {
		return "", CheckOutput{}, err
	}
	out := CheckOutput{Items: a.res.Items[lo:hi], Errors: a.res.Errors, Warnings: a.res.Warnings, Total: len(a.res.Items), NextCursor: next}
	return checkText(a, out, lo), out, nil
}

// newCheckAnswer keeps a check's answer, its items in the order of ctxls
// check, and sums them up by code.
func newCheckAnswer(res ops.CheckResponse) *checkAnswer {
	items := res.Items
	var b strings.Builder
	byCode := map[string]int{}
	var codes []string
	for _, d := range items {
		if byCode[d.Code] == 0 {
			codes = append(codes, d.Code)
		}
		byCode[d.Code]++
	}
	fmt.Fprintf(&b, "%s, %s", numfmt.Count(len(items), "problem"), numfmt.Count(res.Errors, "error"))
	for i, c := range codes {
		sep := "; "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "%s%s %d", sep, c, byCode[c])
	}
	// The files with errors, so that an agent paging through many
	// warnings can ask for those files instead.
	var files []string
	for _, d := range items {
		if d.Severity == "error" && (len(files) == 0 || files[len(files)-1] != d.File) {
			files = append(files, d.File)
		}
	}
	a := &checkAnswer{res: res, summary: b.String()}
	if len(files) > 0 {
		a.errorFiles = "errors in " + strings.Join(files[:min(len(files), maxErrorFiles)], ", ")
		if len(files) > maxErrorFiles {
			a.errorFiles += fmt.Sprintf(" and %d more files", len(files)-maxErrorFiles)
		}
	}
	return a
}

// maxErrorFiles bounds the files with errors a check's text names.
const maxErrorFiles = 10

// checkText is the summary of a check and the page's diagnostics, one a
// line.
func checkText(a *checkAnswer, out CheckOutput, lo int) string {
	var b strings.Builder
	b.WriteString(a.summary)
	b.WriteString(pageNote(lo, lo+len(out.Items), out.Total, out.NextCursor))
	b.WriteString("\n")
	if a.errorFiles != "" {
		b.WriteString(a.errorFiles + "\n")
	}
	for _, d := range out.Items {
		fmt.Fprintf(&b, "%s:%d:%d\t%s\t%s\t%s\n", d.File, d.Line, d.Column, d.Severity, d.Code, d.Message)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w.Message)
	}
	return b.String()
}

var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}

// catalogAnswer is a catalog kept for paging.
type catalogAnswer struct {
	entries   []CatalogEntry
	tokens    int
	tokenizer string
	// domains sums the topics up by domain, in the order of entries.
	domains []domainSum
}

type domainSum struct {
	name           string
	topics, tokens int
}

func (s *Server) catalog(ctx context.Context, in CatalogInput) (string, CatalogOutput, error) {
	domain, kind := strings.TrimSpace(in.Domain), strings.TrimSpace(in.Kind)
	tokenizer := s.tokenizer(ctx, in.Tokenizer)
	a, err := s.catalogs.Do(ctx, s.gen.Load(), domain+"\x00"+kind+"\x00"+tokenizer, func(ctx context.Context) (*catalogAnswer, error) {
		res, err := s.ops.Inventory(ctx, ops.InventoryRequest{Domain: domain, Kind: kind, Tokenizer: tokenizer})
		if err != nil {
			return nil, err
		}
		return s.newCatalogAnswer(res), nil
	})
	if err != nil {
		return "", CatalogOutput{}, err
	}
	lo, hi, next, err := pageOf(len(a.entries), in.Limit, in.Cursor)
	if err != nil {
		return "", CatalogOutput{}, err
	}
	out := CatalogOutput{Entries: a.entries[lo:hi], Total: len(a.entries), Tokens: a.tokens, Tokenizer: a.tokenizer, NextCursor: next}
	return catalogText(a, out, lo), out, nil
}

// newCatalogAnswer keeps the served entries of an inventory: skills,
// commands and rules first, since they are few and an agent acts on them,
// then the topics.
func (s *Server) newCatalogAnswer(res ops.InventoryResponse) *catalogAnswer {
	a := &catalogAnswer{entries: make([]CatalogEntry, 0, len(res.Entries)), tokenizer: res.Tokenizer}
	listed := s.listedSet()
	byDomain := map[string]int{}
	for _, topics := range []bool{false, true} {
		for _, e := range res.Entries {
			if (e.Kind == ops.KindTopic) != topics || topics && !listed(e.ID) {
				continue
			}
			a.entries = append(a.entries, CatalogEntry{Reference: e.Reference, Title: e.Title, Kind: e.Kind, Tokens: e.Tokens})
			a.tokens += e.Tokens
			if !topics {
				continue
			}
			d, _, ok := strings.Cut(e.Reference, ":")
			if !ok {
				d = "(root)"
			}
			i, ok := byDomain[d]
			if !ok {
				i = len(a.domains)
				byDomain[d] = i
				a.domains = append(a.domains, domainSum{name: d})
			}
			a.domains[i].topics++
			a.domains[i].tokens += e.Tokens
		}
	}
	return a
}

// catalogText is the count of the catalog and the page's entries, one a
// line. The first page of a catalog that has more sums the topics up by
// domain, so that an agent can narrow the catalog to a domain rather than
// page through every topic.
func catalogText(a *catalogAnswer, out CatalogOutput, lo int) string {
	var b strings.Builder
	entries := fmt.Sprintf("%d entries", out.Total)
	if out.Total == 1 {
		entries = "1 entry"
	}
	fmt.Fprintf(&b, "%s, %d tokens (%s)%s\n", entries, out.Tokens, out.Tokenizer, pageNote(lo, lo+len(out.Entries), out.Total, out.NextCursor))
	for _, e := range out.Entries {
		fmt.Fprintf(&b, "%s\t%s\t%d tokens\t%s\n", e.Reference, e.Kind, e.Tokens, e.Title)
	}
	if lo == 0 && out.NextCursor != "" && len(a.domains) > 1 {
		b.WriteString("topics by domain (call catalog with a domain to list its topics):\n")
		for _, d := range a.domains {
			fmt.Fprintf(&b, "%s\t%d topics\t%d tokens\n", d.name, d.topics, d.tokens)
		}
	}
	return b.String()
}

func (s *Server) search(ctx context.Context, in SearchInput) (string, SearchOutput, error) {
	q := strings.TrimSpace(in.Query)
	res, err := s.ops.SearchInventory(ctx, ops.InventorySearchRequest{Query: q, Domain: strings.TrimSpace(in.Domain), Kind: strings.TrimSpace(in.Kind), Limit: in.Limit, Tokenizer: s.tokenizer(ctx, in.Tokenizer)})
	if err != nil {
		return "", SearchOutput{}, err
	}
	for _, w := range res.Warnings {
		if w.Code == contextapi.WarnDomainNotFound {
			return "", SearchOutput{}, fmt.Errorf("%s", w.Message)
		}
	}
	out := SearchOutput{Results: make([]SearchResult, 0, len(res.Items)), Tokenizer: res.Tokenizer}
	listed := s.listedSet()
	var b strings.Builder
	for _, it := range res.Items {
		if it.Kind == ops.KindTopic && !listed(it.ID) {
			continue
		}
		out.Results = append(out.Results, SearchResult{Reference: it.Reference, Title: it.Title, Kind: it.Kind, Relevance: it.Relevance, MatchedOn: it.MatchedOn, Tokens: it.Tokens})
		fmt.Fprintf(&b, "%.2f\t%s\t%s\t%d tokens\t%s\t(%s)\n", it.Relevance, it.Reference, it.Kind, it.Tokens, it.Title, strings.Join(it.MatchedOn, ", "))
	}
	return fmt.Sprintf("%d results for %q (tokens: %s)\n", len(out.Results), q, out.Tokenizer) + b.String(), out, nil
}

// tokenizer is the encoding a tool counts in: named, when the call names
// one; else that of the client's models unless the workspace's
// .ctxls.yaml names one, so that the catalog, search and load_context
// give one file one figure; "" for the library's.
func (s *Server) tokenizer(ctx context.Context, named string) string {
	if named = strings.TrimSpace(named); named != "" {
		return named
	}
	if lib := s.ops.Library(); lib == nil || !lib.Config().TokenizerChosen {
		return clientTokenizer(clientName(ctx))
	}
	return ""
}

func (s *Server) loadContext(ctx context.Context, in LoadContextInput) (string, ops.LoadContextResult, error) {
	// The budget is the client's: counted in the tokenizer of its models,
	// unless the workspace names one.
	res, err := s.ops.LoadContext(ctx, ops.LoadContextRequest{Refs: in.Refs, BudgetTokens: in.BudgetTokens, Tokenizer: s.tokenizer(ctx, "")})
	if err != nil {
		return "", ops.LoadContextResult{}, err
	}
	text := res.Text
	if len(res.Omitted) > 0 {
		var b strings.Builder
		b.WriteString(text)
		fmt.Fprintf(&b, "\n<!-- ctxls: omitted (%s tokens):", res.Tokenizer)
		for _, o := range res.Omitted {
			fmt.Fprintf(&b, " %s (%d tokens, %s);", o.Ref, o.Tokens, o.Reason)
		}
		b.WriteString(" -->\n")
		text = b.String()
	}
	return text, res, nil
}
