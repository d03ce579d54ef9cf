package claude

import (
	"encoding/binary"
	"fmt"
)

// trie is a byte trie over the vocabulary in breadth-first order: a
// node's edges are contiguous and sorted by label, so a step is a binary
// search, and the child along edge k is node k+1.
type trie struct {
	root  [256]int32 // the child of the root for each byte, -1 for none
	nodes []trieNode
	label []byte
}

type trieNode struct {
	lo, hi   int32 // the node's edges: label[lo:hi]
	terminal bool
}

// readTrie reads a trie of the given nodes and pieces as gen writes it:
// for each node a uvarint of its edges times two plus one if a piece
// ends there, then every edge's label.
func readTrie(data []byte, nodes, pieces int) (*trie, error) {
	if nodes < 1 || nodes > len(data) {
		return nil, fmt.Errorf("trie of %d nodes in %d bytes", nodes, len(data))
	}
	t := &trie{nodes: make([]trieNode, nodes)}
	edges, ends := 0, 0
	for i := range t.nodes {
		c, w := binary.Uvarint(data)
		if w <= 0 || c>>1 > 256 {
			return nil, fmt.Errorf("trie node %d: bad edge count", i)
		}
		data = data[w:]
		t.nodes[i] = trieNode{lo: int32(edges), hi: int32(edges + int(c>>1)), terminal: c&1 != 0}
		edges += int(c >> 1)
		ends += int(c & 1)
	}
	// Every node but the root is the child of one edge.
	if edges != nodes-1 || len(data) != edges || ends != pieces {
		return nil, fmt.Errorf("trie of %d nodes has %d edges, %d labels and %d pieces, want %d", nodes, edges, len(data), ends, pieces)
	}
	t.label = data
	for i := range t.root {
		t.root[i] = -1
	}
	root := t.nodes[0]
	for k := root.lo; k < root.hi; k++ {
		t.root[t.label[k]] = k + 1
	}
	for i := range t.nodes {
		n := t.nodes[i]
		for k := n.lo + 1; k < n.hi; k++ {
			if t.label[k-1] >= t.label[k] {
				return nil, fmt.Errorf("trie node %d: edges out of order", i)
			}
		}
	}
	return t, nil
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
			return int32(m + 1)
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
