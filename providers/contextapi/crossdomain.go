package contextapi

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// crossRow is one row of the cross-domain trigger matrix.
type crossRow struct {
	primary   string // a domain, or "" for rows that apply to any domain
	condition string
	terms     []string
	targets   []string // topic ids; "{domain}" already substituted per call
	raw       []string // targets as written, for {domain} rows
	relevance float64
}

type crossMatrix struct {
	rows     []crossRow
	found    bool // the library has a cross_domain.md with a matrix
	warnings []Warning
}

// crossMatrix returns the cross-domain matrix of this version.
func (d *derived) crossMatrix() *crossMatrix {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.matrix == nil {
		d.matrix = buildMatrix(d.lib)
	}
	return d.matrix
}

// buildMatrix reads every table of the root cross_domain.md that has a
// trigger column and a column of files to load.
func buildMatrix(lib *library.Snapshot) *crossMatrix {
	m := &crossMatrix{}
	t, ok := lib.RootFile("cross_domain")
	if !ok {
		return m
	}
	doc := t.Doc
	for _, tb := range doc.Tables {
		header := make([]string, len(tb.Header))
		for i, c := range tb.Header {
			header[i] = strings.ToLower(strings.Trim(c.Text, "*_ "))
		}
		trig := pickColumn(header, -1, func(h string) bool { return strings.Contains(h, "trigger") || strings.Contains(h, "condition") })
		target := pickColumn(header, trig, func(h string) bool { return strings.Contains(h, "secondary") }, func(h string) bool {
			return strings.Contains(h, "load") || strings.Contains(h, "context") || strings.Contains(h, "file")
		})
		if trig < 0 || target < 0 {
			continue
		}
		primary := pickColumn(header, -1, func(h string) bool { return strings.Contains(h, "primary") }, func(h string) bool { return strings.Contains(h, "domain") })
		score := pickColumn(header, -1, func(h string) bool { return strings.Contains(h, "relevance") || strings.Contains(h, "score") },
			func(h string) bool { return strings.Contains(h, "priority") })
		m.found = true
		for _, row := range tb.Rows {
			cell := func(i int) string {
				if i < 0 || i >= len(row) {
					return ""
				}
				return row[i].Text
			}
			r := crossRow{condition: plainCell(cell(trig)), relevance: parseRelevance(cell(score))}
			r.terms = terms(r.condition)
			if primary >= 0 {
				// A row for a domain this workspace lacks never matches;
				// it is not an error of the caller's domain.
				r.primary = primaryDomain(lib, cell(primary))
			}
			r.raw = reMarkdown.FindAllString(cell(target), -1)
			if len(r.raw) == 0 {
				continue
			}
			m.rows = append(m.rows, r)
		}
	}
	return m
}

// primaryDomain reads a matrix's primary-domain cell: "python/",
// "Python", "Any code review" (any domain, returned as ""). A name that
// is no domain of the library is returned as written.
func primaryDomain(lib *library.Snapshot, cell string) string {
	s := strings.ToLower(plainCell(cell))
	s = strings.Trim(s, "/ ")
	words := splitWords(s)
	if len(words) == 0 || words[0] == "any" || words[0] == "all" || s == "*" {
		return ""
	}
	if lib.IsDomain(s) {
		return s
	}
	for _, w := range words {
		if lib.IsDomain(w) {
			return w
		}
	}
	return s
}

// parseRelevance reads "0.9", "90%", "High".
func parseRelevance(s string) float64 {
	s = strings.ToLower(plainCell(s))
	if f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(s, "~"), "%"), 64); err == nil {
		if strings.HasSuffix(s, "%") || f > 1 {
			f /= 100
		}
		return min(max(f, 0), 1)
	}
	switch {
	case strings.Contains(s, "critical"), strings.Contains(s, "high"):
		return 0.9
	case strings.Contains(s, "medium"):
		return 0.6
	case strings.Contains(s, "low"):
		return 0.3
	}
	return 0.5
}

// crossHit is one secondary topic chosen by cross-domain triggers.
type crossHit struct {
	id        string
	relevance float64
	matched   []string
}

// CrossDomainContext loads topics from other domains that the triggers
// call for: rows of the cross-domain matrix whose primary domain is domain
// (or any) and whose trigger condition contains the trigger's words
// ("auth_code" matches "Auth, password, or input handling code detected"),
// and the crossDomainTriggers of the domain's topics that a trigger names.
// Results are ordered by relevance, highest first, and kept within the
// configured budget; what does not fit is reported as a warning.
func (p *Provider) CrossDomainContext(ctx context.Context, domain string, triggers []string) (List[ContextFile], error) {
	lib, dom, out, err := p.domainFiles(domain)
	if err != nil || dom == nil {
		return out, err
	}
	hits := p.crossHits(lib, dom, triggers, &out.Warnings)
	reqs := make([]Request, 0, len(hits))
	byID := map[string]*crossHit{}
	for i := range hits {
		h := &hits[i]
		byID[h.id] = h
		reqs = append(reqs, Request{ID: h.id, Kind: KindCrossDomain, Relevance: h.relevance, Reason: "cross-domain: " + h.matched[0]})
	}
	plan := p.Plan(ctx, reqs, lib.Config().Budget)
	out.Warnings = append(out.Warnings, plan.Warnings...)
	for _, it := range plan.Items {
		f, err := p.planFile(ctx, it)
		if err != nil {
			out.Warnings = append(out.Warnings, warnf(WarnFileNotFound, "%s skipped: %v", it.ID, err))
			continue
		}
		f.MatchedOn = byID[it.ID].matched
		out.Items = append(out.Items, f)
	}
	return out, nil
}

// crossHits matches triggers against the matrix and the topics' own
// crossDomainTriggers and returns the secondary topics by relevance.
func (p *Provider) crossHits(lib *library.Snapshot, dom *library.Domain, triggers []string, warns *[]Warning) []crossHit {
	m := p.current(lib).crossMatrix()
	*warns = append(*warns, m.warnings...)
	hits := &hitSet{byID: map[string]*crossHit{}}
	trigs := triggerTerms(triggers)
	if !m.found {
		*warns = append(*warns, warnf(WarnNoMatrix, "no cross_domain.md with a trigger matrix at a context root; only topics' crossDomainTriggers apply"))
	}
	p.matrixHits(lib, m, dom, trigs, hits, warns)
	// Topics' crossDomainTriggers: a trigger that names the topic or the
	// target (by its words, tags or id) pulls the target in, below the
	// matrix's explicit rows.
	for _, src := range dom.Topics {
		for _, target := range src.Meta.CrossDomainTriggers {
			tt, ok := lib.Topic(strings.TrimSuffix(target, ".md"))
			if !ok || tt.Domain == dom.Name {
				continue
			}
			srcTerms := topicTerms(src)
			dstTerms := topicTerms(tt)
			best := 0.0
			for _, t := range trigs {
				best = max(best, coverage(t, srcTerms), coverage(t, dstTerms))
			}
			if best == 1 {
				hits.add(tt.ID, triggerRelevance, src.ID+" crossDomainTriggers")
			}
		}
	}
	return hits.sorted()
}

// triggerRelevance is the relevance of a topic pulled in by another
// topic's crossDomainTriggers: below the matrix's strong rows, which a
// library's author scored for the case at hand.
const triggerRelevance = 0.5

// triggerTerms returns the terms of each trigger that has any.
func triggerTerms(triggers []string) [][]string {
	var out [][]string
	for _, t := range triggers {
		if tt := terms(t); len(tt) > 0 {
			out = append(out, tt)
		}
	}
	return out
}

// matrixHits adds the secondary topics of the matrix rows for dom (or for
// any domain) whose trigger condition covers at least half of a trigger's
// terms, weighted by the row's relevance and that coverage.
func (p *Provider) matrixHits(lib *library.Snapshot, m *crossMatrix, dom *library.Domain, trigs [][]string, hits *hitSet, warns *[]Warning) {
	unresolved := map[string]bool{}
	for _, r := range m.rows {
		if r.primary != "" && r.primary != dom.Name {
			continue
		}
		best := 0.0
		for _, t := range trigs {
			best = max(best, coverage(t, r.terms))
		}
		if best < 0.5 {
			continue
		}
		for _, raw := range r.raw {
			id, ok := p.current(lib).resolveFile("", strings.ReplaceAll(raw, "{domain}", dom.Name))
			if !ok {
				if !unresolved[raw] {
					unresolved[raw] = true
					*warns = append(*warns, warnf(WarnUnresolved, "cross_domain.md row %q names %s, which is not a topic", r.condition, strings.ReplaceAll(raw, "{domain}", dom.Name)))
				}
				continue
			}
			hits.add(id, r.relevance*best, r.condition)
		}
	}
}

// hitSet collects secondary topics, each once, with its best relevance
// and every reason it was chosen.
type hitSet struct {
	byID  map[string]*crossHit
	order []string
}

func (s *hitSet) add(id string, rel float64, why string) {
	h := s.byID[id]
	if h == nil {
		h = &crossHit{id: id}
		s.byID[id] = h
		s.order = append(s.order, id)
	}
	h.relevance = max(h.relevance, round2(rel))
	if !slices.Contains(h.matched, why) {
		h.matched = append(h.matched, why)
	}
}

// sorted returns the hits by relevance, highest first, then in the order
// they were found.
func (s *hitSet) sorted() []crossHit {
	out := make([]crossHit, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, *s.byID[id])
	}
	slices.SortStableFunc(out, func(a, b crossHit) int {
		return cmp.Compare(b.relevance, a.relevance) // highest first
	})
	return out
}

// topicTerms are the words a trigger may use to name a topic: its name,
// title and tags.
func topicTerms(t *library.Topic) []string {
	out := terms(strings.TrimSuffix(t.Name, "_patterns"))
	out = append(out, terms(t.Meta.Title)...)
	for _, tag := range t.Meta.Tags {
		if tag != t.Domain {
			out = append(out, terms(tag)...)
		}
	}
	return out
}
