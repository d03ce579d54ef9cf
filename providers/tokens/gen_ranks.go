//go:build ignore

// gen_ranks writes the rank files that vocab.go embeds from the
// vocabularies of github.com/tiktoken-go/tokenizer: for each rank from 0,
// the token's length as a uvarint and its bytes, or length 0 for a rank
// no token has.
package main

import (
	"encoding/binary"
	"log"
	"os"

	"github.com/tiktoken-go/tokenizer/codec"
)

func main() {
	for _, e := range []struct {
		file  string
		codec *codec.Codec
	}{
		{"o200k_base.ranks", codec.NewO200kBase()},
		{"cl100k_base.ranks", codec.NewCl100kBase()},
	} {
		var out []byte
		end := 0 // the length of out after the last token
		for r := range 1 << 20 {
			tok, err := e.codec.Decode([]uint{uint(r)})
			if err != nil {
				out = append(out, 0)
				continue
			}
			out = binary.AppendUvarint(out, uint64(len(tok)))
			out = append(out, tok...)
			end = len(out)
		}
		if err := os.WriteFile(e.file, out[:end], 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
