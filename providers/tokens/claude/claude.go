// Package claude counts Claude tokens offline, exactly as Anthropic's
// count_tokens endpoint reports them, from measured vocabularies.
//
// Anthropic publishes no tokenizer. The vocabularies embedded here were
// measured piece by piece against count_tokens (see data/LICENSE for
// their origin and licence), and a count is rebuilt from them in four
// steps: the text is normalized (NFC, and in the claude-3 family curly
// quotes folded); it is rewritten into a marked stream, with word-start
// and word-end markers and case markers; the stream is covered by a
// minimum number of vocabulary pieces, a character no piece covers
// costing the fewest of its UTF-8 byte prefixes; and the message frame is
// added.
package claude

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/tokens/internal/slotcache"
)

// Tokenizer names.
const (
	Claude3  = "claude-3"   // Claude 3 through Opus 4.6
	Claude47 = "claude-4.7" // Opus 4.7 through 4.9
	Claude5  = "claude-5"   // Opus 5 and Sonnet 5
	Newest   = "claude"     // the newest family: Claude5
)

// Names lists the tokenizer names New accepts, the newest alias first.
var Names = []string{Newest, Claude3, Claude47, Claude5}

var (
	//go:embed data/v3.vocab.gz
	v3Data []byte
	//go:embed data/v4_7.vocab.gz
	v47Data []byte
)

// The vocabularies and families of the package. A vocabulary's tables
// are built on the first count that needs them.
var (
	v3Vocab  = &vocabulary{data: v3Data}
	v47Vocab = &vocabulary{data: v47Data}

	claude3  = &family{name: Claude3, vocab: v3Vocab, frameBow: true, frameTail: tailLadder}
	claude47 = &family{name: Claude47, vocab: v47Vocab, frameBow: true, frameTail: tailLadder}
	// Claude 5 reads the claude-4.7 vocabulary through another frame: a
	// shorter one that ends in no word start and absorbs all trailing
	// whitespace.
	claude5 = &family{name: Claude5, vocab: v47Vocab, overhead: 6, frameTail: tailFree}
)

// Counter counts Claude tokens in one family. It is safe for concurrent
// use.
type Counter struct{ f *family }

// New returns the counter of a tokenizer name from Names.
func New(name string) (*Counter, bool) {
	switch name {
	case Claude3:
		return &Counter{claude3}, true
	case Claude47:
		return &Counter{claude47}, true
	case Claude5, Newest:
		return &Counter{claude5}, true
	}
	return nil, false
}

// Name returns the family's tokenizer name.
func (c *Counter) Name() string { return c.f.name }

// MessageOverhead returns the tokens count_tokens adds to one user
// message around its text.
func (c *Counter) MessageOverhead() int {
	if c.f.overhead != 0 {
		return c.f.overhead
	}
	return c.f.load().overhead
}

// CountMessage returns the input_tokens count_tokens reports for text
// sent as one user message: the text's tokens and the message frame.
func (c *Counter) CountMessage(text string) int {
	return c.Count(text) + c.MessageOverhead()
}

// Count returns the tokens text adds as the content of a message: the
// message count less the frame.
func (c *Counter) Count(text string) int { return c.f.count(text) }

// CountSpans returns the count of text and the count of each byte span
// of it, each span counted as a text of its own.
func (c *Counter) CountSpans(text string, spans [][2]int) (int, []int) {
	total := c.Count(text)
	if len(spans) == 0 {
		return total, nil
	}
	per := make([]int, len(spans))
	for i, s := range spans {
		lo, hi := max(0, s[0]), min(len(text), s[1])
		if lo < hi {
			per[i] = c.Count(text[lo:hi])
		}
	}
	return total, per
}

// Frame tail shapes.
const (
	// tailLadder: the frame appends two newlines after the content, and
	// one token may span content newlines into them, so trailing newlines
	// are nearly free.
	tailLadder = iota
	// tailFree: trailing whitespace of every kind costs nothing.
	tailFree
)

type family struct {
	name      string
	vocab     *vocabulary
	overhead  int  // the frame's tokens; 0 takes the vocabulary's
	frameBow  bool // the frame ends in a word start, which absorbs one leading space
	frameTail int
}

// vocabulary is one embedded vocabulary, parsed on first use.
type vocabulary struct {
	data []byte
	once sync.Once
	t    *tables
	err  error
}

// tables is what counting in a vocabulary needs.
type tables struct {
	chars       *charTable
	pieces      *trie
	bytePieces  map[string]struct{} // the partial UTF-8 byte tokens
	newlineRuns []int               // the lengths of the newline-run pieces
	overhead    int
	foldQuotes  bool
	allcapsMin  int
	// The tiling costs of chunks: of the short ones inline, of the
	// others up to maxCachedChunk bytes by pointer.
	small *slotcache.Small
	cache *slotcache.Cache[int]
}

type vocabFile struct {
	Family          string   `json:"family"`
	MessageOverhead int      `json:"message_overhead"`
	FoldQuotes      bool     `json:"fold_quotes"`
	AllcapsMin      int      `json:"allcaps_min"`
	Pieces          int      `json:"pieces"`
	Nodes           int      `json:"nodes"`
	BytePieces      []string `json:"byte_pieces"`
}

func (v *vocabulary) load() (*tables, error) {
	v.once.Do(func() { v.t, v.err = parse(v.data) })
	return v.t, v.err
}

func parse(data []byte) (*tables, error) {
	raw, err := gunzip(data)
	if err != nil {
		return nil, fmt.Errorf("claude vocabulary: %w", err)
	}
	// A line of JSON with the scalars, then the trie of the pieces as gen
	// writes it.
	head, body, ok := bytes.Cut(raw, []byte("\n"))
	if !ok {
		return nil, fmt.Errorf("claude vocabulary: no header line")
	}
	var vf vocabFile
	if err := json.Unmarshal(head, &vf); err != nil {
		return nil, fmt.Errorf("claude vocabulary: %w", err)
	}
	trie, err := readTrie(body, vf.Nodes, vf.Pieces)
	if err != nil {
		return nil, fmt.Errorf("claude vocabulary: %w", err)
	}
	t := &tables{
		chars:      newCharTable(),
		pieces:     trie,
		bytePieces: make(map[string]struct{}, len(vf.BytePieces)),
		overhead:   vf.MessageOverhead,
		foldQuotes: vf.FoldQuotes,
		allcapsMin: vf.AllcapsMin,
		small:      slotcache.NewSmall(1 << 15),
		cache:      slotcache.New[int](1 << 16),
	}
	for _, h := range vf.BytePieces {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("claude vocabulary: byte piece %q: %w", h, err)
		}
		t.bytePieces[string(b)] = struct{}{}
	}
	// The newline-run pieces, which the frame's tail is tiled with, end
	// on the path of newlines from the root.
	for n, k := trie.next(0, '\n'), 1; n > 0; n, k = trie.next(n, '\n'), k+1 {
		if trie.nodes[n].terminal {
			t.newlineRuns = append(t.newlineRuns, k)
		}
	}
	return t, nil
}

// gunzip returns the decompressed data, read into a buffer of the size
// the gzip trailer gives.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	size := 0
	if len(data) >= 4 {
		size = int(binary.LittleEndian.Uint32(data[len(data)-4:]))
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(size, 64<<20)+1))
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// load returns the family's vocabulary tables. The vocabularies are
// part of the binary, so one that does not parse is a broken build, which
// the package's tests catch.
func (f *family) load() *tables {
	t, err := f.vocab.load()
	if err != nil {
		panic(err)
	}
	return t
}

// chunkSafe checks what tileChunks rests on: markers stand in a piece
// only as case markers and a word start at its head and a word end at its
// tail.
func chunkSafe(p string) error {
	i := 0
	for i < len(p) && (p[i] == shift || p[i] == caps) {
		i++
	}
	if i < len(p) && p[i] == bow {
		i++
	}
	body := strings.TrimSuffix(p[i:], string(rune(eow)))
	if strings.ContainsFunc(body, func(r rune) bool { return r >= bow && r <= caps }) {
		return fmt.Errorf("claude vocabulary: piece %q holds a marker inside", p)
	}
	return nil
}
