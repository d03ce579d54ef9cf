package library

import (
	"iter"
	"math/bits"
	"slices"
	"sync"
)

// incomingIndex maps the key of a target ("domain/topic", "@domain",
// "*/stem") to the files that refer to it. Keys and file paths are
// numbered once, in tables of the index: a file's keys and a key's files
// are lists of small numbers rather than of strings, for the hundreds of
// thousands of (key, file) pairs of a large library.
type incomingIndex struct {
	keys  *nameTable
	files *nameTable
	sets  map[uint32]*fileSet // key id → files
}

func newIncoming(hint int) *incomingIndex {
	return &incomingIndex{keys: &nameTable{}, files: &nameTable{}, sets: make(map[uint32]*fileSet, hint)}
}

// add files the path p under key k and returns the id of k.
func (ix *incomingIndex) add(k, p string) uint32 {
	id := ix.keys.id(k)
	ix.addID(id, p)
	return id
}

// addID files the path p under the key with id k.
func (ix *incomingIndex) addID(k uint32, p string) {
	s := ix.sets[k]
	if s == nil {
		s = &fileSet{}
		ix.sets[k] = s
	}
	s.add(ix.files.id(p), ix.files.len())
}

// keyIDs returns the ids of keys, numbering those new to the index. It
// is safe to call from several goroutines.
func (ix *incomingIndex) keyIDs(keys []string) []uint32 {
	ids := make([]uint32, len(keys))
	for i, k := range keys {
		ids[i] = ix.keys.id(k)
	}
	return ids
}

// keyID returns the id of key k, false when no file was ever filed under
// it.
func (ix *incomingIndex) keyID(k string) (uint32, bool) { return ix.keys.lookup(k) }

// remove takes the path p out of the set of the key with id k.
func (ix *incomingIndex) remove(k uint32, p string) {
	s := ix.sets[k]
	if s == nil {
		return
	}
	if f, ok := ix.files.lookup(p); ok {
		s.remove(f)
	}
}

// paths returns the paths filed under key k, in no particular order.
func (ix *incomingIndex) paths(k string) iter.Seq[string] {
	return func(yield func(string) bool) {
		id, ok := ix.keys.lookup(k)
		if !ok || ix.sets[id] == nil {
			return
		}
		names := ix.files.all()
		for f := range ix.sets[id].all() {
			if !yield(names[f]) {
				return
			}
		}
	}
}

// nameTable numbers strings: the first string it is given is 0, the next
// new one 1, and so on. Numbers are never reused, so that a set holding a
// number always means the same string; a path that goes away keeps its
// number (a few bytes) until the next full index builds new tables.
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
	if id, ok := t.ids[s]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = map[string]uint32{}
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

func (t *nameTable) len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.names)
}

// fileSet is a set of file ids: a list while that is smaller than a bit
// per file of the library, as for most keys (the files naming one topic),
// a bitset once larger (those naming a domain).
type fileSet struct {
	list []uint32
	bits []uint64
}

// minBitset is the size below which a set stays a list whatever the
// number of files.
const minBitset = 32

func (s *fileSet) add(f uint32, files int) {
	if s.bits != nil {
		s.setBit(f)
		return
	}
	if slices.Contains(s.list, f) {
		return
	}
	// A list costs 32 bits a file, a bitset one bit for every file.
	if len(s.list) < minBitset || 32*(len(s.list)+1) <= files {
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

// all returns the ids in the set.
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
