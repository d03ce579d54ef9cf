package cowmap

import (
	"maps"
	"strconv"
	"testing"
)

// TestForkLeavesTheParent changes forks of a map in every way a snapshot
// does and checks each against a plain map: the fork sees its changes, and
// the map it was forked from, and forks of it, keep what they held.
func TestForkLeavesTheParent(t *testing.T) {
	t.Parallel()
	type op struct {
		del bool
		k   string
		v   int
	}
	keys := func(n int) []op {
		var ops []op
		for i := range n {
			ops = append(ops, op{k: "k" + strconv.Itoa(i), v: i})
		}
		return ops
	}
	tests := []struct {
		name string
		base []op
		edit []op
	}{
		{"empty parent", nil, keys(3)},
		{"one key changed", keys(200), []op{{k: "k7", v: -7}}},
		{"key added", keys(200), []op{{k: "new", v: 1}}},
		{"key deleted", keys(200), []op{{del: true, k: "k9"}}},
		{"absent key deleted", keys(200), []op{{del: true, k: "nope"}}},
		{"every key deleted", keys(100), func() []op {
			ops := keys(100)
			for i := range ops {
				ops[i].del = true
			}
			return ops
		}()},
		{"set, delete, set again", keys(10), []op{{k: "k1", v: 5}, {del: true, k: "k1"}, {k: "k1", v: 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			apply := func(m *Map[int], want map[string]int, ops []op) {
				for _, o := range ops {
					if o.del {
						m.Delete(o.k)
						delete(want, o.k)
					} else {
						m.Set(o.k, o.v)
						want[o.k] = o.v
					}
				}
			}
			var parent Map[int] // the zero map, as a model starts
			wantParent := map[string]int{}
			apply(&parent, wantParent, tt.base)
			sibling := parent.Fork()

			child := parent.Fork()
			wantChild := maps.Clone(wantParent)
			apply(&child, wantChild, tt.edit)

			for name, c := range map[string]struct {
				m    *Map[int]
				want map[string]int
			}{
				"parent":  {&parent, wantParent},
				"sibling": {&sibling, wantParent},
				"child":   {&child, wantChild},
			} {
				got := maps.Collect(c.m.All())
				if !maps.Equal(got, c.want) {
					t.Errorf("%s holds %v, want %v", name, got, c.want)
				}
				if c.m.Len() != len(c.want) {
					t.Errorf("%s: Len() = %d, want %d", name, c.m.Len(), len(c.want))
				}
				for k, v := range c.want {
					if got, ok := c.m.Lookup(k); !ok || got != v {
						t.Errorf("%s: Lookup(%q) = %d, %v; want %d, true", name, k, got, ok, v)
					}
				}
				if _, ok := c.m.Lookup("absent"); ok {
					t.Errorf("%s: Lookup of an absent key found one", name)
				}
			}
		})
	}
}

// TestForkCopiesOnlyWhatChanges checks that a fork shares the shards it
// does not change with its parent, which is what keeps an edit cheap.
func TestForkCopiesOnlyWhatChanges(t *testing.T) {
	t.Parallel()
	m := New[int](1000)
	for i := range 1000 {
		m.Set("k"+strconv.Itoa(i), i)
	}
	f := m.Fork()
	f.Set("k1", -1)
	changed := ShardOf("k1")
	for i := range numShards {
		shared := sameMap(m.shards[i], f.shards[i])
		if i == changed && shared {
			t.Errorf("shard %d, which the fork changed, is shared with the parent", i)
		}
		if i != changed && !shared {
			t.Errorf("shard %d, which the fork did not change, was copied", i)
		}
	}
}

// sameMap reports whether a and b are one map: a key set in one is seen
// in the other.
func sameMap(a, b map[string]int) bool {
	const probe = "\x00probe"
	a[probe] = 1
	_, ok := b[probe]
	delete(a, probe)
	return ok
}
