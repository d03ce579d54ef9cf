package claude

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/tokens/internal/slotcache"
)

// maxCachedChunk is the longest chunk, in bytes, the cache holds; longer
// ones seldom repeat.
const maxCachedChunk = 128

// count returns the tokens text adds to one message of the family.
func (f *family) count(text string) int {
	t := f.load()
	var norm string
	tail := 0
	if f.frameTail == tailLadder {
		norm = normalize(text, t.foldQuotes)
		tail = t.frameTail(len(norm) - len(strings.TrimRight(norm, "\n")))
	} else {
		// The frame absorbs raw trailing whitespace, before the space
		// variants are folded to spaces: those still cost.
		norm = normalize(strings.TrimRight(text, " \t\n\r\f\v"), t.foldQuotes)
	}
	_, n := f.stream(t, norm, strippedHead(text), make([]byte, 0, min(len(norm)+len(norm)/2, windowBytes+256)+8),
		make([]run, 0, min(len(norm)/3, windowRuns+8)+4), true)
	return n + tail
}

// tileChunks tiles the marked stream s a chunk at a time. No piece spans
// the point after a word end, nor the point before a word start or case
// marker that follows anything but a case marker (parse checks it of the
// vocabulary), so the stream's tiling is the sum of its chunks', and a
// chunk's is cached.
func (t *tables) tileChunks(s []byte) int {
	total := 0
	start := 0
	for i := 1; i <= len(s); i++ {
		if i < len(s) {
			c, prev := s[i], s[i-1]
			cut := prev == eow || (c == bow || c == shift || c == caps) && prev != shift && prev != caps
			if !cut {
				continue
			}
		}
		total += t.chunkCost(s[start:i])
		start = i
	}
	return total
}

// chunkCost returns the tiling of one chunk, from the cache when it is
// there.
func (t *tables) chunkCost(chunk []byte) int {
	switch {
	case len(chunk) == 1:
		// A byte is a piece or a unit, one token either way.
		return 1
	case len(chunk) <= slotcache.SmallKey:
		if n, ok := t.small.Get(chunk); ok {
			return n
		}
		n := t.tile(string(chunk))
		t.small.Put(chunk, n)
		return n
	case len(chunk) > maxCachedChunk:
		return t.tile(string(chunk))
	}
	n, h, ok := t.cache.GetBytes(chunk)
	if ok {
		return n
	}
	key := string(chunk)
	n = t.tile(key)
	t.cache.Put(h, key, n)
	return n
}

// frameTail returns what n content-final newlines cost beyond the frame's
// own two: one token may span the content's newlines into the frame's, so
// the run tiled is n+2 newlines, of which the frame pays one token.
func (t *tables) frameTail(n int) int {
	if n == 0 {
		return 0
	}
	m := n + 2
	best := make([]int, m+1)
	for i := 1; i <= m; i++ {
		best[i] = best[i-1] + 1
		for _, l := range t.newlineRuns {
			if l <= i && best[i-l]+1 < best[i] {
				best[i] = best[i-l] + 1
			}
		}
	}
	return best[m] - 1
}

// unitCost returns what a character no piece covers costs: a marker is a
// token, any other character the fewest byte pieces that spell it.
func (t *tables) unitCost(ch string) int32 {
	if len(ch) == 1 {
		return 1
	}
	var best [utf8.UTFMax + 1]int32
	for i := 1; i <= len(ch); i++ {
		best[i] = best[i-1] + 1
		for j := 0; j < i-1; j++ {
			if _, ok := t.bytePieces[ch[j:i]]; ok && best[j]+1 < best[i] {
				best[i] = best[j] + 1
			}
		}
	}
	return best[len(ch)]
}

// dottedI is the capital I with dot above, which in one context the
// vocabulary's piece does not cover.
const dottedI = "İ"

// tile returns the fewest tokens that cover the marked stream s: each
// piece of the vocabulary costs one, a character no piece covers its unit
// cost.
//
// A capital dotted I after a non-marker and before a word end or an ASCII
// lowercase letter is one token only as the second of a pair with the
// tile before it, and that tile may not be a marked word start ending in
// an ASCII capital; alone it costs its two bytes.
func (t *tables) tile(s string) int {
	n := len(s)
	const inf = math.MaxInt32
	best := make([]int32, n+1)
	for i := 1; i <= n; i++ {
		best[i] = inf
	}
	var ctx []bool
	if strings.Contains(s, dottedI) {
		ctx = dottedContext(s)
	}
	relax := func(i int, c int32) {
		if c < best[i] {
			best[i] = c
		}
	}
	for j := 0; j < n; {
		_, w := utf8.DecodeRuneInString(s[j:])
		bj := best[j]
		if ctx != nil && ctx[j] {
			relax(j+w, bj+int32(w))
			j += w
			continue
		}
		covered := false
		node := int32(0)
		for p := j; p < n; p++ {
			if ctx != nil && p > j && ctx[p] {
				if p > j+w && t.pieces.nodes[node].terminal && !hostBlocked(s[j:p]) {
					relax(p+len(dottedI), bj+2)
				}
				break
			}
			if node = t.pieces.next(node, s[p]); node < 0 {
				break
			}
			if t.pieces.nodes[node].terminal {
				relax(p+1, bj+1)
				if p+1 == j+w {
					covered = true
				}
			}
		}
		unit := int32(1)
		if !covered {
			unit = t.unitCost(s[j : j+w])
			relax(j+w, bj+unit)
		}
		if ctx != nil && j+w < n && ctx[j+w] {
			// A one-character host: a piece or its unit cost, never blocked.
			relax(j+w+len(dottedI), bj+unit+1)
		}
		j += w
	}
	return int(best[n])
}

// dottedContext marks the byte offsets of s at which a dotted capital I
// stands in the context tile describes.
func dottedContext(s string) []bool {
	ctx := make([]bool, len(s)+1)
	for j := 0; j < len(s); j++ {
		if !strings.HasPrefix(s[j:], dottedI) || j == 0 {
			continue
		}
		k := j + len(dottedI)
		if k >= len(s) || isMarker(s[j-1]) {
			continue
		}
		if s[k] == eow || s[k] >= 'a' && s[k] <= 'z' {
			ctx[j] = true
		}
	}
	return ctx
}

// hostBlocked reports a tile before the dotted I that keeps it at two
// tokens: one opening with a marker and ending in an ASCII capital.
func hostBlocked(host string) bool {
	last := host[len(host)-1]
	return (host[0] == bow || host[0] == shift || host[0] == caps) && last >= 'A' && last <= 'Z'
}
