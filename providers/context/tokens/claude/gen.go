//go:build ignore

// gen writes the embedded vocabularies from the measured vocabulary files:
//
//	go run gen.go DIR
//
// DIR holds pieces_v3.json and pieces_v4_7.json. Each output keeps what
// counting needs, with the marker atoms rewritten to the one-byte glyphs
// the tiler works in: a line of JSON with the family's scalars, then the
// pieces, the contraction suffixes and the hex byte pieces, each
// NUL-separated, the three lists separated by two NULs. No piece holds a
// NUL: the normalizer turns NUL into a space.
package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	Pieces          []string `json:"-"`
	Contractions    []string `json:"-"`
	Bytes           []string `json:"-"`
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
	for group, ps := range src.Tokens {
		for p := range ps {
			if strings.Contains(p, "⟨0x") {
				return fmt.Errorf("%s: byte escapes are not supported: %q", in, p)
			}
			switch group {
			case "bytes_fallback":
				o.Bytes = append(o.Bytes, p)
			case "contractions":
				o.Contractions = append(o.Contractions, p)
				o.Pieces = append(o.Pieces, atoms.Replace(p))
			default:
				o.Pieces = append(o.Pieces, atoms.Replace(p))
			}
		}
	}
	sort.Strings(o.Pieces)
	sort.Strings(o.Contractions)
	sort.Strings(o.Bytes)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	meta, err := json.Marshal(o)
	if err != nil {
		return err
	}
	for _, p := range o.Pieces {
		if strings.Contains(p, "\x00") {
			return fmt.Errorf("%s: piece %q holds a NUL", in, p)
		}
	}
	lists := []string{strings.Join(o.Pieces, "\x00"), strings.Join(o.Contractions, "\x00"), strings.Join(o.Bytes, "\x00")}
	if _, err := fmt.Fprintf(zw, "%s\n%s", meta, strings.Join(lists, "\x00\x00")); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
