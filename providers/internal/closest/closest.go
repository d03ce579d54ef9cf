// Package closest finds the names a misspelt or partial name may mean,
// for the "did you mean" of diagnostics and errors.
package closest

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Names returns up to n names close to want, best first: names that
// extend or shorten it by whole words ("django" → "django_patterns"),
// names whose first words want misspells ("djangoo" → "django_patterns"),
// names sharing its words, then names within an edit distance that is
// small for their length, so that short names ("zz", "goo") do not match
// everything of about their length.
func Names(want string, names []string, n int) []string {
	type scored struct {
		name  string
		score int
	}
	w := strings.ToLower(want)
	wWords := splitWords(w)
	var out []scored
	for _, name := range names {
		c := strings.ToLower(name)
		if c == w {
			out = append(out, scored{name, 0})
			continue
		}
		score := -1
		if w != "" && (wordPrefix(c, w) || wordPrefix(w, c)) {
			score = 10 + abs(len(c)-len(w))/4
		} else if d, ok := prefixTypo(w, c); ok {
			score = 15 + d
		} else if len(wWords) > 0 && containsWords(splitWords(c), wWords) {
			score = 20 + abs(len(c)-len(w))/4
		} else if limit := typoLimit(w, c); abs(utf8.RuneCountInString(w)-utf8.RuneCountInString(c)) <= limit {
			// Names that differ in length by more than the limit are
			// further apart than that: no need to measure them. Beyond two
			// edits the names must also start with the same word, so
			// "etl_patterns" does not suggest "build_patterns".
			if d := distance(w, c); d <= limit && (d <= 2 || firstWord(w) == firstWord(c)) {
				score = 30 + d
			}
		}
		if score >= 0 {
			out = append(out, scored{name, score})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score < out[j].score
		}
		return out[i].name < out[j].name
	})
	res := make([]string, 0, min(n, len(out)))
	for _, s := range out[:min(n, len(out))] {
		res = append(res, s.name)
	}
	return res
}

// typoLimit is the largest edit distance at which b still reads as a
// misspelling of a: a third of the longer name and at least one edit, but
// fewer edits than the shorter name has letters, since rewriting all of
// "x" gives any one-letter name.
func typoLimit(a, b string) int {
	la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	return min(max(1, max(la, lb)/3), min(la, lb)-1)
}

// wordPrefix reports whether p is a proper prefix of s that ends where a
// word of s ends: "django" of "django_patterns", not "goo" of "good".
func wordPrefix(s, p string) bool {
	return len(p) < len(s) && strings.HasPrefix(s, p) && isWordSep(rune(s[len(p)]))
}

// prefixTypo reports whether want misspells a word-aligned proper prefix
// of name ("djangoo" for "django" of "django_patterns"), and by how many
// edits. The prefix must be long enough that a third of it allows an
// edit, so "goo" does not misspell "go" of "go_modules".
func prefixTypo(want, name string) (int, bool) {
	best, found := 0, false
	n := utf8.RuneCountInString(want)
	for i, r := range name {
		if !isWordSep(r) || i == 0 {
			continue
		}
		p := name[:i]
		np := utf8.RuneCountInString(p)
		// A prefix whose length differs from want's by more than the
		// limit is further than that from it.
		limit := np / 3
		if limit == 0 || abs(n-np) > limit {
			continue
		}
		if d := distance(want, p); d <= limit && (!found || d < best) {
			best, found = d, true
		}
	}
	return best, found
}

func firstWord(s string) string {
	if w := splitWords(s); len(w) > 0 {
		return w[0]
	}
	return ""
}

func isWordSep(r rune) bool {
	return r == '_' || r == '-' || r == ' ' || r == '/' || r == '.'
}

func splitWords(s string) []string {
	return strings.FieldsFunc(s, isWordSep)
}

// containsWords reports whether every word of want is a word of have or,
// when it has at least three letters, starts one ("fixture" of
// "fixtures"); a letter or two starts too many words to mean anything.
func containsWords(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool {
			return h == w || utf8.RuneCountInString(w) >= 3 && strings.HasPrefix(h, w)
		}) {
			return false
		}
	}
	return true
}

// distance is the Levenshtein edit distance between a and b, in runes.
func distance(a, b string) int {
	// Names are short: the buffers stay on the stack, and a diagnostics
	// pass that measures thousands of names allocates nothing here.
	var abuf, bbuf [48]rune
	var pbuf, cbuf [49]int
	ra, rb := appendRunes(abuf[:0], a), appendRunes(bbuf[:0], b)
	prev, cur := pbuf[:0], cbuf[:0]
	if n := len(rb) + 1; n > len(pbuf) {
		prev, cur = make([]int, n), make([]int, n)
	} else {
		prev, cur = pbuf[:n], cbuf[:n]
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
