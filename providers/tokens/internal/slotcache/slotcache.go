// Package slotcache is the fixed-size cache the tokenizers keep their
// counts of repeated pieces of text in.
package slotcache

import (
	"hash/maphash"
	"sync/atomic"
)

// Cache maps strings to values. It is a two-way set-associative table of
// atomic pointers: lookups take no lock and write nothing, so goroutines
// on different cores share hot entries without contention, and its size
// is fixed. A miss overwrites a slot; a racing writer may lose an entry,
// which costs only a recomputation. It is safe for concurrent use.
type Cache[V any] struct {
	seed  maphash.Seed
	slots []atomic.Pointer[entry[V]]
}

type entry[V any] struct {
	key string
	val V
}

// New returns a cache of slots entries, a power of two.
func New[V any](slots int) *Cache[V] {
	if slots < 2 || slots&(slots-1) != 0 {
		panic("slotcache: slots must be a power of two of at least 2")
	}
	return &Cache[V]{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[entry[V]], slots)}
}

// Get returns the value of key and whether it is there, and the hash to
// pass to Put on a miss.
func (c *Cache[V]) Get(key string) (V, uint64, bool) {
	h := maphash.String(c.seed, key)
	v, ok := c.lookup(h, key)
	return v, h, ok
}

// GetBytes is Get of a key held in bytes.
func (c *Cache[V]) GetBytes(key []byte) (V, uint64, bool) {
	h := maphash.Bytes(c.seed, key)
	i := h & uint64(len(c.slots)-1)
	// Compared in place: a conversion passed on would copy the key.
	if e := c.slots[i].Load(); e != nil && e.key == string(key) {
		return e.val, h, true
	}
	if e := c.slots[i^1].Load(); e != nil && e.key == string(key) {
		return e.val, h, true
	}
	var zero V
	return zero, h, false
}

func (c *Cache[V]) lookup(h uint64, key string) (V, bool) {
	i := h & uint64(len(c.slots)-1)
	if e := c.slots[i].Load(); e != nil && e.key == key {
		return e.val, true
	}
	if e := c.slots[i^1].Load(); e != nil && e.key == key {
		return e.val, true
	}
	var zero V
	return zero, false
}

// Put stores the value of key, whose hash Get returned, in an empty slot
// of its set or else in the one a hash bit picks, so that neither way
// always loses. The cache keeps key: pass one that holds no larger text.
func (c *Cache[V]) Put(h uint64, key string, v V) {
	i := h & uint64(len(c.slots)-1)
	switch {
	case c.slots[i].Load() == nil:
	case c.slots[i^1].Load() == nil:
		i ^= 1
	default:
		i ^= (h >> 32) & 1
	}
	c.slots[i].Store(&entry[V]{key: key, val: v})
}
