package claude

import (
	"slices"
	"sort"
)

// trie is a byte trie over the vocabulary, its nodes' children stored
// contiguously and sorted by label so a step is a binary search.
type trie struct {
	root  [256]int32 // the child of the root for each byte, -1 for none
	nodes []trieNode
	label []byte
	child []int32
}

type trieNode struct {
	lo, hi   int32 // the node's edges: label[lo:hi], child[lo:hi]
	terminal bool
}

// newTrie builds the trie of the given pieces, which it sorts in place.
func newTrie(pieces []string) *trie {
	ps := pieces
	if !sort.StringsAreSorted(ps) {
		sort.Strings(ps)
	}
	ps = slices.Compact(ps)
	t := &trie{}
	for i := range t.root {
		t.root[i] = -1
	}
	type job struct {
		node   int32
		lo, hi int32 // the pieces with the node's prefix
		depth  int32
	}
	// A vocabulary's trie has two to three nodes a piece: size for that,
	// then clip.
	size := 3*len(ps) + 1
	t.nodes = make([]trieNode, 1, size)
	t.label = make([]byte, 0, size)
	t.child = make([]int32, 0, size)
	queue := make([]job, 1, size)
	queue[0] = job{0, 0, int32(len(ps)), 0}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		lo, hi, depth := int(j.lo), int(j.hi), int(j.depth)
		if lo < hi && len(ps[lo]) == depth {
			t.nodes[j.node].terminal = true
			lo++
		}
		edgeLo := int32(len(t.label))
		for k := lo; k < hi; {
			b := ps[k][depth]
			e := k + 1
			for e < hi && ps[e][depth] == b {
				e++
			}
			id := int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{})
			t.label = append(t.label, b)
			t.child = append(t.child, id)
			if j.node == 0 {
				t.root[b] = id
			}
			queue = append(queue, job{id, int32(k), int32(e), j.depth + 1})
			k = e
		}
		t.nodes[j.node].lo, t.nodes[j.node].hi = edgeLo, int32(len(t.label))
	}
	t.nodes = slices.Clone(t.nodes)
	t.label = slices.Clone(t.label)
	t.child = slices.Clone(t.child)
	return t
}

// next returns the child of node n along byte b, or -1.
func (t *trie) next(n int32, b byte) int32 {
	if n == 0 {
		return t.root[b]
	}
	nd := &t.nodes[n]
	lo, hi := int(nd.lo), int(nd.hi)
	for lo < hi {
		m := (lo + hi) / 2
		switch l := t.label[m]; {
		case l == b:
			return t.child[m]
		case l < b:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// has reports whether s is a piece.
func (t *trie) has(s string) bool {
	n := int32(0)
	for i := 0; i < len(s); i++ {
		if n = t.next(n, s[i]); n < 0 {
			return false
		}
	}
	return n > 0 && t.nodes[n].terminal
}
