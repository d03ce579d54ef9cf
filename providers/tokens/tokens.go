// Package tokens measures the token cost of text with a real BPE tokenizer
// whose vocabulary is embedded in the binary, or with a fast word-count
// estimate.
package tokens

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/tiktoken-go/tokenizer"
)

// Encoding names accepted by New.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
	Estimate   = "estimate"
)

// Default is the encoding used when none is configured.
const Default = O200kBase

// Names lists the accepted encoding names.
var Names = []string{O200kBase, Cl100kBase, Estimate}

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
		return newBPE(tokenizer.O200kBase)
	case Cl100kBase:
		return newBPE(tokenizer.Cl100kBase)
	case Estimate:
		return estimate{}, nil
	}
	return nil, fmt.Errorf("unknown tokenizer %q (want one of %s)", name, strings.Join(Names, ", "))
}

type bpe struct {
	name string
	enc  tokenizer.Codec
}

func newBPE(e tokenizer.Encoding) (Counter, error) {
	enc, err := tokenizer.Get(e)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", e, err)
	}
	return &bpe{name: string(e), enc: enc}, nil
}

func (b *bpe) Name() string { return b.name }

func (b *bpe) Count(text string) int {
	n, err := b.enc.Count(text)
	if err != nil {
		// The codec only fails on invalid UTF-8 in strict mode, which is not
		// used; fall back to the estimate rather than report zero.
		return estimate{}.Count(text)
	}
	return n
}

func (b *bpe) CountSpans(text string, spans [][2]int) (int, []int) {
	if len(spans) == 0 {
		return b.Count(text), nil
	}
	_, toks, err := b.enc.Encode(text)
	if err != nil {
		return estimate{}.CountSpans(text, spans)
	}
	// Token pieces are consecutive substrings of text (invalid UTF-8 is
	// passed through unchanged), so their lengths give start offsets.
	starts := make([]int, len(toks))
	off := 0
	for i, t := range toks {
		starts[i] = off
		off += len(t)
	}
	return len(toks), countIn(starts, spans)
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
