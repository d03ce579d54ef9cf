package chain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/execution"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refs"
)

// ContextItem is one topic, or one section of a topic, that a step loads or
// that the budget left out.
type ContextItem struct {
	// Reference is "domain:topic" or "domain:topic#Section".
	Reference       string `json:"reference"`
	ID              string `json:"id"`
	Domain          string `json:"domain"`
	Topic           string `json:"topic"`
	Section         string `json:"section,omitempty"`
	Title           string `json:"title,omitempty"`
	Type            string `json:"type,omitempty"`
	LoadingStrategy string `json:"loadingStrategy,omitempty"`
	// Tokens is the measured cost of the content.
	Tokens int `json:"tokens"`
	// Cached reports that an earlier step of the session loaded it and its
	// cached copy is used.
	Cached bool `json:"cached"`
	// Source is "cache" or "materialized"; empty for dropped items.
	Source string `json:"source,omitempty"`
	// Reason says why it was chosen (always-load, reference, section) or,
	// for a dropped item, why the budget left it out.
	Reason string `json:"reason"`

	priority int
	order    int
	topic    *library.Topic
	section  *library.Section
}

// key is the cache key of the item in the execution.
func (c *ContextItem) key() execution.ContextKey {
	t := c.Topic
	if c.Section != "" {
		t += "#" + c.Section
	}
	return execution.ContextKey{Domain: c.Domain, Topic: t}
}

// content materializes the item from the library: the topic's body, or the
// text of one section.
func (c *ContextItem) content() string {
	if c.section != nil {
		return string(c.topic.Doc.Slice(c.section.Content))
	}
	return c.topic.Body()
}

// Loading priorities of the loading protocol: always-load topics first, then
// framework topics, then library and pattern topics, then cross-cutting
// topics from other domains.
const (
	prioAlways = iota
	prioFramework
	prioLibrary
	prioCrossCutting
)

// collect gathers the context a command asks for: every resolved reference
// it makes, in its frontmatter context list and its body. A domain named
// alone brings its always-load topics. Unresolved references are reported as
// warnings and skipped.
func collect(lib *library.Library, cmd *library.Command) ([]*ContextItem, []string) {
	f, ok := lib.File(cmd.Path)
	if !ok {
		return nil, []string{fmt.Sprintf("command file %s is not indexed", cmd.Path)}
	}
	var (
		items    []*ContextItem
		warnings []string
		byKey    = map[string]*ContextItem{}
		primary  = map[string]bool{}
		seenWarn = map[string]bool{}
	)
	// Primary domains are those the command names as a whole; without any,
	// the domain of its first reference.
	for _, r := range f.Refs {
		if r.Form == refs.DomainForm {
			if t := lib.Resolve(f, r); t.Kind == library.DomainTarget && t.Domain != nil {
				primary[t.Domain.Name] = true
			}
		}
	}
	add := func(t *library.Topic, s *library.Section, reason string) {
		k := t.ID
		if s != nil {
			k += "#" + s.Name
		}
		if _, dup := byKey[k]; dup {
			return
		}
		if _, whole := byKey[t.ID]; whole && s != nil {
			return // the whole topic is loaded already
		}
		it := &ContextItem{
			ID: t.ID, Domain: t.Domain, Topic: t.Name, Title: t.Meta.Title, Type: t.Meta.Type,
			LoadingStrategy: t.Meta.LoadingStrategy, Tokens: t.Tokens, Reason: reason,
			topic: t, section: s, order: len(items),
		}
		if it.Domain == "" {
			// A file directly in a context root, such as loading_protocol.
			it.Domain = "context"
		}
		it.Reference = it.Domain + ":" + it.Topic
		if s != nil {
			it.Section, it.Tokens = s.Name, s.Tokens
			it.Reference += "#" + s.Name
		}
		byKey[k] = it
		items = append(items, it)
	}
	for _, r := range f.Refs {
		t := lib.Resolve(f, r)
		switch t.Kind {
		case library.DomainTarget:
			if t.Domain == nil {
				continue
			}
			for _, tp := range t.Domain.Topics {
				// The index and detection files are lookups the choice of
				// topics is made from, not context for the agent.
				if isAlwaysLoad(tp) && tp.Meta.Type != "index" && tp.Meta.Type != "detection" && tp != t.Domain.Index && tp != t.Domain.Detection {
					add(tp, nil, "always-load")
				}
			}
		case library.TopicTarget, library.SectionTarget:
			if t.Topic == nil {
				continue
			}
			if t.Section != nil {
				add(t.Topic, t.Section, "section")
			} else if t.Failed != "" {
				// A missing section: load the whole topic rather than nothing.
				w := fmt.Sprintf("%s: %s; loading the whole topic", refText(f, r), t.Message)
				if !seenWarn[w] {
					seenWarn[w] = true
					warnings = append(warnings, w)
				}
				add(t.Topic, nil, "reference")
			} else {
				add(t.Topic, nil, "reference")
			}
		case library.Unresolved:
			w := fmt.Sprintf("unresolved reference %s skipped", refText(f, r))
			if t.Message != "" {
				w += ": " + t.Message
			}
			if !seenWarn[w] {
				seenWarn[w] = true
				warnings = append(warnings, w)
			}
		}
	}
	if len(primary) == 0 && len(items) > 0 {
		primary[items[0].Domain] = true
	}
	// A whole topic listed after one of its sections replaces the section.
	kept := items[:0]
	for _, it := range items {
		if it.section != nil {
			if _, whole := byKey[it.ID]; whole {
				continue
			}
		}
		kept = append(kept, it)
	}
	items = kept
	for _, it := range items {
		switch {
		case isAlwaysLoad(it.topic):
			it.priority, it.Reason = prioAlways, "always-load"
		case !primary[it.Domain]:
			it.priority = prioCrossCutting
			if it.Reason == "reference" {
				it.Reason = "cross-domain"
			}
		case it.Type == "framework":
			it.priority = prioFramework
			if it.Reason == "reference" {
				it.Reason = "framework"
			}
		default:
			it.priority = prioLibrary
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].priority != items[j].priority {
			return items[i].priority < items[j].priority
		}
		return items[i].order < items[j].order
	})
	return items, warnings
}

func isAlwaysLoad(t *library.Topic) bool {
	return t.Meta.LoadingStrategy == "always" || t.Meta.Type == "always"
}

func refText(f *library.File, r refs.Ref) string {
	if f.Doc != nil && r.Span.End <= len(f.Doc.Text) && r.Span.Start < r.Span.End {
		return fmt.Sprintf("%q (line %d)", string(f.Doc.Slice(r.Span)), f.Doc.Lines.LineOf(r.Span.Start)+1)
	}
	return fmt.Sprintf("%s:%s", r.Domain, r.Topic)
}

// budgetPlan keeps items in priority order while they fit the budget's file
// count and token limit; the rest are dropped, each with the reason.
func budgetPlan(items []*ContextItem, b config.Budget) (kept, dropped []*ContextItem) {
	maxFiles, maxTokens := b.Files, b.Tokens
	if maxFiles <= 0 {
		maxFiles = config.DefaultBudgetFiles
	}
	if maxTokens <= 0 {
		maxTokens = config.DefaultBudgetTokens
	}
	total := 0
	for _, it := range items {
		switch {
		case len(kept) >= maxFiles:
			it.Reason = fmt.Sprintf("dropped: the file budget of %d is used up (%s)", maxFiles, it.Reason)
			dropped = append(dropped, it)
		case total+it.Tokens > maxTokens:
			it.Reason = fmt.Sprintf("dropped: %d tokens would exceed the token budget of %d with %d loaded (%s)",
				it.Tokens, maxTokens, total, it.Reason)
			dropped = append(dropped, it)
		default:
			kept = append(kept, it)
			total += it.Tokens
		}
	}
	return kept, dropped
}

// dropWarnings says what the budget left out.
func dropWarnings(dropped []*ContextItem) []string {
	if len(dropped) == 0 {
		return nil
	}
	names := make([]string, len(dropped))
	for i, d := range dropped {
		names[i] = fmt.Sprintf("%s (%d tokens)", d.Reference, d.Tokens)
	}
	return []string{fmt.Sprintf("the context budget dropped %d item(s): %s", len(dropped), strings.Join(names, ", "))}
}
