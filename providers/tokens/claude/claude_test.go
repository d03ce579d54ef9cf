package claude

import (
	"runtime"
	"strings"
	"testing"
)

// render writes the markers of a marked stream as the vocabulary files do.
func render(s string) string {
	return strings.NewReplacer("\x01", "⟨bow⟩", "\x02", "⟨eow⟩", "\x03", "⟨shift⟩", "\x04", "⟨caps⟩").Replace(s)
}

func TestStream(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		family *family
		text   string
		want   string
	}{
		// A single space between words is the seam between their markers.
		{claude3, "Hello world", "⟨shift⟩⟨bow⟩hello⟨eow⟩⟨bow⟩world⟨eow⟩"},
		// All capitals from four letters take the caps marker, in claude-3 only.
		{claude3, "NASA rules", "⟨caps⟩⟨bow⟩nasa⟨eow⟩⟨bow⟩rules⟨eow⟩"},
		{claude47, "NASA rules", "⟨bow⟩NASA⟨eow⟩⟨bow⟩rules⟨eow⟩"},
		{claude3, "ABC", "⟨bow⟩ABC⟨eow⟩"},
		// Punctuation is marked on the side that borders a space.
		{claude3, "a! b", "⟨bow⟩a⟨eow⟩!⟨eow⟩⟨bow⟩b⟨eow⟩"},
		// A contraction's apostrophe is its word's start.
		{claude3, "it's", "⟨bow⟩it⟨eow⟩'s⟨eow⟩"},
		// Curly quotes fold in claude-3 only; an apostrophe that opens a
		// word takes the frame's word start as the space it stands for.
		{claude3, "‘x’", " '⟨bow⟩x⟨eow⟩'"},
		{claude47, "‘x’", "⟨bow⟩‘⟨bow⟩x⟨eow⟩’"},
		// The frame's word start absorbs one leading space, not in claude-5.
		{claude3, " a", "⟨bow⟩a⟨eow⟩"},
		{claude5, " a", " ⟨bow⟩a⟨eow⟩"},
		// A digit opening the message leaves the frame's word start to pay.
		{claude3, "42", "⟨bow⟩42"},
		{claude5, "42", "42"},
	} {
		tb := c.family.load()
		s, _ := c.family.stream(tb, normalize(c.text, tb.foldQuotes), strippedHead(c.text), nil, nil, false)
		got := render(string(s))
		if got != c.want {
			t.Errorf("%s %q: stream %q, want %q", c.family.name, c.text, got, c.want)
		}
	}
}

func TestCountEdges(t *testing.T) {
	t.Parallel()
	for _, name := range []string{Claude3, Claude47, Claude5} {
		c, _ := New(name)
		if n := c.Count(""); n != 0 {
			t.Errorf("%s: empty text counts %d", name, n)
		}
		if n := c.CountMessage(""); n != c.MessageOverhead() {
			t.Errorf("%s: empty message counts %d, want the frame's %d", name, n, c.MessageOverhead())
		}
		// Invalid UTF-8 and the marker bytes counts like any other text.
		if n := c.Count("\xff\x01\x02 a"); n <= 0 {
			t.Errorf("%s: invalid text counts %d", name, n)
		}
		total, per := c.CountSpans("Hello world. Goodbye.", [][2]int{{0, 12}, {12, 21}, {30, 40}})
		if total != c.Count("Hello world. Goodbye.") || len(per) != 3 || per[0] == 0 || per[1] == 0 || per[2] != 0 {
			t.Errorf("%s: CountSpans = %d %v", name, total, per)
		}
	}
	if _, ok := New("claude-9"); ok {
		t.Error("New accepted claude-9")
	}
}

// The vocabularies are parsed on first use, and all of them together stay
// well under 30 MiB of heap.
func TestTablesLazyAndSmall(t *testing.T) {
	v := &vocabulary{data: v3Data}
	w := &vocabulary{data: v47Data}
	if v.t != nil || w.t != nil {
		t.Fatal("tables built before use")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, x := range []*vocabulary{v, w} {
		if _, err := x.load(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("tables of both vocabularies: %.1f MiB of heap", float64(grew)/(1<<20))
	if grew > 30<<20 {
		t.Errorf("tables take %d bytes of heap, want under 30 MiB", grew)
	}
	runtime.KeepAlive(v)
	runtime.KeepAlive(w)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{nil, []byte("not gzip")} {
		if _, err := parse(data); err == nil {
			t.Errorf("parse(%q) succeeded", data)
		}
	}
}

// BenchmarkFirstCount is what the first count after start costs: parsing
// the vocabulary, building its tables, and counting a short text. Where
// the thread's CPU time can be read it reports that too (cpu-ms/op),
// which other processes' load does not move.
func BenchmarkFirstCount(b *testing.B) {
	for _, data := range []struct {
		name string
		data []byte
	}{{Claude3, v3Data}, {Claude47, v47Data}} {
		b.Run(data.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ReportAllocs()
			c0 := threadCPU()
			for b.Loop() {
				f := &family{name: data.name, vocab: &vocabulary{data: data.data}, frameBow: true, frameTail: tailLadder}
				f.count("Hello, world! This is the first count.")
			}
			if c := threadCPU() - c0; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
			}
		})
	}
}

// TestVocabulariesChunkSafe checks of every piece what the chunk-at-a-time
// tiling rests on, and that the trie holds as many pieces as measured.
func TestVocabulariesChunkSafe(t *testing.T) {
	t.Parallel()
	for _, v := range []*vocabulary{{data: v3Data}, {data: v47Data}} {
		tb, err := v.load()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		// Walk the trie depth first, spelling each piece.
		var walk func(node int32, prefix []byte)
		walk = func(node int32, prefix []byte) {
			nd := tb.pieces.nodes[node]
			if nd.terminal {
				n++
				if err := chunkSafe(string(prefix)); err != nil {
					t.Error(err)
				}
				if !tb.pieces.has(string(prefix)) {
					t.Errorf("piece %q not found", prefix)
				}
			}
			for k := nd.lo; k < nd.hi; k++ {
				walk(k+1, append(prefix, tb.pieces.label[k]))
			}
		}
		walk(0, nil)
		if n < 10000 {
			t.Errorf("%d pieces, want a vocabulary", n)
		}
	}
}
