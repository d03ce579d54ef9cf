package cost

import (
	"context"
	"errors"
	"sync"

	"github.com/ctxls/ctxls/providers/context/library"
)

// cacheEntries bounds the summaries a Cache keeps; past it the cache
// starts again empty. Each summary is bounded by its limit.
const cacheEntries = 64

// A Cache keeps the summaries of documents for one generation of a
// library (its Version) and shares each computation among the requests
// that want it at the same time. A Cache is safe for concurrent use; its
// zero value is not, use NewCache.
type Cache struct {
	limit int

	mu      sync.Mutex
	lib     *library.Library
	version uint64
	calls   map[cacheKey]*call
}

// cacheKey names one document as priced: its path and a hash of its text,
// so that an open document edited and undone finds its summary again.
type cacheKey struct {
	path string
	text uint64
}

// call is one computation of a summary, done when done is closed.
type call struct {
	done chan struct{}
	s    *Summary
	err  error
}

// NewCache returns a cache whose summaries list at most limit items and
// keys.
func NewCache(limit int) *Cache {
	return &Cache{limit: limit}
}

// Summary returns the summary of f priced against lib, computing it once
// per library generation and document text. The summary is shared by
// every caller that asks for it: callers must not change it. Concurrent callers wait for
// the one computation; a caller whose ctx is done stops waiting, and a
// computation stopped by its caller's ctx is started again by the next
// caller.
func (c *Cache) Summary(ctx context.Context, lib *library.Library, f *library.File) (*Summary, error) {
	k := cacheKey{path: f.Path}
	if f.Doc != nil {
		k.text = f.Doc.Fingerprint()
	}
	version := lib.Version()
	for {
		cl, mine := c.call(lib, version, k)
		if mine {
			cl.s, cl.err = summarize(ctx, lib, f, c.limit)
			if cl.err != nil {
				c.forget(k, cl)
			}
			close(cl.done)
			return cl.s, cl.err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-cl.done:
		}
		if cl.err == nil {
			return cl.s, nil
		}
		if !errors.Is(cl.err, context.Canceled) && !errors.Is(cl.err, context.DeadlineExceeded) {
			return nil, cl.err
		}
		// The caller that computed gave up; try again with this ctx.
	}
}

// call returns the computation for k in the library's generation, and
// whether the caller is to run it.
func (c *Cache) call(lib *library.Library, version uint64, k cacheKey) (*call, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lib != lib || c.version != version || len(c.calls) >= cacheEntries {
		c.lib, c.version, c.calls = lib, version, map[cacheKey]*call{}
	}
	if cl, ok := c.calls[k]; ok {
		return cl, false
	}
	cl := &call{done: make(chan struct{})}
	c.calls[k] = cl
	return cl, true
}

// forget drops a failed computation so that the next caller runs its own.
func (c *Cache) forget(k cacheKey, cl *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[k] == cl {
		delete(c.calls, k)
	}
}
