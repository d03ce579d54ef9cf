package tokens

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/ctxls/ctxls/providers/tokens/internal/slotcache"
)

// exactCases are texts on which the splitter is most likely to differ from
// the split pattern; they also seed the fuzz target.
var exactCases = []string{
	"",
	"hello world",
	"# Title\r\n\r\nSome text.\r\n",
	"line one\nline two\n\n\n   indented\n\t\ttabbed\n",
	"trailing spaces   \n  \n\t \n",
	"\n \n", "\n\n \n\n", " \n \n\r\n  \n\t\n x", "\u2028 \n\u0085\n\v\n ",
	"ends in spaces   ",
	"   ",
	" \t \u00a0 \u3000 x",
	"\r\r\n\n \r x",
	"12345678 1234567890123 ٣٤٥٦ Ⅻ ½¾ 1.5e10",
	"DON'T it's we'RE you'Ve I'M they'LL he'D 's 'S 't 'll 'LL 'lL 're 'x ''s",
	"John'ſ o'ſ 'ſ John'ſon 'ſa it'sx 'lla 'vex 're'll 'LLama a'ſ'tion",
	"CamelCase HTTPServer iPhone ÉCOLE Ǆemal ǅungla ǆ",
	"emoji 😀😃 👍🏽 👨‍👩‍👧 🇫🇷 ❤️",
	"CJK 東京は日本の首都です。中文测试，한국어 텍스트",
	"Arabic مرحبا بالعالم، هذا اختبار. עברית",
	"combining e\u0301 a\u0300\u0301 \u0301start x\u20dd ̈ABC a\u0301B",
	"मराठी हिन्दी தமிழ் ไทย",
	"invalid \xff\xfe bytes \xc3 \xe2\x82 \xed\xa0\x80 end\xff",
	"\xff",
	"a\x7fb \x7f\x7f !\x7f! \x7f",
	"ʰʲ ˈstress ᵃ ⁿ ꜟ",
	"code `x := y[1:3]` and `Depends()`; a/b//c\n/path/to/file.go:12\n",
	"--- | --- | ---\n|a|b|\n\n***\n> quote\n- item\n  - nested\n",
	"mixed\u0085next\u2028line\u2029para\v\f",
	"\x00\x01 control \x1b[0m",
	"$$ \\frac{a}{b} $$ <div class=\"x\">&amp;</div>",
	"!!!???... ,,, ;;; --> <!-- -->\r\n\r\n",
	strings.Repeat("a", 300) + " " + strings.Repeat("ab ", 40) + strings.Repeat(" ", 100) + "x",
	strings.Repeat("-", 200) + "\n" + strings.Repeat("=", 70),
	strings.Repeat("Pneumonoultramicroscopic", 20) + " " + strings.Repeat("\xffé", 150),
}

// categoryRunes returns a few runes of every Unicode category and script
// range, so that each class the patterns use is exercised.
func categoryRunes() []rune {
	var rs []rune
	add := func(t *unicode.RangeTable) {
		for _, r := range t.R16 {
			rs = append(rs, rune(r.Lo), rune(r.Hi))
		}
		for _, r := range t.R32 {
			rs = append(rs, rune(r.Lo), rune(r.Hi))
		}
	}
	for _, t := range unicode.Categories {
		add(t)
	}
	add(unicode.White_Space)
	for r := rune(0); r < 0x300; r++ {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

// runeContexts places every rune of categoryRunes in contexts that reach
// each alternative of the patterns, a few hundred runes per text.
func runeContexts() []string {
	rs := categoryRunes()
	var texts []string
	for len(rs) > 0 {
		n := min(len(rs), 200)
		var sb strings.Builder
		for _, r := range rs[:n] {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			c := string(r)
			sb.WriteString("a" + c + "b " + c + c + "A " + c + "'s" + c + "1" + c + c + c + "! " + c + " \n" + c + "  " + c + "\t")
		}
		texts = append(texts, sb.String())
		rs = rs[n:]
	}
	return texts
}

// exampleLibrary returns the texts of the example library's files.
func exampleLibrary(t *testing.T) []string {
	t.Helper()
	var texts []string
	err := filepath.WalkDir("../../examples/library", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		texts = append(texts, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) == 0 {
		t.Fatal("no example library files")
	}
	return texts
}

// referenceStarts returns the offset in text at which each token tiktoken-go
// encodes text into starts. Its tokens spell invalid bytes as U+FFFD and
// leave out the runes the pattern skips, so they are aligned with the text
// rune by rune.
func referenceStarts(t testing.TB, enc *codec.Codec, text string) []int {
	_, toks, err := enc.Encode(text)
	if err != nil {
		t.Fatal(err)
	}
	// spelled is text as the codec sees it; at maps its offsets to text's.
	var sb strings.Builder
	var at []int
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		n := sb.Len()
		sb.WriteRune(r)
		for k := range sb.Len() - n {
			if w == 1 {
				k = 0 // an invalid byte spelled as U+FFFD
			}
			at = append(at, i+k)
		}
		i += w
	}
	at = append(at, len(text))
	spelled := sb.String()
	starts := make([]int, 0, len(toks))
	pos := 0
	for _, tok := range toks {
		for !strings.HasPrefix(spelled[pos:], tok) {
			r, w := utf8.DecodeRuneInString(spelled[pos:])
			if r != 0x7f {
				t.Fatalf("token %q does not follow offset %d of %q", tok, at[pos], text)
			}
			pos += w
		}
		// A token may start inside a multi-byte rune; one that starts
		// inside the U+FFFD standing for an invalid byte starts at the byte.
		s := at[pos]
		starts = append(starts, s)
		pos += len(tok)
	}
	return starts
}

// reference returns tiktoken-go's codec of an encoding, made once.
var reference = func() func(name string) *codec.Codec {
	codecs := map[string]func() *codec.Codec{
		O200kBase:  sync.OnceValue(codec.NewO200kBase),
		Cl100kBase: sync.OnceValue(codec.NewCl100kBase),
	}
	return func(name string) *codec.Codec { return codecs[name]() }
}()

// TestRanksMatchTiktoken checks the embedded vocabularies against
// tiktoken-go's, rank by rank.
func TestRanksMatchTiktoken(t *testing.T) {
	t.Parallel()
	for _, c := range bpeCounters(t) {
		v := c.vocab()
		n := 0
		for r := range uint32(len(v.start) + 1000) {
			want, err := reference(c.name).Decode([]uint{uint(r)})
			got, ok := "", false
			if int(r) < len(v.start) {
				got = v.token(r)
				ok = got != "" && v.rank(got) == r
			}
			if err == nil {
				n++
			}
			if ok != (err == nil) || got != want {
				t.Fatalf("%s: rank %d is %q (%v), tiktoken-go %q (%v)", c.name, r, got, ok, want, err)
			}
		}
		if n != v.len() {
			t.Errorf("%s: %d tokens, tiktoken-go %d", c.name, v.len(), n)
		}
		for _, s := range []string{"", "\x00\x00\x00\x00\x00\x00\x00\x00", "not one token at all"} {
			if r := v.rank(s); r != noRank {
				t.Errorf("%s: %q has rank %d", c.name, s, r)
			}
		}
	}
}

// checkExact fails t unless c counts text exactly as tiktoken-go does.
func checkExact(t testing.TB, c *bpe, text string) {
	want := referenceStarts(t, reference(c.name), text)
	if got := c.Count(text); got != len(want) {
		t.Fatalf("%s: Count(%.200q) = %d, tiktoken-go %d", c.name, text, got, len(want))
	}
	if got := c.tokenStarts(text); !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%s: token %d of %.200q starts at %d, tiktoken-go %d (%d tokens, want %d)", c.name, i, text, got[i], want[i], len(got), len(want))
			}
		}
		t.Fatalf("%s: %.200q has %d token starts, tiktoken-go %d", c.name, text, len(got), len(want))
	}
	// Spans: halves, thirds and the whole.
	n := len(text)
	spans := [][2]int{{0, n / 2}, {n / 2, n}, {n / 3, 2 * n / 3}, {0, n}}
	total, per := c.CountSpans(text, spans)
	if total != len(want) {
		t.Fatalf("%s: CountSpans total %d, tiktoken-go %d", c.name, total, len(want))
	}
	for i, s := range spans {
		lo, hi := sort.SearchInts(want, s[0]), sort.SearchInts(want, s[1])
		if per[i] != hi-lo {
			t.Fatalf("%s: span %v of %.200q has %d tokens, tiktoken-go %d", c.name, s, text, per[i], hi-lo)
		}
	}
}

func bpeCounters(t testing.TB) []*bpe {
	var cs []*bpe
	for _, name := range []string{O200kBase, Cl100kBase} {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c.(*bpe))
	}
	return cs
}

func TestCountMatchesTiktoken(t *testing.T) {
	t.Parallel()
	corpora := []struct {
		name  string
		texts func(t *testing.T) []string
	}{
		{"cases", func(*testing.T) []string { return exactCases }},
		{"runes", func(*testing.T) []string { return runeContexts() }},
		{"example library", exampleLibrary},
		{"example library CRLF", func(t *testing.T) []string {
			var texts []string
			for _, s := range exampleLibrary(t) {
				texts = append(texts, strings.ReplaceAll(s, "\n", "\r\n"))
			}
			return texts
		}},
		{"generated", func(t *testing.T) []string {
			// A slice of the benchmark text keeps the test quick.
			text := benchMarkdown(t)
			return []string{text[:min(len(text), 200_000)]}
		}},
	}
	for _, corpus := range corpora {
		t.Run(corpus.name, func(t *testing.T) {
			t.Parallel()
			texts := corpus.texts(t)
			for _, c := range bpeCounters(t) {
				for _, text := range texts {
					checkExact(t, c, text)
				}
			}
		})
	}
}

// TestCountConcurrent counts on several goroutines at once, sharing the
// piece cache, and expects the counts of one goroutine alone.
func TestCountConcurrent(t *testing.T) {
	t.Parallel()
	texts := append(exampleLibrary(t), exactCases...)
	for _, shared := range bpeCounters(t) {
		// An empty cache, so that goroutines race to fill it.
		c := *shared
		c.cache = slotcache.New[string](1 << 17)
		want := make([]int, len(texts))
		for i, text := range texts {
			want[i] = len(referenceStarts(t, reference(c.name), text))
		}
		var wg sync.WaitGroup
		errs := make(chan string, 4*len(texts))
		for g := range 4 {
			wg.Go(func() {
				for k := range texts {
					i := (k + g*len(texts)/4) % len(texts)
					if got := c.Count(texts[i]); got != want[i] {
						errs <- fmt.Sprintf("%s: text %d: Count = %d, want %d", c.name, i, got, want[i])
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range exactCases {
		f.Add(s)
	}
	cs := bpeCounters(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range cs {
			checkExact(t, c, text)
		}
	})
}
