package refcost

import (
	"context"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/memo"
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
	calls *memo.Cache[generation, cacheKey, *Summary]
}

// generation is one library at one Version.
type generation struct {
	lib     *library.Snapshot
	version uint64
}

// cacheKey names one document as priced: its path and a hash of its text,
// so that an open document edited and undone finds its summary again.
type cacheKey struct {
	path string
	text uint64
}

// NewCache returns a cache whose summaries list at most limit items and
// keys.
func NewCache(limit int) *Cache {
	return &Cache{limit: limit, calls: memo.New[generation, cacheKey, *Summary](cacheEntries, nil)}
}

// Summary returns the summary of f priced against lib, computing it once
// per library generation and document text. The summary is shared by
// every caller that asks for it: callers must not change it. Concurrent
// callers wait for the one computation; a caller whose ctx is done stops
// waiting, and a computation stopped by its caller's ctx is started again
// by the next caller.
func (c *Cache) Summary(ctx context.Context, lib *library.Snapshot, f *library.File) (*Summary, error) {
	k := cacheKey{path: f.Path}
	if f.Doc != nil {
		k.text = f.Doc.Fingerprint()
	}
	return c.calls.Do(ctx, generation{lib, lib.Version()}, k, func(ctx context.Context) (*Summary, error) {
		return summarize(ctx, lib, f, c.limit)
	})
}
