package mcp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/providers/memo"
)

// Page sizes of the tools that answer with lists. An agent reads the
// answer into its context window: a page of 100 entries costs a few
// thousand tokens, where the catalog of a library of 10,000 topics would
// cost hundreds of thousands.
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

// pageOf returns the bounds [lo, hi) of the page of n items that limit
// and cursor select, and the cursor of the next page, empty on the last.
// A limit of zero means defaultPageSize; above maxPageSize it is
// maxPageSize. A cursor is one a previous answer returned: the offset of
// its page's first item, so that a page asked again after the library
// changed starts at the same place in the new list.
func pageOf(n, limit int, cursor string) (lo, hi int, next string, err error) {
	switch {
	case limit < 0:
		return 0, 0, "", fmt.Errorf("limit %d: want a positive number of entries, or none for %d", limit, defaultPageSize)
	case limit == 0:
		limit = defaultPageSize
	case limit > maxPageSize:
		limit = maxPageSize
	}
	if c := strings.TrimSpace(cursor); c != "" {
		lo, err = strconv.Atoi(c)
		if err != nil || lo < 0 {
			return 0, 0, "", fmt.Errorf("cursor %q is not one an earlier answer gave: pass its nextCursor unchanged, or none for the first page", cursor)
		}
	}
	lo = min(lo, n)
	hi = min(n, lo+limit)
	if hi < n {
		next = strconv.Itoa(hi)
	}
	return lo, hi, next, nil
}

// pageNote says which items of n a page holds and how to get the next.
func pageNote(lo, hi, n int, next string) string {
	if lo == 0 && hi == n {
		return ""
	}
	if hi == lo {
		return fmt.Sprintf("; none past %d", lo)
	}
	note := fmt.Sprintf("; %d to %d below", lo+1, hi)
	if next != "" {
		note += fmt.Sprintf(", the next page with cursor %q", next)
	}
	return note
}

// maxCachedAnswers bounds the answers kept for one version of the
// workspace: one per distinct filter asked, so that a client that asks
// for many folders in turn keeps the memory bounded (a whole check of
// 10,000 topics holds about 10,000 diagnostics).
const maxCachedAnswers = 8

// newAnswerCache returns a cache of the answers computed for one version
// of the workspace, keyed by their filters, so that asking again or
// paging through a long answer costs a lookup. An answer computed for an
// older version than the kept ones is not kept. Calls that ask for an
// answer being computed wait for it rather than compute it again, as a
// call does while the server computes the answer ahead.
func newAnswerCache[V any]() *memo.Cache[uint64, string, V] {
	return memo.New[uint64, string, V](maxCachedAnswers, func(a, b uint64) bool { return a < b })
}
