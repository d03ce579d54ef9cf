package document

import (
	"strings"
	"testing"
)

func TestPositionRoundTrip(t *testing.T) {
	t.Parallel()
	text := []byte("plain line\r\nemoji 😀 then python:x\n中文字 python:y\nlast")
	l := NewLines(text)
	tests := []struct {
		name   string
		needle string
		enc    Encoding
		want   Position
	}{
		{"ascii", "line", UTF16, Position{0, 6}},
		{"after emoji utf16", "python:x", UTF16, Position{1, 14}},
		{"after emoji utf8", "python:x", UTF8, Position{1, 16}},
		{"after emoji utf32", "python:x", UTF32, Position{1, 13}},
		{"after cjk utf16", "python:y", UTF16, Position{2, 4}},
		{"after cjk utf8", "python:y", UTF8, Position{2, 10}},
		{"last line", "last", UTF16, Position{3, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			off := strings.Index(string(text), tc.needle)
			got := l.Position(off, tc.enc)
			if got != tc.want {
				t.Fatalf("Position(%d) = %+v, want %+v", off, got, tc.want)
			}
			back, err := l.Offset(got, tc.enc)
			if err != nil || back != off {
				t.Fatalf("Offset(%+v) = %d, %v; want %d", got, back, err, off)
			}
		})
	}
}

func TestOffsetClampsAndRejects(t *testing.T) {
	t.Parallel()
	l := NewLines([]byte("ab😀\r\ncd"))
	if off, err := l.Offset(Position{0, 99}, UTF16); err != nil || off != 6 {
		t.Errorf("character past end: got %d, %v; want 6 (line end before CR)", off, err)
	}
	if off, _ := l.Offset(Position{0, 3}, UTF16); off != 2 {
		t.Errorf("inside surrogate pair: got %d, want 2", off)
	}
	if _, err := l.Offset(Position{5, 0}, UTF16); err == nil {
		t.Error("line beyond text: want error")
	}
	if _, err := l.Offset(Position{-1, 0}, UTF16); err == nil {
		t.Error("negative line: want error")
	}
	if p := l.Position(1000, UTF16); p != (Position{1, 2}) {
		t.Errorf("offset past end clamps: got %+v", p)
	}
}

func TestFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		text      string
		wantFM    bool
		wantErr   string
		wantLine  int
		wantTitle string
	}{
		{"valid", "---\nid: a/b\ntitle: T\n---\n# Head\n", true, "", 0, "Head"},
		{"crlf and bom", "\xEF\xBB\xBF---\r\nid: a/b\r\n---\r\n# Head\r\n", true, "", 0, "Head"},
		{"malformed", "---\nid: a/b\ntitle: a: b\n---\n# H\n", true, "mapping values are not allowed", 2, "H"},
		{"not a mapping", "---\n- a\n- b\n---\n", true, "mapping", 1, ""},
		{"unclosed", "---\nid: a\n# H\n", true, "not closed", 0, ""},
		{"thematic break", "---\nJust prose.\n", false, "", 0, ""},
		{"none", "# Only\n\ntext\n", false, "", 0, "Only"},
		{"empty", "", false, "", 0, ""},
		{"comment looks like heading", "---\nid: a/b\n## detectionTriggers: [x]\n---\n# T\n", true, "", 0, "T"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Parse("x.md", []byte(tc.text))
			if (d.Frontmatter != nil) != tc.wantFM {
				t.Fatalf("frontmatter present = %v, want %v", d.Frontmatter != nil, tc.wantFM)
			}
			if d.Title() != tc.wantTitle {
				t.Errorf("title = %q, want %q", d.Title(), tc.wantTitle)
			}
			for _, h := range d.Headings {
				if strings.Contains(h.Text, "detectionTriggers") {
					t.Errorf("YAML comment parsed as heading: %q", h.Text)
				}
			}
			if tc.wantErr == "" {
				if d.Frontmatter != nil && d.Frontmatter.Err != nil {
					t.Fatalf("unexpected error %v", d.Frontmatter.Err)
				}
				return
			}
			e := d.Frontmatter.Err
			if e == nil || !strings.Contains(e.Message, tc.wantErr) || e.Line != tc.wantLine {
				t.Fatalf("error = %+v, want %q on line %d", e, tc.wantErr, tc.wantLine)
			}
		})
	}
}

func TestNodeSpan(t *testing.T) {
	t.Parallel()
	text := "---\nid: \"python/fastapi\"\ncrossDomainTriggers: [security/x, 'a/b']\ntitle: Café ☕ ok\n---\n"
	d := Parse("x.md", []byte(text))
	_, id := d.Frontmatter.Field("id")
	if got := string(d.Slice(d.ValueSpan(id))); got != "python/fastapi" {
		t.Errorf("id value span = %q", got)
	}
	_, cdt := d.Frontmatter.Field("crossDomainTriggers")
	var got []string
	for n := range cdt.Items() {
		got = append(got, string(d.Slice(d.ValueSpan(n))))
	}
	if strings.Join(got, ",") != "security/x,a/b" {
		t.Errorf("sequence spans = %v", got)
	}
	_, title := d.Frontmatter.Field("title")
	if s := string(d.Slice(d.NodeSpan(title))); s != "Café ☕ ok" {
		t.Errorf("title span = %q", s)
	}
}

func TestSectionsAreFenceAware(t *testing.T) {
	t.Parallel()
	text := "# Title\n\n## One\ntext\n```sh\n## not a heading\n```\n### Sub\nmore\n## Two\nend\n~~~\n# unclosed fence\n"
	d := Parse("x.md", []byte(text))
	var names []string
	for _, s := range d.Sections() {
		names = append(names, s.Text)
	}
	if strings.Join(names, "|") != "One|Sub|Two" {
		t.Fatalf("sections = %v", names)
	}
	secs := d.Sections()
	one := string(d.Slice(secs[0].Content))
	if !strings.Contains(one, "### Sub") || strings.Contains(one, "## Two") {
		t.Errorf("section One = %q", one)
	}
	if len(d.Fences) != 2 || d.Fences[0].Info != "sh" {
		t.Errorf("fences = %+v", d.Fences)
	}
	if _, ok := d.InFence(strings.Index(text, "not a heading")); !ok {
		t.Error("offset inside fence not reported")
	}
	if _, ok := d.InFence(strings.Index(text, "more")); ok {
		t.Error("offset outside fence reported inside")
	}
}

func TestHeadingForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line  string
		level int
		text  string
		ok    bool
	}{
		{"## Security Issues", 2, "Security Issues", true},
		{"### Closing ###", 3, "Closing", true},
		{"#hashtag", 0, "", false},
		{"   # indented", 1, "indented", true},
		{"####### seven", 0, "", false},
		{"## C# tips", 2, "C# tips", true},
	}
	for _, tc := range tests {
		h, ok := parseHeading([]byte(tc.line), 0, 0)
		if ok != tc.ok || h.Level != tc.level || h.Text != tc.text {
			t.Errorf("%q: got %v %d %q", tc.line, ok, h.Level, h.Text)
		}
	}
}

func TestFooter(t *testing.T) {
	t.Parallel()
	text := "# T\n\nbody\n\n---\n\n**Version**: 0.3.0-alpha (Compacted)\n*Last Updated: 2026-02-10*\n**Maintained For**: python-code-review skill\n"
	f := Parse("x.md", []byte(text)).Footer
	want := Footer{Version: "0.3.0-alpha", LastUpdated: "2026-02-10", MaintainedFor: "python-code-review skill"}
	if f != want {
		t.Fatalf("footer = %+v, want %+v", f, want)
	}
	f = Parse("x.md", []byte("# T\n**Last Updated**: 2025-11-14\n")).Footer
	if f.LastUpdated != "2025-11-14" {
		t.Fatalf("bold form: %+v", f)
	}
}

func TestTables(t *testing.T) {
	t.Parallel()
	text := "## Web\n\n| Framework | Key Imports | Pattern Files to Load |\n|---|:---:|---|\n| **FastAPI** | `from fastapi import`<br/>`FastAPI()` | `fastapi_patterns.md` |\n| esc \\| pipe | b | c |\n\nafter\n"
	d := Parse("x.md", []byte(text))
	if len(d.Tables) != 1 {
		t.Fatalf("tables = %d", len(d.Tables))
	}
	tb := d.Tables[0]
	if len(tb.Header) != 3 || tb.Header[2].Text != "Pattern Files to Load" {
		t.Fatalf("header = %+v", tb.Header)
	}
	if len(tb.Rows) != 2 || tb.Rows[0][2].Text != "`fastapi_patterns.md`" {
		t.Fatalf("rows = %+v", tb.Rows)
	}
	if got := string(d.Slice(tb.Rows[0][2].Span)); got != tb.Rows[0][2].Text {
		t.Errorf("cell span text %q", got)
	}
	if tb.Rows[1][0].Text != `esc \| pipe` {
		t.Errorf("escaped pipe cell = %q", tb.Rows[1][0].Text)
	}
	spans := CodeSpans(d.Text, tb.Rows[0][1].Span)
	if len(spans) != 2 || string(d.Slice(spans[1])) != "FastAPI()" {
		t.Errorf("code spans = %v", spans)
	}
}

func TestCodeSpans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"a `b` c ``d`e`` f", []string{"b", "d`e"}},
		{"unmatched ` tick", nil},
		{"`x` and \\`y`", []string{"x"}},
	}
	for _, tc := range tests {
		var got []string
		for _, s := range CodeSpans([]byte(tc.in), Span{0, len(tc.in)}) {
			got = append(got, tc.in[s.Start:s.End])
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: got %q want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	t.Parallel()
	if !IsBinary([]byte("abc\x00def")) {
		t.Error("NUL byte not binary")
	}
	if IsBinary([]byte("# Título 中文 😀\n")) {
		t.Error("UTF-8 text reported binary")
	}
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(0x80 + i%64)
	}
	if !IsBinary(junk) {
		t.Error("invalid UTF-8 junk not binary")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nid: a\n---\n# T\n## S\n```\n## x\n```\n| a | b |\n|---|---|\n| `c` | d |\n"))
	f.Add([]byte("\xEF\xBB\xBF---\r\n: :\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Parse("f.md", data)
		for _, s := range d.Sections() {
			if s.Content.Start > s.Content.End || s.Content.End > len(d.Text) {
				t.Fatalf("bad section span %+v", s.Content)
			}
		}
		for i := 0; i <= len(d.Text); i += 7 {
			p := d.Lines.Position(i, UTF16)
			if _, err := d.Lines.Offset(p, UTF16); err != nil {
				t.Fatalf("offset of %+v: %v", p, err)
			}
		}
	})
}

func TestLinesStartEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		text   string
		starts []int
		ends   []int
	}{
		{"empty", "", []int{0}, []int{0}},
		{"no final newline", "ab\ncd", []int{0, 3}, []int{2, 5}},
		{"final newline", "ab\n", []int{0, 3}, []int{2, 3}},
		{"crlf", "ab\r\ncd\r\n", []int{0, 4, 8}, []int{2, 6, 8}},
		{"cr at end", "ab\r", []int{0}, []int{2}},
		{"empty lines", "\n\n", []int{0, 1, 2}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := NewLines([]byte(tt.text))
			if l.Count() != len(tt.starts) {
				t.Fatalf("Count() = %d, want %d", l.Count(), len(tt.starts))
			}
			for n := range tt.starts {
				if got := l.Start(n); got != tt.starts[n] {
					t.Errorf("Start(%d) = %d, want %d", n, got, tt.starts[n])
				}
				if got := l.End(n); got != tt.ends[n] {
					t.Errorf("End(%d) = %d, want %d", n, got, tt.ends[n])
				}
				if got := l.LineOf(tt.starts[n]); got != n {
					t.Errorf("LineOf(%d) = %d, want %d", tt.starts[n], got, n)
				}
			}
			if got, want := l.Start(len(tt.starts)), len(tt.text); got != want {
				t.Errorf("Start past the end = %d, want %d", got, want)
			}
		})
	}
}

func TestFrontmatterTreeReleased(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		fields     map[string]string // field → scalar value; nil: no root
	}{
		{"mapping", "---\nid: python/a\ntitle: A\n---\n# A\n", map[string]string{"id": "python/a", "title": "A"}},
		{"not a mapping", "---\n- a\n- b\n---\n# A\n", nil},
		{"broken", "---\nid: [a\n---\n# A\n", nil},
		{"none", "# A\n", nil},
	}
	for _, c := range cases {
		d := Parse("/w/a.md", []byte(c.text))
		fm := d.Frontmatter
		for _, released := range []bool{false, true} {
			if released {
				fm.ReleaseTree()
			}
			root := fm.Root()
			if root.Exists() != (c.fields != nil) {
				t.Errorf("%s (released %v): root = %v", c.name, released, root)
				continue
			}
			for k, want := range c.fields {
				if _, v := fm.Field(k); v.Value() != want {
					t.Errorf("%s (released %v): field %s = %v, want %q", c.name, released, k, v, want)
				}
				// Node positions still map into the document.
				if _, v := root.Field(k); string(d.Slice(d.ValueSpan(v))) != want {
					t.Errorf("%s (released %v): span of %s = %q", c.name, released, k, d.Slice(d.ValueSpan(v)))
				}
			}
		}
	}
}
