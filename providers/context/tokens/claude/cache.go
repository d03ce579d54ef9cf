package claude

import (
	"encoding/binary"
	"hash/maphash"
	"math/rand/v2"
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

// smallChunk is the longest chunk, in bytes, a smallCache holds.
const smallChunk = 16

// smallSlots is the number of entries of a smallCache.
const smallSlots = 1 << 15

// smallCache maps the short chunks that make up most of a text to their
// tiling cost, each held in its slot as two words, with no pointer to
// follow and no string to compare. A slot is a sequence lock: a writer
// makes its version odd while it fills the slot, and a reader that sees
// an odd or changed version misses. Two writers of one slot never mix
// their words: the second finds the version odd and stores nothing.
type smallCache struct {
	seed  uint64
	slots [smallSlots]smallSlot
}

type smallSlot struct {
	ver    atomic.Uint32
	meta   atomic.Uint32 // the chunk's length << 8 | its cost; 0 when empty
	k0, k1 atomic.Uint64
}

func newSmallCache() *smallCache { return &smallCache{seed: rand.Uint64()} }

// smallKey packs a chunk of at most 16 bytes into two words: with its
// length, its first eight bytes and its last eight (or all its bytes)
// spell it.
func smallKey(chunk []byte) (k0, k1 uint64) {
	if n := len(chunk); n >= 8 {
		return binary.LittleEndian.Uint64(chunk), binary.LittleEndian.Uint64(chunk[n-8:])
	}
	for i := len(chunk) - 1; i >= 0; i-- {
		k0 = k0<<8 | uint64(chunk[i])
	}
	return k0, 0
}

func (c *smallCache) slot(k0, k1 uint64) *smallSlot {
	h := (k0^c.seed)*0x9E3779B97F4A7C15 ^ k1*0xC2B2AE3D27D4EB4F
	h ^= h >> 31
	h *= 0xD6E8FEB86659FD93
	return &c.slots[h>>(64-15)]
}

func (c *smallCache) get(chunk []byte) (int, bool) {
	k0, k1 := smallKey(chunk)
	s := c.slot(k0, k1)
	v := s.ver.Load()
	m, a, b := s.meta.Load(), s.k0.Load(), s.k1.Load()
	if v&1 != 0 || s.ver.Load() != v || m>>8 != uint32(len(chunk)) || a != k0 || b != k1 {
		return 0, false
	}
	return int(m & 0xFF), true
}

func (c *smallCache) put(chunk []byte, cost int) {
	k0, k1 := smallKey(chunk)
	s := c.slot(k0, k1)
	v := s.ver.Load()
	if v&1 != 0 || !s.ver.CompareAndSwap(v, v+1) {
		return
	}
	s.meta.Store(uint32(len(chunk))<<8 | uint32(cost))
	s.k0.Store(k0)
	s.k1.Store(k1)
	s.ver.Store(v + 2)
}
