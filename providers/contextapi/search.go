package contextapi

import (
	"context"

	"slices"
	"sort"
	"strings"
	"sync"

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

// searchIndex is an inverted index that follows the provider's library:
// a search first brings it up to date, re-indexing only the topics that
// changed since the last search.
type searchIndex struct {
	mu       sync.RWMutex
	lib      *library.Snapshot // what the index reflects
	version  uint64
	docs     []docTerms // a nil topic is a free slot
	free     []int32
	byTopic  map[*library.Topic]int32
	postings map[string][]posting
	vocab    []string // sorted, for prefix lookups
}

// bulkThreshold is the number of changed topics above which the index is
// rebuilt rather than patched.
const bulkThreshold = 256

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

// rlockCurrent read-locks the index after bringing it up to date with
// lib. The caller must RUnlock.
func (ix *searchIndex) rlockCurrent(lib *library.Snapshot) {
	v := lib.Version()
	ix.mu.RLock()
	if ix.lib == lib && ix.version == v {
		return
	}
	ix.mu.RUnlock()
	ix.mu.Lock()
	if ix.lib != lib || ix.version != v {
		ix.sync(lib, v)
	}
	ix.mu.Unlock()
	ix.mu.RLock()
}

// sync brings the index in step with lib: topics the library replaced or
// removed leave it, new ones enter. Unchanged topics keep their words, so
// one edited file costs one file's indexing plus a pass over the topic
// list.
func (ix *searchIndex) sync(lib *library.Snapshot, v uint64) {
	// In no order: a rebuild sorts them, a few changes are looked up.
	topics := lib.TopicsUnordered()
	seen := make([]bool, len(ix.docs))
	var added []*library.Topic
	for _, t := range topics {
		if i, ok := ix.byTopic[t]; ok {
			seen[i] = true
		} else {
			added = append(added, t)
		}
	}
	removed := 0
	for i, d := range ix.docs {
		if d.topic != nil && !seen[i] {
			removed++
		}
	}
	if ix.byTopic == nil || len(added)+removed > bulkThreshold || len(ix.free) > len(topics) {
		library.SortTopics(topics)
		ix.rebuild(topics)
	} else {
		for i, d := range ix.docs {
			if d.topic != nil && !seen[i] {
				ix.remove(int32(i))
			}
		}
		library.SortTopics(added) // the same slots, whatever the map's order
		for _, t := range added {
			ix.insert(t, topicTermsForSearch(t))
		}
	}
	ix.lib, ix.version = lib, v
}

// rebuild indexes topics from scratch, reusing the words of topics the
// index already holds.
func (ix *searchIndex) rebuild(topics []*library.Topic) {
	old := map[*library.Topic]map[string]uint8{}
	for _, d := range ix.docs {
		if d.topic != nil {
			old[d.topic] = d.terms
		}
	}
	ix.docs = make([]docTerms, len(topics))
	ix.free = nil
	ix.byTopic = make(map[*library.Topic]int32, len(topics))
	ix.postings = map[string][]posting{}
	for i, t := range topics {
		terms, ok := old[t]
		if !ok {
			terms = topicTermsForSearch(t)
		}
		ix.docs[i] = docTerms{topic: t, terms: terms}
		ix.byTopic[t] = int32(i)
		for w, f := range terms {
			ix.postings[w] = append(ix.postings[w], posting{doc: int32(i), fields: f})
		}
	}
	ix.vocab = make([]string, 0, len(ix.postings))
	for w := range ix.postings {
		ix.vocab = append(ix.vocab, w)
	}
	sort.Strings(ix.vocab)
}

func (ix *searchIndex) remove(i int32) {
	d := ix.docs[i]
	for w := range d.terms {
		ps := ix.postings[w]
		for j := range ps {
			if ps[j].doc == i {
				ps[j] = ps[len(ps)-1]
				ps = ps[:len(ps)-1]
				break
			}
		}
		if len(ps) == 0 {
			delete(ix.postings, w)
			if k, ok := slices.BinarySearch(ix.vocab, w); ok {
				ix.vocab = slices.Delete(ix.vocab, k, k+1)
			}
		} else {
			ix.postings[w] = ps
		}
	}
	delete(ix.byTopic, d.topic)
	ix.docs[i] = docTerms{}
	ix.free = append(ix.free, i)
}

func (ix *searchIndex) insert(t *library.Topic, terms map[string]uint8) {
	var i int32
	if n := len(ix.free); n > 0 {
		i, ix.free = ix.free[n-1], ix.free[:n-1]
	} else {
		i = int32(len(ix.docs))
		ix.docs = append(ix.docs, docTerms{})
	}
	ix.docs[i] = docTerms{topic: t, terms: terms}
	ix.byTopic[t] = i
	for w, f := range terms {
		if _, ok := ix.postings[w]; !ok {
			k, _ := slices.BinarySearch(ix.vocab, w)
			ix.vocab = slices.Insert(ix.vocab, k, w)
		}
		ix.postings[w] = append(ix.postings[w], posting{doc: i, fields: f})
	}
}

// scratch holds one query's per-document accumulators.
type scratch struct {
	score  []float32
	best   []float32
	fields []uint8
	seen   []bool
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch(n int) *scratch {
	s := scratchPool.Get().(*scratch)
	if cap(s.score) < n {
		s.score, s.best, s.fields, s.seen = make([]float32, n), make([]float32, n), make([]uint8, n), make([]bool, n)
	}
	s.score, s.best, s.fields, s.seen = s.score[:n], s.best[:n], s.fields[:n], s.seen[:n]
	return s
}

// putScratch clears the entries a query touched and returns s to the pool.
func putScratch(s *scratch, hit []int32) {
	for _, d := range hit {
		s.score[d], s.best[d], s.fields[d], s.seen[d] = 0, 0, 0, false
	}
	scratchPool.Put(s)
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
	return p.SearchIn(ctx, p.library(), query, domain, limit)
}

// SearchIn is Search over lib, a library the caller holds for its whole
// request.
func (p *Provider) SearchIn(ctx context.Context, lib *library.Snapshot, query, domain string, limit int) (List[SearchItem], error) {
	if err := checkName(domain); err != nil {
		return List[SearchItem]{}, err
	}
	out := newList[SearchItem]()
	out.Tokenizer = lib.Counter().Name()
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
	ix := p.search
	ix.rlockCurrent(lib)
	defer ix.mu.RUnlock()

	sc := getScratch(len(ix.docs))
	score, fields, best, seen := sc.score, sc.fields, sc.best, sc.seen
	var touched, hit []int32
	defer func() { putScratch(sc, hit) }()
	for _, q := range qs {
		touched = touched[:0]
		visit := func(ps []posting, factor float32) {
			for _, ps := range ps {
				if domain != "" && ix.docs[ps.doc].topic.Domain != domain {
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
	shown := hit
	if len(shown) > limit {
		out.Warnings = append(out.Warnings, warnf(WarnTruncated, "showing the best %d of %d matches", limit, len(hit)))
		shown = shown[:limit]
	}
	for _, d := range shown {
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
