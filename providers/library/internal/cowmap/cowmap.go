// Package cowmap provides a copy-on-write map from strings, split into
// shards, that one snapshot of a model shares with the next.
package cowmap

import (
	"hash/maphash"
	"iter"
)

// Map is a map from strings that one snapshot of the model shares with
// the next. It is split into shards, and a fork copies only the shards it
// changes: one edit in a library of ten thousand files copies a few
// hundred entries rather than every map of the model.
type Map[V any] struct {
	shards *[numShards]map[string]V
	// owned marks the shards this map may change in place; the others
	// are shared with the map it was forked from.
	owned *[numShards]bool
	n     int
}

// numShards is the number of shards of a map.
const numShards = 64

// cowSeed spreads keys over the shards; it is set once.
var cowSeed = maphash.MakeSeed()

// New returns an empty map sized for about n entries.
func New[V any](n int) Map[V] {
	m := Map[V]{shards: new([numShards]map[string]V), owned: new([numShards]bool)}
	for i := range m.shards {
		m.shards[i] = make(map[string]V, n/numShards)
		m.owned[i] = true
	}
	return m
}

// Fork returns a copy of m that shares its shards until it changes them.
// m must not change afterwards.
func (m *Map[V]) Fork() Map[V] {
	if m.shards == nil {
		return New[V](0)
	}
	shards := *m.shards
	return Map[V]{shards: &shards, owned: new([numShards]bool), n: m.n}
}

// ShardOf returns the shard that holds key k.
func ShardOf(k string) int { return int(maphash.String(cowSeed, k) % numShards) }

// Get returns the value under k, or the zero value.
func (m *Map[V]) Get(k string) V {
	v, _ := m.Lookup(k)
	return v
}

// Lookup returns the value under k and whether there is one.
func (m *Map[V]) Lookup(k string) (V, bool) {
	if m.shards == nil {
		var zero V
		return zero, false
	}
	v, ok := m.shards[ShardOf(k)][k]
	return v, ok
}

// Writable returns shard i, copied first unless m owns it.
func (m *Map[V]) Writable(i int) map[string]V {
	if m.shards == nil {
		*m = New[V](0)
	}
	if !m.owned[i] {
		s := make(map[string]V, len(m.shards[i])+1)
		for k, v := range m.shards[i] {
			s[k] = v
		}
		m.shards[i], m.owned[i] = s, true
	}
	return m.shards[i]
}

// Set stores v under k, copying k's shard first unless m owns it.
func (m *Map[V]) Set(k string, v V) {
	s := m.Writable(ShardOf(k))
	if _, ok := s[k]; !ok {
		m.n++
	}
	s[k] = v
}

// Delete removes the value under k, if any.
func (m *Map[V]) Delete(k string) {
	if _, ok := m.Lookup(k); !ok {
		return
	}
	delete(m.Writable(ShardOf(k)), k)
	m.n--
}

// Len returns the number of entries.
func (m *Map[V]) Len() int { return m.n }

// All yields every entry, in no particular order.
func (m *Map[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.shards == nil {
			return
		}
		for _, s := range m.shards {
			for k, v := range s {
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// Values yields every value, in no particular order.
func (m *Map[V]) Values() iter.Seq[V] {
	return func(yield func(V) bool) {
		for _, v := range m.All() {
			if !yield(v) {
				return
			}
		}
	}
}
