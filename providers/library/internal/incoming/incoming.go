// Package incoming is the index of incoming references of a library: for
// the key of each target, the files that refer to it.
package incoming

import (
	"iter"
	"math/bits"
	"slices"
	"sync"

	"github.com/ctxls/ctxls/providers/library/internal/cowmap"
)

// Index maps the key of a target ("domain/topic", "@domain",
// "*/stem") to the files that refer to it. The sets are in the shards of
// a cowmap.Map: an edit copies the few shards whose keys it files or unfiles
// rather than the index of every target. A set holds numbers of files
// rather than their paths, for the hundreds of thousands of (key, file)
// pairs of a large library, and files keep the numbers of their keys;
// the numbers come from tables that the forks of an index share.
type Index struct {
	m     cowmap.Map[*fileSet]
	keys  *nameTable
	files *nameTable
}

// New returns an empty index sized for about n keys.
func New(n int) Index {
	return Index{cowmap.New[*fileSet](n), &nameTable{}, &nameTable{}}
}

// Fork returns a copy of ix that shares its sets until it changes them.
func (ix *Index) Fork() Index {
	return Index{ix.m.Fork(), ix.keys, ix.files}
}

// KeyIDs returns the numbers of keys, numbering those new to the index.
// It is safe to call from several goroutines.
func (ix *Index) KeyIDs(keys []string) []uint32 {
	ids := make([]uint32, len(keys))
	for i, k := range keys {
		ids[i] = ix.keys.id(k)
	}
	return ids
}

// KeyNames returns the keys numbered ids.
func (ix *Index) KeyNames(ids []uint32) []string {
	names := ix.keys.all()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = names[id]
	}
	return out
}

// shard returns the shard of key k for a change, copied first unless ix
// owns it.
func (ix *Index) shard(k string) map[string]*fileSet {
	return ix.m.Writable(cowmap.ShardOf(k))
}

// Own copies the set under key k, which ix may share with the index it
// was forked from, into ix's own shard before it changes.
func (ix *Index) Own(k string) {
	sh := ix.shard(k)
	if s := sh[k]; s != nil {
		sh[k] = s.clone()
	}
}

// Keys yields every key with a set, in no particular order.
func (ix *Index) Keys() iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range ix.m.All() {
			if !yield(k) {
				return
			}
		}
	}
}

// Add files the path p under key k and returns the index's copy of k.
func (ix *Index) Add(k, p string) string {
	return ix.AddID(ix.keys.id(k), p)
}

// AddID files the path p under the key numbered k and returns the key.
func (ix *Index) AddID(id uint32, p string) string {
	k := ix.keys.all()[id]
	sh := ix.shard(k)
	s := sh[k]
	if s == nil {
		s = &fileSet{key: k}
		sh[k] = s
	}
	s.add(ix.files.id(p), ix.files.len())
	return s.key
}

// Remove takes the path p out of the set under key k.
func (ix *Index) Remove(k, p string) {
	s := ix.shard(k)[k]
	if s == nil {
		return
	}
	if f, ok := ix.files.lookup(p); ok {
		s.remove(f)
	}
}

// Paths returns the paths filed under key k, in no particular order.
func (ix *Index) Paths(k string) iter.Seq[string] {
	return func(yield func(string) bool) {
		s, _ := ix.m.Lookup(k)
		if s == nil {
			return
		}
		names := ix.files.all()
		for f := range s.all() {
			if !yield(names[f]) {
				return
			}
		}
	}
}

// nameTable numbers strings: the first string it is given is 0, the next
// new one 1, and so on. Numbers are never reused, so that a set holding a
// number always means the same string, in every snapshot; a path that
// goes away keeps its number (a few bytes) until the next full index
// builds a new table.
type nameTable struct {
	mu    sync.RWMutex
	ids   map[string]uint32
	names []string
}

// id returns the number of s, giving it the next one if it has none.
func (t *nameTable) id(s string) uint32 {
	if id, ok := t.lookup(s); ok {
		return id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ids == nil {
		t.ids = map[string]uint32{}
	} else if id, ok := t.ids[s]; ok {
		return id
	}
	id := uint32(len(t.names))
	t.ids[s] = id
	t.names = append(t.names, s)
	return id
}

func (t *nameTable) lookup(s string) (uint32, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	id, ok := t.ids[s]
	return id, ok
}

// all returns the strings by number. Numbers given later are past its end;
// the strings it holds never change.
func (t *nameTable) all() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.names
}

func (t *nameTable) len() int { return len(t.all()) }

// fileSet is a set of file numbers: a list while that is smaller than a
// bit per file of the library, as for most keys (the files naming one
// topic), a bitset once larger (those naming a domain).
type fileSet struct {
	// key is the index's copy of its key.
	key  string
	list []uint32
	bits []uint64
}

// MinBitset is the size below which a set stays a list whatever the
// number of files.
const MinBitset = 32

func (s *fileSet) add(f uint32, files int) {
	if s.bits != nil {
		s.setBit(f)
		return
	}
	if slices.Contains(s.list, f) {
		return
	}
	// A list costs 32 bits a file, a bitset one bit for every file.
	if len(s.list) < MinBitset || 32*(len(s.list)+1) <= files {
		s.list = append(s.list, f)
		return
	}
	s.bits = make([]uint64, (files+63)/64)
	for _, g := range s.list {
		s.setBit(g)
	}
	s.setBit(f)
	s.list = nil
}

func (s *fileSet) setBit(f uint32) {
	w := int(f / 64)
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, w+1-len(s.bits))...)
	}
	s.bits[w] |= 1 << (f % 64)
}

func (s *fileSet) remove(f uint32) {
	if s.bits != nil {
		if w := int(f / 64); w < len(s.bits) {
			s.bits[w] &^= 1 << (f % 64)
		}
		return
	}
	if i := slices.Index(s.list, f); i >= 0 {
		s.list = slices.Delete(s.list, i, i+1)
	}
}

// clone returns a copy of s that shares nothing it may change.
func (s *fileSet) clone() *fileSet {
	return &fileSet{key: s.key, list: slices.Clone(s.list), bits: slices.Clone(s.bits)}
}

// all returns the numbers in the set.
func (s *fileSet) all() iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		if s.bits == nil {
			for _, f := range s.list {
				if !yield(f) {
					return
				}
			}
			return
		}
		for w, word := range s.bits {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				if !yield(uint32(w*64 + b)) {
					return
				}
				word &^= 1 << b
			}
		}
	}
}
