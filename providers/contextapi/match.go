package contextapi

import (
	"slices"
	"strings"
)

// MatchField is one field of something other than a topic (a skill, a
// command, a subagent, a rule) that Match scores a query against.
type MatchField struct {
	// Name is what MatchedOn calls the field: "name", "description",
	// "path".
	Name string
	Text string
	// Weight is the field's weight in 0..1, as a topic's tag is 1 and its
	// detection trigger 0.7.
	Weight float64
}

// Match scores query against fields the way Search scores a topic: each
// of the query's words counts the weight of the best field it is in (a
// word that only begins a word of the field at a discount), and the
// relevance is their sum over the number of words, in 0..1. It returns 0
// and no fields when no word matched.
func Match(query string, fields ...MatchField) (relevance float64, matchedOn []string) {
	var qs []string
	for _, w := range searchWords(query) {
		if !slices.Contains(qs, w) {
			qs = append(qs, w)
		}
	}
	if len(qs) == 0 {
		return 0, nil
	}
	words := make([][]string, len(fields))
	for i, f := range fields {
		words[i] = searchWords(f.Text)
	}
	matched := make([]bool, len(fields))
	score := 0.0
	for _, q := range qs {
		best := 0.0
		for i, f := range fields {
			w := 0.0
			for _, fw := range words[i] {
				switch {
				case fw == q:
					w = f.Weight
				case len(q) >= 3 && strings.HasPrefix(fw, q):
					w = max(w, f.Weight*prefixFactor)
				}
				if w == f.Weight {
					break
				}
			}
			if w > 0 {
				matched[i] = true
			}
			best = max(best, w)
		}
		score += best
	}
	for i, f := range fields {
		if matched[i] {
			matchedOn = append(matchedOn, f.Name)
		}
	}
	if score == 0 {
		return 0, nil
	}
	return round2(min(score/float64(len(qs)), 1)), matchedOn
}
