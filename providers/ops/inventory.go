package ops

import (
	"cmp"
	"context"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Kinds of inventory entries.
const (
	KindTopic    = "topic"
	KindCommand  = "command"
	KindSkill    = "skill"
	KindSubagent = "subagent"
	KindRule     = "rule"
)

// inventoryKinds are the kinds an inventory lists, in order.
var inventoryKinds = []string{KindTopic, KindSkill, KindCommand, KindSubagent, KindRule}

// InventoryRequest filters the inventory: one domain's topics, one kind,
// or both; empty fields filter nothing.
type InventoryRequest struct {
	Domain string `json:"domain,omitempty"`
	Kind   string `json:"kind,omitempty"`
	// Tokenizer, when set, counts in that encoding rather than the
	// library's, as a session's cost counts in its agent's.
	Tokenizer string `json:"tokenizer,omitempty"`
}

// InventoryEntry is one thing an agent can load.
type InventoryEntry struct {
	// Reference is what LoadContext takes: "domain:topic" for a topic, the
	// name of a skill (its path when other skills have the same name), the
	// workspace-relative path of a command, subagent or rule.
	Reference string `json:"reference"`
	// Title is one line: a description's line breaks are spaces.
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Tokens is the measured cost of the body, the figure the session
	// cost gives the same file when it loads and counts in the same
	// tokenizer.
	Tokens int `json:"tokens"`
	// ID is a topic's id ("domain/name"), empty for other kinds.
	ID string `json:"id,omitempty"`
	// Path is relative to the workspace, with forward slashes.
	Path string `json:"path"`
	// Type, LoadingStrategy and DeclaredTokens are a topic's, from its
	// frontmatter; empty for other kinds.
	Type            string `json:"type,omitempty"`
	LoadingStrategy string `json:"loadingStrategy,omitempty"`
	DeclaredTokens  int    `json:"declaredTokens,omitempty"`
}

// InventoryResponse lists what the workspace offers an agent.
type InventoryResponse struct {
	Entries []InventoryEntry `json:"entries"`
	// Tokens is the sum of the entries' tokens.
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"`
}

// Inventory lists every topic, skill, command, subagent and rule with its
// reference, title, kind and token cost. A domain keeps only that domain's
// topics. The command line's catalog, the editor's ctxls/inventory and the
// MCP catalog tool all answer with it.
func (o *Ops) Inventory(ctx context.Context, req InventoryRequest) (InventoryResponse, error) {
	kind := strings.TrimSpace(req.Kind)
	if kind != "" && !slices.Contains(inventoryKinds, kind) {
		return InventoryResponse{}, invalidf("unknown kind %q: use %s", req.Kind, strings.Join(inventoryKinds, ", "))
	}
	own, err := namedCounter(req.Tokenizer)
	if err != nil {
		return InventoryResponse{}, err
	}
	return withHeavy(o, ctx, func(ctx context.Context) (InventoryResponse, error) {
		snap := o.opts.Snapshot()
		lib := snap.Library()
		return o.inventoryIn(ctx, lib, o.agentFiles(ctx, snap), cmp.Or(own, lib.Counter()), strings.TrimSpace(req.Domain), kind)
	})
}

// namedCounter returns the counter of the tokenizer called name, nil for
// none.
func namedCounter(name string) (tokens.Counter, error) {
	if strings.TrimSpace(name) == "" {
		return nil, nil
	}
	c, err := tokens.New(strings.TrimSpace(name))
	if err != nil {
		return nil, invalidf("%v", err)
	}
	return c, nil
}

// inventoryIn is the inventory of lib and the agent files files, one
// state the caller holds for its whole request, of one domain's topics
// and one kind when they are not empty, counted by counter.
func (o *Ops) inventoryIn(ctx context.Context, lib *library.Snapshot, files []*agentfiles.File, counter tokens.Counter, domain, kind string) (InventoryResponse, error) {
	out := InventoryResponse{Entries: []InventoryEntry{}, Tokenizer: counter.Name()}
	want := func(k string) bool { return kind == "" || kind == k }
	if want(KindTopic) {
		res, err := o.prov.CatalogIn(ctx, lib, domain)
		if err != nil {
			return InventoryResponse{}, err
		}
		if len(res.Items) == 0 && len(res.Warnings) > 0 {
			return InventoryResponse{}, withKind(ErrInvalid, errorString(joinWarnings(res.Warnings)))
		}
		for _, r := range res.Items {
			out.Entries = append(out.Entries, topicEntry(lib, counter, r))
		}
	}
	if domain == "" {
		out.Entries = append(out.Entries, agentEntries(lib, counter, files, want)...)
	}
	for _, e := range out.Entries {
		out.Tokens += e.Tokens
	}
	return out, nil
}

// agentEntries lists the entries of every kind but topics that want
// keeps, counted by counter: the commands of lib's command roots, then
// the agent files of files the inventory lists.
func agentEntries(lib *library.Snapshot, counter tokens.Counter, files []*agentfiles.File, want func(kind string) bool) []InventoryEntry {
	var out []InventoryEntry
	seen := map[string]bool{}
	if want(KindCommand) {
		for _, c := range lib.Commands() {
			seen[c.Path] = true
			out = append(out, InventoryEntry{Reference: fsguard.RelSlash(lib.Dir(), c.Path), Title: oneLine(cmp.Or(c.Description, c.Name)),
				Kind: KindCommand, Tokens: counter.Count(c.Body()), Path: fsguard.RelSlash(lib.Dir(), c.Path)})
		}
	}
	// A skill's name is its reference unless other skills share it (a
	// plugin copied for several agents): then only its path tells which.
	skills := map[string]int{}
	for _, f := range files {
		if f.Kind == agentfiles.KindSkill && f.Doc != nil {
			skills[f.SkillName()]++
		}
	}
	for _, f := range files {
		k := agentKind(f.Kind)
		if k == "" || !want(k) || seen[f.Path] || f.Doc == nil {
			continue
		}
		e := agentEntry(counter, f, k)
		if k == KindSkill && skills[e.Reference] > 1 {
			e.Reference = f.Rel
		}
		out = append(out, e)
	}
	return out
}

// agentKind is the inventory kind of an agent file, or "" for files that
// are not loaded as context (plugin manifests, memory files).
func agentKind(k agentfiles.Kind) string {
	switch k {
	case agentfiles.KindSkill:
		return KindSkill
	case agentfiles.KindCommand:
		return KindCommand
	case agentfiles.KindSubagent:
		return KindSubagent
	case agentfiles.KindRule, agentfiles.KindCursorRule:
		return KindRule
	}
	return ""
}

// topicEntry is the inventory entry of a topic, its body counted by
// counter: the library measured it in its own tokenizer, and in another
// it is counted again.
func topicEntry(lib *library.Snapshot, counter tokens.Counter, r Reference) InventoryEntry {
	n := r.MeasuredTokens
	if counter.Name() != lib.Counter().Name() {
		if t, ok := lib.Topic(r.ID); ok {
			n = counter.Count(t.Body())
		}
	}
	return InventoryEntry{Reference: r.Key(), Title: oneLine(r.Title), Kind: KindTopic, Tokens: n, ID: r.ID,
		Path: fsguard.RelSlash(lib.Dir(), r.Path), Type: r.Type, LoadingStrategy: r.LoadingStrategy, DeclaredTokens: r.EstimatedTokens}
}

// agentEntry is the inventory entry of an agent file of kind k.
func agentEntry(counter tokens.Counter, f *agentfiles.File, k string) InventoryEntry {
	e := InventoryEntry{Reference: f.Rel, Title: oneLine(cmp.Or(f.Meta.Description, f.Meta.Name, path.Base(f.Rel))),
		Kind: k, Tokens: agentload.FileTokens(counter, f), Path: f.Rel}
	if k == KindSkill {
		e.Reference = f.SkillName()
	}
	return e
}

// oneLine is s with every run of white space, line breaks among them, one
// space: a title is shown on one line of a table, a list or a symbol.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\v\f") && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// agentFiles returns the agent files of snap, none when they cannot be
// read: a listing shows the library all the same.
func (o *Ops) agentFiles(ctx context.Context, snap Snapshot) []*agentfiles.File {
	set, err := snap.AgentFiles(ctx)
	if err != nil {
		o.log.Warn("agent files", "err", err)
		return nil
	}
	if set == nil {
		return nil
	}
	return set.Files
}

// skillIn returns the skill of files called name.
func skillIn(files []*agentfiles.File, name string) (*agentfiles.File, bool) {
	for _, f := range files {
		if f.Kind == agentfiles.KindSkill && f.SkillName() == name {
			return f, true
		}
	}
	return nil, false
}

// agentFileIn returns the agent file of files, of a kind the inventory
// lists, at the absolute path p.
func agentFileIn(files []*agentfiles.File, p string) (*agentfiles.File, bool) {
	p = filepath.Clean(p)
	for _, f := range files {
		if f.Path == p && agentKind(f.Kind) != "" {
			return f, true
		}
	}
	return nil, false
}

type errorString string

func (e errorString) Error() string { return string(e) }
