package tokens

import (
	"container/heap"
	_ "embed"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
)

//go:generate go run gen_ranks.go

// The vocabularies of the BPE encodings, from tiktoken-go's (see
// gen_ranks.go): for each rank from 0, the token's length as a uvarint and
// its bytes, or length 0 for a rank no token has. Embedded bytes cost the
// linker nothing, unlike a Go map literal of 200,000 strings.
var (
	//go:embed o200k_base.ranks
	o200kRanks string
	//go:embed cl100k_base.ranks
	cl100kRanks string
)

// vocab maps each token of an encoding to its rank. It is an
// open-addressing hash table over the rank file rather than a Go map of
// 200,000 strings: each process that counts tokens builds it, and a map
// took several times as long to build and as much memory.
type vocab struct {
	data string
	// start and size locate the token of each rank in data; size 0 marks
	// a rank no token has.
	start []uint32
	size  []uint8
	// slots holds rank+1 of the token hashed there, 0 when empty; its
	// length is a power of two at least twice the number of tokens.
	slots []uint32
	seed  maphash.Seed
	count int
}

// noRank is the rank of a pair of parts that is not a token.
const noRank = ^uint32(0)

// parseRanks returns the vocabulary that a rank file holds. Its tokens are
// substrings of data.
func parseRanks(data string) *vocab {
	v := &vocab{data: data, seed: maphash.MakeSeed()}
	// Tokens average 7 bytes.
	v.start = make([]uint32, 0, len(data)/7)
	v.size = make([]uint8, 0, len(data)/7)
	for at := 0; at < len(data); {
		n, w := binary.Uvarint([]byte(data[at:min(len(data), at+binary.MaxVarintLen64)]))
		if w <= 0 || uint64(len(data)-at-w) < n || n > math.MaxUint8 {
			panic("tokens: corrupt rank file")
		}
		at += w
		v.start = append(v.start, uint32(at))
		v.size = append(v.size, uint8(n))
		if n > 0 {
			v.count++
		}
		at += int(n)
	}
	v.slots = make([]uint32, max(16, 2<<bits.Len(uint(v.count))))
	mask := uint64(len(v.slots) - 1)
	for r, n := range v.size {
		if n == 0 {
			continue
		}
		i := maphash.String(v.seed, v.token(uint32(r))) & mask
		for v.slots[i] != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = uint32(r) + 1
	}
	return v
}

// token returns the token of rank r, "" for a rank no token has.
func (v *vocab) token(r uint32) string {
	return v.data[v.start[r] : v.start[r]+uint32(v.size[r])]
}

// rank returns the rank of token s, or noRank when s is not a token.
func (v *vocab) rank(s string) uint32 {
	mask := uint64(len(v.slots) - 1)
	for i := maphash.String(v.seed, s) & mask; ; i = (i + 1) & mask {
		r := v.slots[i]
		if r == 0 {
			return noRank
		}
		if v.token(r-1) == s {
			return r - 1
		}
	}
}

// len returns the number of tokens.
func (v *vocab) len() int { return v.count }

// merge returns the offsets in piece, a non-empty piece of a split, at
// which its tokens start. Byte-pair encoding starts from single bytes and
// merges, while some pair of adjacent parts spells a token, the pair whose
// token has the lowest rank, the leftmost of equals. A heap of candidate
// pairs keeps the cost at O(n log n) for the long pieces the cache does not
// hold.
func (v *vocab) merge(piece string) []int {
	if v.rank(piece) != noRank {
		return []int{0}
	}
	n := int32(len(piece))
	// The parts are a list of their start offsets: next and prev link
	// them, n ends the last. rank[i] is the rank of merging the part at i
	// with the next one.
	next := make([]int32, n+1)
	prev := make([]int32, n+1)
	rank := make([]uint32, n+1)
	for i := range n + 1 {
		next[i], prev[i], rank[i] = i+1, i-1, noRank
	}
	next[n] = -1
	rankAt := func(i int32) uint32 {
		j := next[i]
		if j < 0 || next[j] < 0 {
			return noRank
		}
		return v.rank(piece[i:next[j]])
	}
	h := make(pairHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if rank[i] = rankAt(i); rank[i] != noRank {
			h = append(h, pair{rank[i], i})
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		top := heap.Pop(&h).(pair)
		i := top.at
		// A pair whose left part has merged since, or was merged into
		// the part before, is stale.
		if rank[i] != top.rank {
			continue
		}
		j := next[i]
		k := next[j]
		rank[j] = noRank
		next[i] = k
		if k >= 0 {
			prev[k] = i
		}
		for _, b := range [2]int32{i, prev[i]} {
			if b < 0 {
				continue
			}
			if rank[b] = rankAt(b); rank[b] != noRank {
				heap.Push(&h, pair{rank[b], b})
			}
		}
	}
	var starts []int
	for i := int32(0); i != n; i = next[i] {
		starts = append(starts, int(i))
	}
	return starts
}

// pair is a candidate merge: the part at offset at with the next, whose
// concatenation is the token of rank rank.
type pair struct {
	rank uint32
	at   int32
}

// pairHeap is a container/heap of pairs by rank, then offset.
type pairHeap []pair

func (h pairHeap) Len() int { return len(h) }

func (h pairHeap) Less(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].at < h[b].at
}

func (h pairHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }

func (h *pairHeap) Push(p any) { *h = append(*h, p.(pair)) }

func (h *pairHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}
