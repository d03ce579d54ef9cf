package present

import (
	"fmt"
	"strings"
)

// EntryName is how anything an agent loads is listed among workspace
// symbols: what it is called by, its title and its measured cost.
func EntryName(ref, title string, tokens int) string {
	return fmt.Sprintf("%s — %s · %s", ref, title, Tokens(tokens))
}

// MatchScore scores what an agent loads against a lower-case query by the
// name it is called by, the key or path it is referred to by, its title
// and its tags: a prefix of the name beats a substring of the key, which
// beats a substring of the title, which beats a subsequence of the key or
// a substring of a tag. The empty query matches everything.
func MatchScore(q, name, key, title string, tags []string) (int, bool) {
	if q == "" {
		return 0, true
	}
	k := strings.ToLower(key)
	switch {
	case strings.HasPrefix(strings.ToLower(name), q):
		return 4, true
	case strings.Contains(k, q):
		return 3, true
	case strings.Contains(strings.ToLower(title), q):
		return 2, true
	case subsequence(q, k):
		return 1, true
	}
	for _, tag := range tags {
		if strings.Contains(strings.ToLower(tag), q) {
			return 1, true
		}
	}
	return 0, false
}

// subsequence reports whether every byte of q occurs in s in order.
func subsequence(q, s string) bool {
	i := 0
	for j := 0; j < len(s) && i < len(q); j++ {
		if s[j] == q[i] {
			i++
		}
	}
	return i == len(q)
}
