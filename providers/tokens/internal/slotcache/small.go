package slotcache

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
)

// SmallKey is the longest key, in bytes, a Small holds.
const SmallKey = 16

// Small maps keys of at most SmallKey bytes to values under 256, each
// held in its slot as two words, with no pointer to follow and no string
// to compare: for the short pieces that make up most of a text. It is
// direct-mapped and of fixed size. A slot is a sequence lock: a writer
// makes its version odd while it fills the slot, and a reader that sees
// an odd or changed version misses. Two writers of one slot never mix
// their words: the second finds the version odd and stores nothing. It is
// safe for concurrent use.
type Small struct {
	seed  uint64
	shift uint
	slots []smallSlot
}

type smallSlot struct {
	ver    atomic.Uint32
	meta   atomic.Uint32 // the key's length << 8 | its value; 0 when empty
	k0, k1 atomic.Uint64
}

// NewSmall returns a Small of slots entries, a power of two.
func NewSmall(slots int) *Small {
	if slots < 2 || slots&(slots-1) != 0 {
		panic("slotcache: slots must be a power of two of at least 2")
	}
	return &Small{seed: rand.Uint64(), shift: uint(64 - bits.TrailingZeros(uint(slots))), slots: make([]smallSlot, slots)}
}

// smallKey packs a key of at most 16 bytes into two words: with its
// length, its first eight bytes and its last eight (or all its bytes)
// spell it.
func smallKey(key []byte) (k0, k1 uint64) {
	if n := len(key); n >= 8 {
		return binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[n-8:])
	}
	for i := len(key) - 1; i >= 0; i-- {
		k0 = k0<<8 | uint64(key[i])
	}
	return k0, 0
}

func (c *Small) slot(k0, k1 uint64) *smallSlot {
	h := (k0^c.seed)*0x9E3779B97F4A7C15 ^ k1*0xC2B2AE3D27D4EB4F
	h ^= h >> 31
	h *= 0xD6E8FEB86659FD93
	return &c.slots[h>>c.shift]
}

// Get returns the value of key, of at most SmallKey bytes, and whether
// it is there.
func (c *Small) Get(key []byte) (int, bool) {
	if len(key) == 0 || len(key) > SmallKey {
		return 0, false
	}
	k0, k1 := smallKey(key)
	s := c.slot(k0, k1)
	v := s.ver.Load()
	m, a, b := s.meta.Load(), s.k0.Load(), s.k1.Load()
	if v&1 != 0 || s.ver.Load() != v || m>>8 != uint32(len(key)) || a != k0 || b != k1 {
		return 0, false
	}
	return int(m & 0xFF), true
}

// Put stores the value, under 256, of key, of at most SmallKey bytes.
func (c *Small) Put(key []byte, val int) {
	if len(key) == 0 || len(key) > SmallKey || val < 0 || val > 0xFF {
		return
	}
	k0, k1 := smallKey(key)
	s := c.slot(k0, k1)
	v := s.ver.Load()
	if v&1 != 0 || !s.ver.CompareAndSwap(v, v+1) {
		return
	}
	s.meta.Store(uint32(len(key))<<8 | uint32(val))
	s.k0.Store(k0)
	s.k1.Store(k1)
	s.ver.Store(v + 2)
}
