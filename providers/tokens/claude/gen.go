//go:build ignore

// gen writes the embedded vocabularies from the measured vocabulary files:
//
//	go run gen.go DIR
//
// DIR holds pieces_v3.json and pieces_v4_7.json. Each output keeps what
// counting needs, with the marker atoms rewritten to the one-byte glyphs
// the tiler works in. A contraction suffix is a piece both as measured and
// glued to its word's end (followed by the word-end glyph). The pieces are
// written as their byte trie in breadth-first order, which the counter
// reads as it stands: a line of JSON with the family's scalars, the number
// of pieces and of trie nodes, and the byte pieces in hex; then, for each
// node, a uvarint of its number of edges times two plus one if a piece
// ends there; then the edges' labels, node after node, each node's sorted.
// The child along edge k is node k+1.
package main

import (
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

type source struct {
	Meta struct {
		Family          string `json:"family"`
		SourceModel     string `json:"source_model"`
		MessageOverhead int    `json:"message_overhead"`
		FoldQuotes      bool   `json:"fold_quotes"`
		AllcapsMin      *int   `json:"allcaps_min"`
		DigitGroup      int    `json:"digit_group"`
	} `json:"meta"`
	Tokens map[string]map[string]json.RawMessage `json:"tokens"`
}

type output struct {
	Family          string   `json:"family"`
	SourceModel     string   `json:"source_model"`
	MessageOverhead int      `json:"message_overhead"`
	FoldQuotes      bool     `json:"fold_quotes"`
	AllcapsMin      int      `json:"allcaps_min"`
	Pieces          int      `json:"pieces"`
	Nodes           int      `json:"nodes"`
	Bytes           []string `json:"byte_pieces"`
}

var atoms = strings.NewReplacer("⟨bow⟩", "\x01", "⟨eow⟩", "\x02", "⟨shift⟩", "\x03", "⟨caps⟩", "\x04")

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run gen.go DIR")
		os.Exit(2)
	}
	for in, out := range map[string]string{"pieces_v3.json": "data/v3.vocab.gz", "pieces_v4_7.json": "data/v4_7.vocab.gz"} {
		if err := convert(filepath.Join(os.Args[1], in), out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func convert(in, out string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var src source
	if err := json.Unmarshal(raw, &src); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	o := output{
		Family:          src.Meta.Family,
		SourceModel:     src.Meta.SourceModel,
		MessageOverhead: src.Meta.MessageOverhead,
		FoldQuotes:      src.Meta.FoldQuotes,
	}
	if src.Meta.AllcapsMin != nil {
		o.AllcapsMin = *src.Meta.AllcapsMin
	}
	var pieces []string
	for group, ps := range src.Tokens {
		for p := range ps {
			if strings.Contains(p, "⟨0x") {
				return fmt.Errorf("%s: byte escapes are not supported: %q", in, p)
			}
			switch group {
			case "bytes_fallback":
				o.Bytes = append(o.Bytes, p)
			case "contractions":
				// The apostrophe is the word's start, so the suffix
				// glued to its word end writes no marker of its own.
				pieces = append(pieces, atoms.Replace(p), atoms.Replace(p)+"\x02")
			default:
				pieces = append(pieces, atoms.Replace(p))
			}
		}
	}
	sort.Strings(pieces)
	pieces = slices.Compact(pieces)
	sort.Strings(o.Bytes)
	for _, p := range pieces {
		if p == "" {
			return fmt.Errorf("%s: an empty piece", in)
		}
	}
	counts, labels := bfsTrie(pieces)
	o.Pieces, o.Nodes = len(pieces), len(counts)
	meta, err := json.Marshal(o)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	body := append(meta, '\n')
	for _, c := range counts {
		body = binary.AppendUvarint(body, c)
	}
	body = append(body, labels...)
	if _, err := zw.Write(body); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// bfsTrie returns, for each node of the byte trie of sorted pieces in
// breadth-first order, its edges times two plus one if a piece ends there,
// and the labels of all edges in that order.
func bfsTrie(pieces []string) (counts []uint64, labels []byte) {
	type job struct{ lo, hi, depth int }
	queue := []job{{0, len(pieces), 0}}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		lo, c := j.lo, uint64(0)
		if lo < j.hi && len(pieces[lo]) == j.depth {
			c, lo = 1, lo+1
		}
		for k := lo; k < j.hi; {
			b := pieces[k][j.depth]
			e := k + 1
			for e < j.hi && pieces[e][j.depth] == b {
				e++
			}
			labels = append(labels, b)
			queue = append(queue, job{k, e, j.depth + 1})
			c += 2
			k = e
		}
		counts = append(counts, c)
	}
	return counts, labels
}
