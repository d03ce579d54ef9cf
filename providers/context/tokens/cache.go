package tokens

import (
	"hash/maphash"
	"sync/atomic"
)

// maxCachedPiece is the longest piece, in bytes, that the cache holds, so
// that a byte holds a token offset. Longer pieces are rare and seldom
// repeat; markdown table rules, which do, are shorter.
const maxCachedPiece = 255

// cacheSlots is the number of entries a pieceCache holds at most.
const cacheSlots = 1 << 17

// pieceCache maps pieces to their token offsets. It is a two-way
// set-associative table of atomic pointers: lookups take no lock and write
// nothing, so goroutines on different cores share hot entries without
// contention, and its size is fixed. A miss overwrites a slot; a racing
// writer may lose an entry, which costs only a recomputation.
type pieceCache struct {
	seed  maphash.Seed
	slots [cacheSlots]atomic.Pointer[cacheEntry]
}

// cacheEntry holds a piece and the byte offsets, within it, at which its
// tokens after the first start: one byte per offset, so a piece has
// len(starts)+1 tokens.
type cacheEntry struct {
	piece  string
	starts string
}

func newPieceCache() *pieceCache { return &pieceCache{seed: maphash.MakeSeed()} }

// get returns the entry for piece and the hash to pass to put on a miss.
func (c *pieceCache) get(piece string) (*cacheEntry, uint64) {
	h := maphash.String(c.seed, piece)
	i := h & (cacheSlots - 1)
	if e := c.slots[i].Load(); e != nil && e.piece == piece {
		return e, h
	}
	if e := c.slots[i^1].Load(); e != nil && e.piece == piece {
		return e, h
	}
	return nil, h
}

// put stores e, whose piece has hash h, in an empty slot of its set or else
// in the one a hash bit picks, so that neither way always loses.
func (c *pieceCache) put(h uint64, e *cacheEntry) {
	i := h & (cacheSlots - 1)
	switch {
	case c.slots[i].Load() == nil:
	case c.slots[i^1].Load() == nil:
		i ^= 1
	default:
		i ^= (h >> 32) & 1
	}
	c.slots[i].Store(e)
}
