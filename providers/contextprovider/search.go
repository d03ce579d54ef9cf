package contextprovider

import (
	"context"

	"slices"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// SearchItem is one search result.
type SearchItem struct {
	Reference Reference `json:"reference"`
	// Relevance is in 0..1: the share of the query's words that matched,
	// each weighted by the field it matched in.
	Relevance float64 `json:"relevance"`
	// MatchedOn lists the fields that matched: tag, keyword, title,
	// detectionTrigger, id.
	MatchedOn []string `json:"matchedOn"`
}

// DefaultSearchLimit is the number of results Search returns when no
// limit is given.
const DefaultSearchLimit = 50

// Fields a search term can match in, and their weights.
const (
	fTag uint8 = 1 << iota
	fKeyword
	fTitle
	fTrigger
	fID
)

var fieldNames = []struct {
	f      uint8
	name   string
	weight float32
}{
	{fTag, "tag", 1},
	{fTitle, "title", 0.9},
	{fID, "id", 0.85},
	{fKeyword, "keyword", 0.8},
	{fTrigger, "detectionTrigger", 0.7},
}

// prefixFactor discounts a query word that only begins an indexed word.
const prefixFactor = 0.8

type posting struct {
	doc    int32
	fields uint8
}

// docTerms are one topic's indexed words with the fields they occur in.
type docTerms struct {
	topic *library.Topic
	terms map[string]uint8
}

// searchIndex is an inverted index of one library version.
type searchIndex struct {
	docs     []docTerms
	domains  []string // per doc
	postings map[string][]posting
	vocab    []string // sorted, for prefix lookups
}

// searchWords normalizes text into search terms: lower-case words,
// stemmed, without articles and prepositions.
func searchWords(s string) []string {
	var out []string
	for _, w := range splitWords(s) {
		switch w {
		case "a", "an", "the", "and", "or", "of", "in", "on", "to", "for", "with", "by", "at", "is":
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// topicTermsForSearch collects the words of a topic's searchable fields.
func topicTermsForSearch(t *library.Topic) map[string]uint8 {
	m := map[string]uint8{}
	add := func(s string, f uint8) {
		for _, w := range searchWords(s) {
			m[w] |= f
		}
	}
	for _, tag := range t.Meta.Tags {
		add(tag, fTag)
	}
	for _, s := range t.Sections {
		for _, k := range s.Keywords {
			add(k, fKeyword)
		}
	}
	for _, s := range t.Meta.Sections {
		for _, k := range s.Keywords {
			add(k, fKeyword)
		}
	}
	add(t.Meta.Title, fTitle)
	for _, d := range t.Meta.DetectionTriggers {
		add(d, fTrigger)
	}
	add(t.Name, fID)
	return m
}

// searchIndex returns the index of this version, reusing the previous
// version's words for topics that did not change.
func (d *derived) searchIndex() *searchIndex {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.index != nil {
		return d.index
	}
	prev := map[*library.Topic]map[string]uint8{}
	if d.prevIndex != nil {
		for _, dt := range d.prevIndex.docs {
			prev[dt.topic] = dt.terms
		}
	}
	topics := d.lib.Topics()
	ix := &searchIndex{docs: make([]docTerms, len(topics)), domains: make([]string, len(topics)), postings: map[string][]posting{}}
	for i, t := range topics {
		terms, ok := prev[t]
		if !ok {
			terms = topicTermsForSearch(t)
		}
		ix.docs[i] = docTerms{topic: t, terms: terms}
		ix.domains[i] = t.Domain
		for w, f := range terms {
			ix.postings[w] = append(ix.postings[w], posting{doc: int32(i), fields: f})
		}
	}
	ix.vocab = make([]string, 0, len(ix.postings))
	for w := range ix.postings {
		ix.vocab = append(ix.vocab, w)
	}
	sort.Strings(ix.vocab)
	d.index = ix
	d.prevIndex = nil
	return ix
}

// bestWeight is the weight of the heaviest field in fields.
func bestWeight(fields uint8) float32 {
	for _, f := range fieldNames {
		if fields&f.f != 0 {
			return f.weight
		}
	}
	return 0
}

// Search finds files whose tags, section keywords, title, detection
// triggers or name contain the query's words (a word may also begin an
// indexed word, at a discount). Results are ordered by relevance, best
// first; at most limit are returned (DefaultSearchLimit when limit ≤ 0),
// with a warning when more matched.
func (p *Provider) Search(ctx context.Context, query, domain string, limit int) (List[SearchItem], error) {
	if err := checkName(domain); err != nil {
		return List[SearchItem]{}, err
	}
	out := newList[SearchItem]()
	lib := p.source()
	if domain != "" && !lib.IsDomain(domain) {
		out.Warnings = append(out.Warnings, notFoundDomain(lib, domain))
		return out, nil
	}
	var qs []string
	for _, w := range searchWords(query) {
		if !slices.Contains(qs, w) {
			qs = append(qs, w)
		}
	}
	if len(qs) == 0 {
		out.Warnings = append(out.Warnings, warnf("empty-query", "the query %q has no words to search for", query))
		return out, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	ix := p.current(lib).searchIndex()

	n := len(ix.docs)
	score := make([]float32, n)
	fields := make([]uint8, n)
	best := make([]float32, n) // this query word's best weight per doc
	var touched, hit []int32
	seen := make([]bool, n)
	for _, q := range qs {
		touched = touched[:0]
		visit := func(ps []posting, factor float32) {
			for _, ps := range ps {
				if domain != "" && ix.domains[ps.doc] != domain {
					continue
				}
				w := bestWeight(ps.fields) * factor
				if best[ps.doc] == 0 {
					touched = append(touched, ps.doc)
				}
				if w > best[ps.doc] {
					best[ps.doc] = w
				}
				fields[ps.doc] |= ps.fields
			}
		}
		visit(ix.postings[q], 1)
		if len(q) >= 3 {
			i := sort.SearchStrings(ix.vocab, q)
			for ; i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], q); i++ {
				if ix.vocab[i] != q {
					visit(ix.postings[ix.vocab[i]], prefixFactor)
				}
			}
		}
		for _, d := range touched {
			score[d] += best[d]
			best[d] = 0
			if !seen[d] {
				seen[d] = true
				hit = append(hit, d)
			}
		}
	}
	slices.SortFunc(hit, func(a, b int32) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(ix.docs[a].topic.ID, ix.docs[b].topic.ID)
	})
	if len(hit) > limit {
		out.Warnings = append(out.Warnings, warnf(WarnTruncated, "showing the best %d of %d matches", limit, len(hit)))
		hit = hit[:limit]
	}
	for _, d := range hit {
		var on []string
		for _, f := range fieldNames {
			if fields[d]&f.f != 0 {
				on = append(on, f.name)
			}
		}
		rel := float64(score[d]) / float64(len(qs))
		out.Items = append(out.Items, SearchItem{Reference: p.reference(ix.docs[d].topic), Relevance: round2(min(rel, 1)), MatchedOn: on})
	}
	return out, nil
}
