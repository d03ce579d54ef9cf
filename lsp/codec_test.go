package lsp

import (
	"bytes"
	"fmt"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// codecLocations returns n locations in a few files whose names need
// escaping, as a references answer holds.
func codecLocations(n int) []protocol.Location {
	files := []uri.URI{"file:///w/a.md", "file:///w/<b>&\"c\".md", "file:///w/é\u2028.md"}
	out := make([]protocol.Location, n)
	for i := range out {
		out[i] = protocol.Location{URI: files[i%len(files)], Range: protocol.Range{
			Start: protocol.Position{Line: uint32(i), Character: uint32(i % 80)},
			End:   protocol.Position{Line: uint32(i), Character: uint32(i%80 + 9)},
		}}
	}
	return out
}

// TestCodecMarshalsListsAsProtocol: the lists the codec encodes element
// by element come out byte for byte as protocol.Marshal writes them,
// empty, nil and with every field the server fills.
func TestCodecMarshalsListsAsProtocol(t *testing.T) {
	t.Parallel()
	pad := true
	target := uri.URI("file:///w/a.md#L3")
	tip := "A › <S> · 12 tokens"
	rng := protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 3, Character: 4}}
	cases := []struct {
		name string
		v    any
	}{
		{"nil locations", []protocol.Location(nil)},
		{"no locations", []protocol.Location{}},
		{"locations", codecLocations(7)},
		{"nil inlay hints", []protocol.InlayHint(nil)},
		{"inlay hints", []protocol.InlayHint{
			{Position: rng.End, Label: protocol.String("12 tokens (already counted)"), Kind: protocol.InlayHintKindType, PaddingLeft: &pad},
			{Position: rng.Start, Label: protocol.String("\"quoted\" \x01")},
		}},
		{"code lenses", []protocol.CodeLens{
			{Range: rng, Command: protocol.Command{Title: "1,234 tokens"}},
			{Range: rng, Command: protocol.Command{Title: "run", Command: "ctxls.run", Arguments: []protocol.LSPAny{protocol.LSPAny(`"x"`), protocol.LSPAny(`2`)}}},
		}},
		{"no code lenses", []protocol.CodeLens{}},
		{"document links", []protocol.DocumentLink{
			{Range: rng, Target: &target, Tooltip: &tip},
			{Range: rng},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want, err := protocol.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := codec{}.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("codec:\n got  %s\n want %s", got, want)
			}
		})
	}
}

// BenchmarkCodecLocations measures encoding the largest references answer
// the server gives.
func BenchmarkCodecLocations(b *testing.B) {
	locs := codecLocations(maxReferences)
	for _, enc := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"codec", codec{}.Marshal}, {"protocol", protocol.Marshal}} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out, err := enc.marshal(locs); err != nil || len(out) < maxReferences {
					b.Fatal(fmt.Sprint(len(out)), err)
				}
			}
		})
	}
}
