package chain

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refs"
	"github.com/ctxls/ctxls/providers/runs/execution"
)

// ContextItem is one topic, or some sections of a topic, that a step loads
// or that the budget left out.
type ContextItem struct {
	// Reference is "domain:topic" or "domain:topic#Section".
	Reference string `json:"reference"`
	ID        string `json:"id"`
	Domain    string `json:"domain"`
	Topic     string `json:"topic"`
	// Section names the sections loaded (comma-separated), "" for the
	// whole topic.
	Section         string `json:"section,omitempty"`
	Title           string `json:"title,omitempty"`
	Kind            string `json:"kind,omitempty"`
	LoadingStrategy string `json:"loadingStrategy,omitempty"`
	// Tokens is the measured cost of the content.
	Tokens int `json:"tokens"`
	// Cached reports that an earlier step of the session loaded it and its
	// cached copy is used.
	Cached bool `json:"cached"`
	// Source is "cache" or "materialized"; empty for dropped items.
	Source string `json:"source,omitempty"`
	// Reason says why it was chosen (always-load, framework, reference,
	// section, cross-domain, lookup) or, for a dropped item, why the
	// budget left it out.
	Reason string `json:"reason"`

	sections []string
}

// key is the cache key of the item in the execution.
func (c *ContextItem) key() execution.ContextKey {
	t := c.Topic
	if c.Section != "" {
		t += "#" + c.Section
	}
	d := c.Domain
	if d == "" {
		// A file directly in a context root, such as loading_protocol.
		d = "context"
	}
	return execution.ContextKey{Domain: d, Topic: t}
}

// materialize loads the item's content through the provider: the topic's
// body, or its sections one after the other.
func (c *ContextItem) materialize(ctx context.Context, p *contextapi.Provider) (string, error) {
	ref := contextapi.Reference{ID: c.ID}
	if len(c.sections) == 0 {
		f, err := p.Materialize(ctx, ref)
		if err != nil {
			return "", fmt.Errorf("materialize %s: %w", c.Reference, err)
		}
		if f.ID == "" {
			return "", fmt.Errorf("materialize %s: %s", c.Reference, warningsText(f.Warnings))
		}
		return f.Content, nil
	}
	pc, err := p.MaterializeSections(ctx, ref, c.sections)
	if err != nil {
		return "", fmt.Errorf("materialize %s: %w", c.Reference, err)
	}
	if len(pc.Sections) == 0 {
		return "", fmt.Errorf("materialize %s: %s", c.Reference, warningsText(pc.Warnings))
	}
	parts := make([]string, len(pc.Sections))
	for i, s := range pc.Sections {
		parts[i] = strings.TrimSpace(s.Content)
	}
	return strings.Join(parts, "\n\n"), nil
}

func warningsText(ws []contextapi.Warning) string {
	if len(ws) == 0 {
		return "not found"
	}
	msgs := make([]string, len(ws))
	for i, w := range ws {
		msgs[i] = w.Message
	}
	return strings.Join(msgs, "; ")
}

// maxCollectWarnings bounds the warnings of one command's references; the
// rest are counted in one more.
const maxCollectWarnings = 50

// maxCollectPaths bounds the distinct path references of one command that
// are resolved, each a few lookups on disk: far more topics than a budget
// loads, while a command of tens of thousands of links would take seconds
// on every preview.
const maxCollectPaths = 2000

// pathRef is what the resolution of a path reference depends on, within
// one file.
type pathRef struct {
	path, fragment string
	where          refs.Where
}

// collect turns the references a command makes, in its frontmatter context
// list and its body, into requests of the loading protocol. A domain named
// alone brings its always-load topics; topics of domains the command does
// not name as a whole are cross-domain. Unresolved references are reported
// as warnings and skipped.
func collect(lib *library.Snapshot, cmd *library.Command) ([]contextapi.Request, []string) {
	f, ok := lib.File(cmd.Path)
	if !ok {
		return nil, []string{fmt.Sprintf("command file %s is not indexed", cmd.Path)}
	}
	type want struct {
		topic   *library.Topic
		section string
		reason  string
	}
	var (
		wants    []want
		warnings []string
		seenWarn = map[string]bool{}
		unwarned int
		primary  = map[string]bool{}
		wanted   = map[want]bool{}
		// A path written again resolves as it did the first time.
		paths    = map[pathRef]library.Target{}
		unpathed int
	)
	warn := func(w string) {
		switch {
		case seenWarn[w]:
		case len(warnings) >= maxCollectWarnings:
			unwarned++
		default:
			seenWarn[w] = true
			warnings = append(warnings, w)
		}
	}
	// A command may repeat a reference thousands of times; it loads once.
	add := func(w want) {
		if !wanted[w] {
			wanted[w] = true
			wants = append(wants, w)
		}
	}
	// The close names of a failure are for diagnostics, not warnings.
	resolve := func(r refs.Ref) (library.Target, bool) {
		if r.Form != refs.PathForm {
			return lib.ResolveBrief(f, r), true
		}
		k := pathRef{r.Path, r.Fragment, r.Where}
		if t, ok := paths[k]; ok {
			return t, true
		}
		if len(paths) >= maxCollectPaths {
			unpathed++
			return library.Target{}, false
		}
		t := lib.ResolveBrief(f, r)
		paths[k] = t
		return t, true
	}
	for _, r := range f.Refs.All() {
		t, ok := resolve(r)
		if !ok {
			continue
		}
		switch t.Kind {
		case library.DomainTarget:
			if t.Domain == nil {
				continue
			}
			primary[t.Domain.Name] = true
			for _, tp := range t.Domain.Topics {
				// The index and detection files are lookups the choice of
				// topics is made from, not context for the agent.
				if tp.AlwaysLoad() && tp.Meta.Type != "index" && tp.Meta.Type != "detection" &&
					tp != t.Domain.Index && tp != t.Domain.Detection {
					add(want{tp, "", "always-load"})
				}
			}
		case library.TopicTarget, library.SectionTarget:
			switch {
			case t.Topic == nil:
			case t.Section != nil:
				add(want{t.Topic, t.Section.Name, "section"})
			case t.Failed != "":
				// A missing section: load the whole topic rather than nothing.
				warn(fmt.Sprintf("%s: %s; loading the whole topic", refText(f, r), t.Message))
				add(want{t.Topic, "", "reference"})
			default:
				add(want{t.Topic, "", "reference"})
			}
		case library.Unresolved:
			w := fmt.Sprintf("unresolved reference %s skipped", refText(f, r))
			if t.Message != "" {
				w += ": " + t.Message
			}
			warn(w)
		}
	}
	if unwarned > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more warnings about references not listed", unwarned))
	}
	if unpathed > 0 {
		warnings = append(warnings, fmt.Sprintf("%d path references past the first %d distinct paths skipped", unpathed, maxCollectPaths))
	}
	if len(primary) == 0 && len(wants) > 0 {
		primary[wants[0].topic.Domain] = true
	}
	reqs := make([]contextapi.Request, 0, len(wants))
	for _, w := range wants {
		rq := contextapi.Request{ID: w.topic.ID, Section: w.section, Reason: w.reason}
		if w.topic.AlwaysLoad() && w.topic.Meta.Type != "index" && w.topic.Meta.Type != "detection" {
			rq.Kind, rq.Reason = contextapi.KindAlways, "always-load"
		} else if !primary[w.topic.Domain] && w.topic.Domain != "" {
			rq.Kind = contextapi.KindCrossDomain
			if rq.Reason == "reference" {
				rq.Reason = "cross-domain"
			}
		}
		reqs = append(reqs, rq)
	}
	return reqs, warnings
}

func refText(f *library.File, r refs.Ref) string {
	if f.Doc != nil && r.Span.End <= f.Doc.Len() && r.Span.Start < r.Span.End {
		return fmt.Sprintf("%q (line %d)", string(f.Doc.Slice(r.Span)), f.Doc.Lines.LineOf(r.Span.Start)+1)
	}
	return fmt.Sprintf("%s:%s", r.Domain, r.Topic)
}

// plan applies the loading protocol's budget to a command's references:
// the items to load in priority order and those the budget dropped, each
// with its reason, plus warnings.
func plan(ctx context.Context, p *contextapi.Provider, lib *library.Snapshot, cmd *library.Command, budget config.Budget) (kept, dropped []*ContextItem, warnings []string) {
	reqs, warnings := collect(lib, cmd)
	pl := p.Plan(ctx, reqs, budget)
	for _, it := range pl.Items {
		kept = append(kept, itemOf(it, ""))
	}
	if len(pl.Dropped) > 0 {
		names := make([]string, len(pl.Dropped))
		for i, d := range pl.Dropped {
			dropped = append(dropped, itemOf(d.PlanItem, "dropped: "+d.Why))
			names[i] = fmt.Sprintf("%s (%d tokens: %s)", d.Reference, d.Tokens, d.Why)
		}
		warnings = append(warnings, fmt.Sprintf("the context budget dropped %d item(s): %s", len(pl.Dropped), strings.Join(names, "; ")))
	}
	return kept, dropped, warnings
}

func itemOf(it contextapi.PlanItem, why string) *ContextItem {
	c := &ContextItem{
		Reference: it.Reference, ID: it.ID, Domain: it.Domain, Topic: it.Topic, Title: it.Title,
		Kind: it.Kind.String(), LoadingStrategy: it.LoadingStrategy, Tokens: it.Tokens, Reason: it.Reason,
		sections: it.Sections,
	}
	if len(it.Sections) > 0 {
		c.Section = strings.Join(it.Sections, ",")
	}
	switch {
	case it.Kind == contextapi.KindLookup:
		c.Reason = "lookup"
	case it.Kind == contextapi.KindFramework && c.Reason == "reference":
		c.Reason = "framework"
	}
	if why != "" {
		c.Reason = why
		if it.Reason != "" {
			c.Reason += " (" + it.Reason + ")"
		}
	}
	return c
}
