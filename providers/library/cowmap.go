package library

import (
	"hash/maphash"
	"iter"
)

// cowMap is a map from strings that one snapshot of the model shares with
// the next. It is split into shards, and a fork copies only the shards it
// changes: one edit in a library of ten thousand files copies a few
// hundred entries rather than every map of the model.
type cowMap[V any] struct {
	shards *[cowShards]map[string]V
	// owned marks the shards this map may change in place; the others
	// are shared with the map it was forked from.
	owned *[cowShards]bool
	n     int
}

const cowShards = 64

// cowSeed spreads keys over the shards; it is set once.
var cowSeed = maphash.MakeSeed()

// newCowMap returns an empty map sized for about n entries.
func newCowMap[V any](n int) cowMap[V] {
	m := cowMap[V]{shards: new([cowShards]map[string]V), owned: new([cowShards]bool)}
	for i := range m.shards {
		m.shards[i] = make(map[string]V, n/cowShards)
		m.owned[i] = true
	}
	return m
}

// fork returns a copy of m that shares its shards until it changes them.
// m must not change afterwards.
func (m *cowMap[V]) fork() cowMap[V] {
	if m.shards == nil {
		return newCowMap[V](0)
	}
	shards := *m.shards
	return cowMap[V]{shards: &shards, owned: new([cowShards]bool), n: m.n}
}

func shardOf(k string) int { return int(maphash.String(cowSeed, k) % cowShards) }

// get returns the value under k, or the zero value.
func (m *cowMap[V]) get(k string) V {
	v, _ := m.lookup(k)
	return v
}

func (m *cowMap[V]) lookup(k string) (V, bool) {
	if m.shards == nil {
		var zero V
		return zero, false
	}
	v, ok := m.shards[shardOf(k)][k]
	return v, ok
}

// writable returns shard i, copied first unless m owns it.
func (m *cowMap[V]) writable(i int) map[string]V {
	if m.shards == nil {
		*m = newCowMap[V](0)
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

func (m *cowMap[V]) set(k string, v V) {
	s := m.writable(shardOf(k))
	if _, ok := s[k]; !ok {
		m.n++
	}
	s[k] = v
}

func (m *cowMap[V]) del(k string) {
	if _, ok := m.lookup(k); !ok {
		return
	}
	delete(m.writable(shardOf(k)), k)
	m.n--
}

func (m *cowMap[V]) len() int { return m.n }

// all yields every entry, in no particular order.
func (m *cowMap[V]) all() iter.Seq2[string, V] {
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

// values yields every value, in no particular order.
func (m *cowMap[V]) values() iter.Seq[V] {
	return func(yield func(V) bool) {
		for _, v := range m.all() {
			if !yield(v) {
				return
			}
		}
	}
}
