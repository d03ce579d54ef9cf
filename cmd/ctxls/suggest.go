package main

// suggest returns the candidate a mistyped word most likely meant: the
// only candidate it is a prefix of, else the nearest within a small edit
// distance (one edit for words of up to four letters, two for longer
// ones; a swap of two neighbours is one edit). It reports false when no
// candidate is near enough, or two are equally near.
func suggest(word string, candidates []string) (string, bool) {
	if word == "" {
		return "", false
	}
	var prefixed []string
	for _, c := range candidates {
		if len(c) > len(word) && c[:len(word)] == word {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 && len(word) >= 2 {
		return prefixed[0], true
	}
	limit := 2
	if len(word) <= 4 {
		limit = 1
	}
	best, bestDist, ties := "", limit+1, 0
	for _, c := range candidates {
		d := editDistance(word, c)
		switch {
		case d < bestDist:
			best, bestDist, ties = c, d, 0
		case d == bestDist:
			ties++
		}
	}
	if bestDist > limit || ties > 0 || best == word {
		return "", false
	}
	return best, true
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbouring bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
