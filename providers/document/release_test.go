package document

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// diskSource reads files as a library does, a larger file than the limit
// counting as changed, and counts the changes it learns of.
type diskSource struct{ changed *atomic.Int32 }

func (s diskSource) Changed(string) {
	if s.changed != nil {
		s.changed.Add(1)
	}
}

func (diskSource) ReadText(_ context.Context, p string, limit int64) ([]byte, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew: %w", p, ErrChanged)
	}
	return data, nil
}

const releaseText = "\xEF\xBB\xBF---\r\ntitle: \"Café ☕\"\r\nkeywords: [a, b]\r\n---\r\n# Tïtle\r\n\r\n" +
	"## Sec 𝄞 one\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\nline\n" +
	"```go\ncode\n```\n## Two\nlast line without newline é"

func writeRelease(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "topic.md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReleaseReadsBackTheSameAnswers(t *testing.T) {
	t.Parallel()
	p := writeRelease(t, releaseText)
	held := Parse(p, []byte(releaseText))
	rel := Parse(p, []byte(releaseText))
	rel.Release(diskSource{})
	if rel.Text != nil || !rel.Released() || rel.Len() != len(held.Text) {
		t.Fatalf("after Release: Text %q, Released %v, Len %d; want nil, true, %d", rel.Text, rel.Released(), rel.Len(), len(held.Text))
	}
	got, err := rel.Content(context.Background())
	if err != nil || string(got) != string(held.Text) {
		t.Fatalf("Content = %q, %v; want %q", got, err, held.Text)
	}
	if !rel.SameString(string(held.Text)) || rel.SameString(string(held.Text[1:])) || !held.SameString(string(held.Text)) ||
		!rel.SameText(held.Text) || rel.SameText(append([]byte("x"), held.Text[1:]...)) || rel.Fingerprint() != held.Fingerprint() {
		t.Error("SameText or Fingerprint disagree with the held text")
	}
	for off := -1; off <= len(held.Text)+1; off++ {
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			if g, w := rel.Lines.Position(off, enc), held.Lines.Position(off, enc); g != w {
				t.Fatalf("Position(%d, %v) = %v, want %v", off, enc, g, w)
			}
		}
		if g, w := rel.Lines.LineOf(off), held.Lines.LineOf(off); g != w {
			t.Fatalf("LineOf(%d) = %d, want %d", off, g, w)
		}
		s := Span{off, off + 7}
		if g, w := string(rel.Slice(s)), string(held.Slice(s)); g != w {
			t.Fatalf("Slice(%v) = %q, want %q", s, g, w)
		}
		if g, w := rel.Lines.Range(s, UTF16), held.Lines.Range(s, UTF16); g != w {
			t.Fatalf("Range(%v) = %v, want %v", s, g, w)
		}
	}
	for n := -1; n <= held.Lines.Count(); n++ {
		if rel.Lines.Start(n) != held.Lines.Start(n) || rel.Lines.End(n) != held.Lines.End(n) || string(rel.Lines.Line(n)) != string(held.Lines.Line(n)) {
			t.Fatalf("line %d: released %d-%d %q, held %d-%d %q", n, rel.Lines.Start(n), rel.Lines.End(n), rel.Lines.Line(n), held.Lines.Start(n), held.Lines.End(n), held.Lines.Line(n))
		}
		for c := range 8 {
			pos := Position{Line: n, Character: c}
			g, gerr := rel.Lines.Offset(pos, UTF16)
			w, werr := held.Lines.Offset(pos, UTF16)
			if g != w || (gerr == nil) != (werr == nil) {
				t.Fatalf("Offset(%v) = %d, %v; want %d, %v", pos, g, gerr, w, werr)
			}
		}
	}
	h, err := rel.Held(context.Background())
	if err != nil || string(h.Text) != string(held.Text) || h.Released() || !rel.Released() || h.Lines.Position(60, UTF16) != held.Lines.Position(60, UTF16) {
		t.Errorf("Held = %v, %v; want a copy holding the text", h, err)
	}
	title, _ := held.Frontmatter.Field("title")
	rtitle, _ := rel.Frontmatter.Field("title")
	if g, w := rel.NodeSpan(rtitle), held.NodeSpan(title); g != w || g == (Span{}) {
		t.Errorf("NodeSpan(title) = %v, want %v", g, w)
	}
	if len(rel.Sections()) != 2 || rel.Sections()[1].Content != held.Sections()[1].Content {
		t.Errorf("Sections = %v, want %v", rel.Sections(), held.Sections())
	}
}

func TestReleaseRefusesAChangedOrMissingText(t *testing.T) {
	t.Parallel()
	same := []byte(releaseText)
	same[len(same)-3] = 'X' // same length, other bytes
	tests := []struct {
		name    string
		change  func(p string) error
		changed bool
	}{
		{"same length", func(p string) error { return os.WriteFile(p, same, 0o644) }, true},
		{"grown", func(p string) error { return os.WriteFile(p, []byte(releaseText+"\nmore"), 0o644) }, true},
		{"shrunk", func(p string) error { return os.WriteFile(p, []byte(releaseText[:40]), 0o644) }, true},
		{"byte order mark removed", func(p string) error { return os.WriteFile(p, []byte(releaseText[3:]), 0o644) }, true},
		{"removed", os.Remove, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := writeRelease(t, releaseText)
			d := Parse(p, []byte(releaseText))
			var changed atomic.Int32
			d.Release(diskSource{&changed})
			if err := tt.change(p); err != nil {
				t.Fatal(err)
			}
			_, err := d.Content(context.Background())
			if err == nil || errors.Is(err, ErrChanged) != tt.changed {
				t.Fatalf("Content error = %v; want one wrapping ErrChanged: %v", err, tt.changed)
			}
			if tt.changed && changed.Load() != 1 {
				t.Errorf("the source learned of the change %d times, want once", changed.Load())
			}
			if _, err := d.Held(context.Background()); err == nil {
				t.Error("Held gave no error")
			}
			if b := d.Slice(Span{0, 5}); b != nil {
				t.Errorf("Slice = %q, want nil", b)
			}
			if _, err := d.Lines.Offset(Position{Line: 3}, UTF16); err == nil {
				t.Error("Offset gave no error")
			}
			// The coarse answers without the text stay within the document.
			for off := -1; off <= d.Len()+1; off++ {
				if pos := d.Lines.Position(off, UTF16); pos.Line < 0 || pos.Line >= d.Lines.Count() || pos.Character != 0 {
					t.Fatalf("Position(%d) = %v", off, pos)
				}
			}
			for n := range d.Lines.Count() {
				if s, e := d.Lines.Start(n), d.Lines.End(n); s < 0 || e < s || e > d.Len() || d.Lines.Line(n) != nil {
					t.Fatalf("line %d: %d-%d %q", n, s, e, d.Lines.Line(n))
				}
			}
			title, _ := d.Frontmatter.Field("title")
			if s := d.NodeSpan(title); s != (Span{}) {
				t.Errorf("NodeSpan = %v, want the zero span", s)
			}
		})
	}
}

// keepingSource keeps one text and counts the reads.
type keepingSource struct {
	diskSource
	reads int
	doc   *Doc
	text  []byte
}

func (s *keepingSource) ReadText(ctx context.Context, p string, limit int64) ([]byte, error) {
	s.reads++
	return s.diskSource.ReadText(ctx, p, limit)
}

func (s *keepingSource) Kept(d *Doc) []byte {
	if d == s.doc {
		return s.text
	}
	return nil
}

func (s *keepingSource) Keep(d *Doc, text []byte) { s.doc, s.text = d, text }

func TestReleaseKeepsWhatItReadBack(t *testing.T) {
	t.Parallel()
	p := writeRelease(t, releaseText)
	d := Parse(p, []byte(releaseText))
	src := &keepingSource{}
	d.Release(src)
	for off := range d.Len() {
		d.Lines.Position(off, UTF16)
	}
	if src.reads != 1 {
		t.Errorf("%d reads for %d positions, want 1", src.reads, d.Len())
	}
	// A changed file is not read again while its checked text is kept:
	// the answers stay those of the text the offsets belong to.
	if err := os.WriteFile(p, []byte("# Other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Content(context.Background()); err != nil || string(got) != releaseText[3:] {
		t.Errorf("Content = %q, %v; want the kept text", got, err)
	}
}
