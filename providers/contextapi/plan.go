package contextapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
)

// Kind is a request's place in the loading protocol's priority order:
// always-load topics first, then framework topics, then library topics,
// then cross-cutting topics from other domains.
type Kind int

const (
	// KindAuto classifies a request by its topic: type always or
	// loadingStrategy always → KindAlways, type framework →
	// KindFramework, index and detection files → KindLookup, anything
	// else → KindLibrary.
	KindAuto Kind = iota
	// KindAlways is an always-load topic of the primary domain.
	KindAlways
	// KindFramework is a framework topic matched by detection or named by
	// a command.
	KindFramework
	// KindLibrary is a library, pattern or reference topic.
	KindLibrary
	// KindCrossDomain is a secondary topic from the cross-domain matrix.
	KindCrossDomain
	// KindLookup is an index or detection file: a lookup of protocol steps
	// 1 and 3 that costs tokens but takes no file slot.
	KindLookup
)

var kindNames = [...]string{"auto", "always", "framework", "library", "crossDomain", "lookup"}

// String returns the kind's name as JSON writes it ("crossDomain").
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	i := slices.Index(kindNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("unknown kind %q (want one of %s)", b, strings.Join(kindNames[:], ", "))
	}
	*k = Kind(i)
	return nil
}

// rank orders kinds for the budget; lookups go first because the protocol
// reads them before choosing anything else.
func (k Kind) rank() int {
	if k == KindLookup {
		return 0
	}
	return int(k)
}

// Request asks for one topic, or one section of it, in a plan.
type Request struct {
	// ID names the topic: "domain/topic", "domain:topic" or a root file's
	// stem. A "#Section" suffix is the same as setting Section.
	ID string `json:"id"`
	// Section, when set, loads only that section.
	Section string `json:"section,omitempty"`
	// Kind places the request in the priority order.
	Kind Kind `json:"kind"`
	// Relevance orders requests of the same kind, highest first.
	Relevance float64 `json:"relevance,omitempty"`
	// Reason says why the topic is wanted; it is carried to the item.
	Reason string `json:"reason,omitempty"`
}

// PlanItem is one topic chosen (or dropped) by a plan.
type PlanItem struct {
	// Reference is the key form, "domain:topic" or "domain:topic#Section".
	Reference string `json:"reference"`
	ID        string `json:"id"`
	Domain    string `json:"domain"`
	Topic     string `json:"topic"`
	Title     string `json:"title,omitempty"`
	// Sections are the sections to load; empty means the whole topic.
	Sections        []string `json:"sections,omitempty"`
	Kind            Kind     `json:"kind"`
	Tokens          int      `json:"tokens"`
	Relevance       float64  `json:"relevance,omitempty"`
	Reason          string   `json:"reason,omitempty"`
	LoadingStrategy string   `json:"loadingStrategy,omitempty"`
	Path            string   `json:"path,omitempty"`
	// File is the library's topic, for materializing; nil for an
	// unresolved request.
	File *library.Topic `json:"-"`

	order int
}

// Dropped is an item the plan left out and why.
type Dropped struct {
	PlanItem
	Why string `json:"why"`
}

// Plan is the outcome of the loading protocol's budget: the items to
// load in priority order, what was dropped, and the totals.
type Plan struct {
	Items    []PlanItem    `json:"items"`
	Dropped  []Dropped     `json:"dropped"`
	Files    int           `json:"files"`
	Tokens   int           `json:"tokens"`
	Budget   config.Budget `json:"budget"`
	Warnings []Warning     `json:"warnings"`
}

// defaultBudget fills unset limits with the configuration's defaults.
func defaultBudget(b config.Budget) config.Budget {
	if b.Files < 1 {
		b.Files = config.DefaultBudgetFiles
	}
	if b.Tokens < 1 {
		b.Tokens = config.DefaultBudgetTokens
	}
	return b
}

// classify is the kind of an automatic request for topic t.
func classify(t *library.Topic) Kind {
	switch {
	case t.Meta.Type == "index" || t.Meta.Type == "detection":
		return KindLookup
	case t.AlwaysLoad():
		return KindAlways
	case t.Meta.Type == "framework":
		return KindFramework
	}
	return KindLibrary
}

// Plan applies the loading protocol's budget to a set of requests: it
// resolves each request, merges requests for the same topic (a whole
// topic absorbs its sections), orders them always-load, framework,
// library, cross-domain (by relevance within a kind, then request order),
// and takes items while at most budget.Files files and budget.Tokens
// tokens are used. Index and detection files take no file slot. Items
// that do not fit, do not exist or are refused are returned in Dropped,
// each with a warning. Zero limits mean the configuration's defaults.
func (p *Provider) Plan(ctx context.Context, requests []Request, budget config.Budget) Plan {
	budget = defaultBudget(budget)
	lib := p.library()
	plan := Plan{Items: []PlanItem{}, Dropped: []Dropped{}, Budget: budget, Warnings: []Warning{}}
	drop := func(it PlanItem, why string) {
		plan.Dropped = append(plan.Dropped, Dropped{PlanItem: it, Why: why})
		name := it.Reference
		if name == "" {
			name = it.ID
		}
		plan.Warnings = append(plan.Warnings, warnf(WarnBudget, "dropped %s: %s", name, why))
	}

	byID := map[string]*PlanItem{}
	var items []*PlanItem
	for i, rq := range requests {
		id, section := rq.ID, rq.Section
		if j := strings.IndexByte(id, '#'); j >= 0 {
			if section == "" {
				section = id[j+1:]
			}
			id = id[:j]
		}
		t, warns, err := p.lookupID(lib, id)
		if err != nil || t == nil {
			why := "not found"
			if errors.Is(err, ErrEscape) {
				why = err.Error()
			} else if len(warns) > 0 {
				why = warns[0].Message
			}
			it := PlanItem{Reference: rq.ID, ID: id, Kind: rq.Kind, Relevance: rq.Relevance, Reason: rq.Reason}
			if section != "" {
				it.Sections = []string{section}
			}
			drop(it, why)
			continue
		}
		kind := rq.Kind
		if kind == KindAuto {
			kind = classify(t)
		}
		var secName string
		if section != "" {
			s, ok := t.Section(section)
			if !ok {
				drop(PlanItem{Reference: t.Key() + "#" + section, ID: t.ID, Domain: t.Domain, Topic: t.Name, Kind: kind, Reason: rq.Reason, File: t},
					fmt.Sprintf("section %q not found in %s", section, t.Key()))
				continue
			}
			secName = s.Name
		}
		it := byID[t.ID]
		if it == nil {
			it = &PlanItem{ID: t.ID, Domain: t.Domain, Topic: t.Name, Title: t.Meta.Title, Kind: kind,
				Relevance: rq.Relevance, Reason: rq.Reason, LoadingStrategy: t.Meta.LoadingStrategy, Path: t.Path, File: t, order: i}
			if secName != "" {
				it.Sections = []string{secName}
			}
			byID[t.ID] = it
			items = append(items, it)
			continue
		}
		// A second request for the same topic: keep the higher priority
		// and the larger extent.
		if kind.rank() < it.Kind.rank() {
			it.Kind = kind
		}
		it.Relevance = max(it.Relevance, rq.Relevance)
		if it.Reason == "" {
			it.Reason = rq.Reason
		}
		switch {
		case secName == "":
			it.Sections = nil
		case len(it.Sections) > 0 && !slices.Contains(it.Sections, secName):
			it.Sections = append(it.Sections, secName)
		}
	}
	for _, it := range items {
		it.Reference = it.File.Key()
		it.Tokens = it.File.Tokens
		if len(it.Sections) > 0 {
			it.Reference += "#" + strings.Join(it.Sections, ",")
			it.Tokens = 0
			for _, name := range it.Sections {
				s, _ := it.File.Section(name)
				it.Tokens += s.Tokens
			}
		}
	}
	slices.SortStableFunc(items, func(a, b *PlanItem) int {
		if a.Kind.rank() != b.Kind.rank() {
			return a.Kind.rank() - b.Kind.rank()
		}
		if a.Relevance != b.Relevance {
			if a.Relevance > b.Relevance {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})
	for _, it := range items {
		slot := it.Kind != KindLookup
		switch {
		case slot && plan.Files >= budget.Files:
			drop(*it, fmt.Sprintf("file budget of %d files reached", budget.Files))
		case plan.Tokens+it.Tokens > budget.Tokens:
			drop(*it, fmt.Sprintf("needs %d tokens, %d of the %d-token budget left", it.Tokens, budget.Tokens-plan.Tokens, budget.Tokens))
		default:
			plan.Items = append(plan.Items, *it)
			plan.Tokens += it.Tokens
			if slot {
				plan.Files++
			}
		}
	}
	return plan
}
