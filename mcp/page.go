package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
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

// answerCache keeps the answers computed for one version of the
// workspace, keyed by their filters, so that asking again or paging
// through a long answer costs a lookup. An answer of an older version is
// never returned: the first put of a newer version drops them all. Calls
// that ask for an answer being computed wait for it rather than compute
// it again, as a call does while the server computes the answer ahead.
type answerCache[V any] struct {
	mu      sync.Mutex
	gen     uint64
	m       map[string]V
	flights map[flightKey]*flight[V]
}

type flightKey struct {
	gen uint64
	key string
}

// flight is an answer being computed; v and err are set before done is
// closed.
type flight[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// get returns the answer kept for key at version gen.
func (c *answerCache[V]) get(gen uint64, key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookup(gen, key)
}

func (c *answerCache[V]) lookup(gen uint64, key string) (V, bool) {
	v, ok := c.m[key]
	if !ok || c.gen != gen {
		var zero V
		return zero, false
	}
	return v, true
}

// store keeps the answer computed for key at version gen, unless a newer
// version's answers are kept already. c.mu is held.
func (c *answerCache[V]) store(gen uint64, key string, v V) {
	if gen < c.gen {
		return
	}
	if gen > c.gen || c.m == nil || len(c.m) >= maxCachedAnswers {
		c.gen, c.m = gen, make(map[string]V)
	}
	c.m[key] = v
}

// do returns the answer for key at version gen: the one kept, the one
// another call is computing, or what compute returns, kept when it is no
// error. When the call it waits for fails (its context ended) it computes
// the answer itself.
func (c *answerCache[V]) do(ctx context.Context, gen uint64, key string, compute func(context.Context) (V, error)) (V, error) {
	fk := flightKey{gen, key}
	for {
		c.mu.Lock()
		if v, ok := c.lookup(gen, key); ok {
			c.mu.Unlock()
			return v, nil
		}
		f, waiting := c.flights[fk]
		if !waiting {
			break // with the lock held
		}
		c.mu.Unlock()
		select {
		case <-f.done:
			if f.err == nil {
				return f.v, nil
			}
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	f := &flight[V]{done: make(chan struct{})}
	if c.flights == nil {
		c.flights = make(map[flightKey]*flight[V])
	}
	c.flights[fk] = f
	c.mu.Unlock()

	f.v, f.err = compute(ctx)
	c.mu.Lock()
	delete(c.flights, fk)
	if f.err == nil {
		c.store(gen, key, f.v)
	}
	c.mu.Unlock()
	close(f.done)
	return f.v, f.err
}
