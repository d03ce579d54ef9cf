package tokens

import (
	"strings"
	"testing"
)

func TestCountKnownValues(t *testing.T) {
	t.Parallel()
	// Reference counts from OpenAI's tiktoken for the same strings.
	tests := []struct {
		enc  string
		text string
		want int
	}{
		{O200kBase, "hello world", 2},
		{Cl100kBase, "hello world", 2},
		{O200kBase, "", 0},
		{Estimate, "one two three", 4},
		{Estimate, "   ", 0},
	}
	for _, tc := range tests {
		c, err := New(tc.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Count(tc.text); got != tc.want {
			t.Errorf("%s.Count(%q) = %d, want %d", tc.enc, tc.text, got, tc.want)
		}
	}
}

func TestEncodingsDiffer(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("Déjà vu — 東京 rocks 😀. ", 50)
	o, _ := New(O200kBase)
	c, _ := New(Cl100kBase)
	if o.Count(text) == c.Count(text) {
		t.Errorf("o200k and cl100k gave the same count %d for multilingual text", o.Count(text))
	}
}

func TestCountSpansMatchesCount(t *testing.T) {
	t.Parallel()
	text := "# Title\n\n## One\nSome words here about FastAPI.\n\n## Two\nMore words, different ones 😀.\n"
	one := [2]int{strings.Index(text, "## One"), strings.Index(text, "## Two")}
	two := [2]int{strings.Index(text, "## Two"), len(text)}
	for _, name := range encodingNames {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		total, per := c.CountSpans(text, [][2]int{one, two, {0, len(text)}})
		if total != c.Count(text) {
			t.Errorf("%s: total %d != Count %d", name, total, c.Count(text))
		}
		if per[2] != total {
			t.Errorf("%s: whole span %d != total %d", name, per[2], total)
		}
		for i, s := range [][2]int{one, two} {
			alone := c.Count(text[s[0]:s[1]])
			if d := per[i] - alone; d < -2 || d > 2 {
				t.Errorf("%s: span %d counted %d in context, %d alone", name, i, per[i], alone)
			}
		}
	}
}

func TestUnknownEncoding(t *testing.T) {
	t.Parallel()
	if _, err := New("gpt2"); err == nil || !strings.Contains(err.Error(), "o200k_base") {
		t.Fatalf("err = %v", err)
	}
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	c, _ := New(O200kBase)
	text := "ok \xff\xfe bytes"
	total, per := c.CountSpans(text, [][2]int{{0, len(text)}})
	if total == 0 || per[0] != total {
		t.Fatalf("invalid UTF-8: total %d per %v", total, per)
	}
}

func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("## Security Issues\n\nUse `Depends()` for auth; bind SQL parameters.\n\n", 1000)
	for _, name := range encodingNames {
		c, _ := New(name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.Count(text)
			}
		})
	}
}
