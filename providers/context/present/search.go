package present

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/providers/context/library"
)

// Search returns up to limit topics whose key, title or tags match query
// (all its characters in order, ignoring case), best matches first and
// otherwise in the order given. The empty query matches every topic. It
// stops with the context's error when ctx ends.
func Search(ctx context.Context, topics []*library.Topic, query string, limit int) ([]*library.Topic, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	type hit struct {
		t     *library.Topic
		score int
	}
	var hits []hit
	for _, t := range topics {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		score, ok := matchScore(q, t)
		if ok {
			hits = append(hits, hit{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]*library.Topic, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out, nil
}

// SymbolName is how a topic is listed among workspace symbols: its key,
// title and measured cost.
func SymbolName(t *library.Topic) string {
	return fmt.Sprintf("%s — %s · %s", Key(t), Title(t), Tokens(t.Tokens))
}

// matchScore scores a topic against a lower-case query: a prefix of the
// name beats a substring of the key, which beats a substring of the
// title, which beats a subsequence of the key or a substring of a tag.
// The empty query matches everything.
func matchScore(q string, t *library.Topic) (int, bool) {
	if q == "" {
		return 0, true
	}
	k := strings.ToLower(Key(t))
	name := strings.ToLower(t.Name)
	switch {
	case strings.HasPrefix(name, q):
		return 4, true
	case strings.Contains(k, q):
		return 3, true
	case strings.Contains(strings.ToLower(t.Meta.Title), q):
		return 2, true
	case subsequence(q, k):
		return 1, true
	}
	for _, tag := range t.Meta.Tags {
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
