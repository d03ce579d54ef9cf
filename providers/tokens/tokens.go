// Package tokens measures the token cost of text with a real tokenizer
// whose vocabulary is embedded in the binary (OpenAI's BPE encodings, and
// Claude's families rebuilt from measured vocabularies in package claude),
// or with a fast word-count estimate.
package tokens

import (
	"fmt"
	"iter"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/tokens/claude"
	"github.com/ctxls/ctxls/providers/tokens/internal/slotcache"
)

// Encoding names accepted by New.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
	Estimate   = "estimate"
	// Claude counts with the newest Claude family, Claude5.
	Claude   = claude.Newest
	Claude3  = claude.Claude3  // Claude 3 through Opus 4.6
	Claude47 = claude.Claude47 // Opus 4.7 through 4.9
	Claude5  = claude.Claude5  // Opus 5 and Sonnet 5
)

// Default is the encoding used when none is configured.
const Default = O200kBase

// encodingNames lists the accepted encoding names.
var encodingNames = []string{O200kBase, Cl100kBase, Claude, Claude3, Claude47, Claude5, Estimate}

// Names returns the accepted encoding names.
func Names() []string { return append([]string(nil), encodingNames...) }

// MessageCounter is a Counter that also knows the frame its provider's
// API puts around one user message, as Claude's count_tokens reports it.
type MessageCounter interface {
	Counter
	// CountMessage returns the tokens of text sent as one user message,
	// the frame included.
	CountMessage(text string) int
	// MessageOverhead returns the frame's tokens.
	MessageOverhead() int
}

// Counter counts tokens. Implementations are safe for concurrent use.
type Counter interface {
	// Name returns the encoding's name.
	Name() string
	// Count returns the number of tokens in text.
	Count(text string) int
	// CountSpans tokenizes text once and returns the total count and, for
	// each byte span [s[0], s[1]), the number of tokens that start inside
	// it. Spans may overlap or nest.
	CountSpans(text string, spans [][2]int) (total int, per []int)
}

// New returns the counter for an encoding name; "" means Default.
func New(name string) (Counter, error) {
	switch name {
	case "", O200kBase:
		return o200k(), nil
	case Cl100kBase:
		return cl100k(), nil
	case Estimate:
		return estimate{}, nil
	}
	if c, ok := claude.New(name); ok {
		return c, nil
	}
	return nil, fmt.Errorf("unknown tokenizer %q (want one of %s)", name, strings.Join(encodingNames, ", "))
}

// bpe counts tokens exactly as tiktoken-go does, faster: split finds the
// pieces in place (see split.go), and the token offsets of each distinct
// short piece come from byte-pair encoding once and then from a cache
// shared by all counters of the encoding.
type bpe struct {
	name  string
	vocab func() *vocab
	split splitFunc
	// cache holds, for each short piece, the byte offsets within it at
	// which its tokens after the first start, a byte each: a piece has
	// one token more than its offsets.
	cache *slotcache.Cache[string]
}

// maxCachedPiece is the longest piece, in bytes, that the cache holds, so
// that a byte holds a token offset. Longer pieces are rare and seldom
// repeat; markdown table rules, which do, are shorter.
const maxCachedPiece = 255

// o200k and cl100k are the process's one counter of each encoding, made
// on first use. A piece's tokens depend on the encoding alone, so the
// piece cache is shared: a library rebuilt after a configuration change
// starts warm. The vocabulary is read on the first count: a process that
// only validates a configuration need not spend the milliseconds.
var (
	o200k  = sync.OnceValue(func() *bpe { return newBPE(O200kBase, splitO200k, o200kRanks) })
	cl100k = sync.OnceValue(func() *bpe { return newBPE(Cl100kBase, splitCl100k, cl100kRanks) })
)

// newBPE returns a counter of the encoding name, whose vocabulary the
// rank file ranks holds.
func newBPE(name string, split splitFunc, ranks string) *bpe {
	return &bpe{
		name:  name,
		vocab: sync.OnceValue(func() *vocab { return parseRanks(ranks) }),
		split: split,
		cache: slotcache.New[string](1 << 17),
	}
}

func (b *bpe) Name() string { return b.name }

func (b *bpe) Count(text string) int {
	n := 0
	for i, e := range b.pieces(text) {
		switch {
		case e-i == 1:
			// Every byte is a token.
			n++
		case e-i <= maxCachedPiece:
			n += len(b.cached(text[i:e])) + 1
		default:
			n += len(b.encodePiece(text[i:e]))
		}
	}
	return n
}

// pieces yields the start and end of each piece the pattern splits text
// into, passing over the runes at which no piece starts.
func (b *bpe) pieces(text string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(text); {
			e := b.split(text, i)
			if e < 0 {
				_, w := decode(text, i)
				i += w
				continue
			}
			if !yield(i, e) {
				return
			}
			i = e
		}
	}
}

func (b *bpe) CountSpans(text string, spans [][2]int) (int, []int) {
	if len(spans) == 0 {
		return b.Count(text), nil
	}
	starts := b.tokenStarts(text)
	return len(starts), countIn(starts, spans)
}

// tokenStarts returns the byte offset in text at which each token starts.
// A token that starts inside the U+FFFD standing for an invalid byte starts
// at that byte.
func (b *bpe) tokenStarts(text string) []int {
	starts := make([]int, 0, len(text)/4)
	for i, e := range b.pieces(text) {
		switch {
		case e-i == 1:
			starts = append(starts, i)
		case e-i <= maxCachedPiece:
			starts = append(starts, i)
			for _, o := range []byte(b.cached(text[i:e])) {
				starts = append(starts, i+int(o))
			}
		default:
			for _, o := range b.encodePiece(text[i:e]) {
				starts = append(starts, i+o)
			}
		}
	}
	return starts
}

// cached returns the token offsets of a piece of at most maxCachedPiece
// bytes, as the cache holds them, encoding the piece on a miss.
func (b *bpe) cached(piece string) string {
	offs, h, ok := b.cache.Get(piece)
	if ok {
		return offs
	}
	starts := b.encodePiece(piece)
	enc := make([]byte, len(starts)-1)
	for k, o := range starts[1:] {
		enc[k] = byte(o)
	}
	offs = string(enc)
	// Clone the piece so the entry does not keep the whole text alive.
	b.cache.Put(h, strings.Clone(piece), offs)
	return offs
}

// encodePiece returns the offsets in piece at which its tokens start.
// Encoding a piece alone gives the tokens it has in context, because the
// piece alone splits into itself: the pattern reads past a piece only in
// (?!\S), and at the end of the text that holds.
func (b *bpe) encodePiece(piece string) []int {
	if utf8.ValidString(piece) {
		return b.vocab().merge(piece)
	}
	// The tokens spell each invalid byte as U+FFFD.
	spelled, at := spellRunes(piece)
	starts := b.vocab().merge(spelled)
	for k, s := range starts {
		starts[k] = at[s]
	}
	return starts
}

// spellRunes returns piece with each invalid byte replaced by U+FFFD, as
// tiktoken-go spells the pieces it matches, and for each byte of the result
// (and its end) the offset in piece of the byte it comes from.
func spellRunes(piece string) (string, []int) {
	var sb strings.Builder
	at := make([]int, 0, len(piece)+9)
	for i := 0; i < len(piece); {
		r, w := utf8.DecodeRuneInString(piece[i:])
		if r == utf8.RuneError && w == 1 {
			sb.WriteRune(r)
			at = append(at, i, i, i)
		} else {
			sb.WriteString(piece[i : i+w])
			for k := range w {
				at = append(at, i+k)
			}
		}
		i += w
	}
	return sb.String(), append(at, len(piece))
}

// countIn counts, for each span, the sorted offsets that fall inside it.
func countIn(starts []int, spans [][2]int) []int {
	per := make([]int, len(spans))
	for i, s := range spans {
		lo := sort.SearchInts(starts, s[0])
		hi := sort.SearchInts(starts, s[1])
		per[i] = hi - lo
	}
	return per
}

// estimate approximates tokens as words ÷ 0.75, the rule of thumb the seed
// library uses for files without declared costs.
type estimate struct{}

func (estimate) Name() string { return Estimate }

func (estimate) Count(text string) int { return fromWords(len(strings.Fields(text))) }

func (estimate) CountSpans(text string, spans [][2]int) (int, []int) {
	var starts []int
	inWord := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			starts = append(starts, i)
		}
		inWord = !space
	}
	words := countIn(starts, spans)
	per := make([]int, len(words))
	for i, w := range words {
		per[i] = fromWords(w)
	}
	return fromWords(len(starts)), per
}

func fromWords(n int) int { return int(math.Ceil(float64(n) / 0.75)) }
