package claude

import (
	"hash/maphash"
	"sync/atomic"
)

// maxCachedChunk is the longest chunk, in bytes, the cache holds; longer
// ones seldom repeat.
const maxCachedChunk = 128

// cacheSlots is the number of entries a chunkCache holds at most.
const cacheSlots = 1 << 16

// chunkCache maps chunks of the marked stream to their tiling cost. It is
// a two-way set-associative table of atomic pointers: lookups take no
// lock, and its size is fixed. A racing writer may lose an entry, which
// costs only a recomputation.
type chunkCache struct {
	seed  maphash.Seed
	slots [cacheSlots]atomic.Pointer[cacheEntry]
}

type cacheEntry struct {
	chunk string
	cost  int
}

func newChunkCache() *chunkCache { return &chunkCache{seed: maphash.MakeSeed()} }

func (c *chunkCache) get(chunk []byte) (int, bool) {
	h := maphash.Bytes(c.seed, chunk)
	i := h & (cacheSlots - 1)
	if e := c.slots[i].Load(); e != nil && e.chunk == string(chunk) {
		return e.cost, true
	}
	if e := c.slots[i^1].Load(); e != nil && e.chunk == string(chunk) {
		return e.cost, true
	}
	return 0, false
}

func (c *chunkCache) put(chunk string, cost int) {
	h := maphash.String(c.seed, chunk)
	i := h & (cacheSlots - 1)
	switch {
	case c.slots[i].Load() == nil:
	case c.slots[i^1].Load() == nil:
		i ^= 1
	default:
		i ^= (h >> 32) & 1
	}
	c.slots[i].Store(&cacheEntry{chunk: chunk, cost: cost})
}
