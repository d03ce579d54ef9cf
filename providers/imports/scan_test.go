package imports

import (
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

func TestScan(t *testing.T) {
	t.Parallel()
	type imp struct {
		Path, Trailing string
	}
	tests := []struct {
		name string
		text string
		want []imp
	}{
		{"start of text", "@a.md", []imp{{"a.md", ""}}},
		{"mid sentence", "see @docs/a.md for more", []imp{{"docs/a.md", ""}}},
		{"several on a line", "@a.md and @b.md", []imp{{"a.md", ""}, {"b.md", ""}}},
		{"after a newline", "x\n@a.md", []imp{{"a.md", ""}}},
		{"e-mail is no import", "write to me@example.com", nil},
		{"inside a word", "foo@bar.md", nil},
		{"after a bracket", "[@a.md](@b.md)", nil},
		{"after emphasis", "**@a.md**", nil},
		{"code span", "use `@a.md` here", nil},
		{"double backtick span", "use ``x @a.md y`` here", nil},
		{"after a code span", "`x` @a.md", []imp{{"a.md", ""}}},
		{"fence", "```\n@a.md\n```\n@b.md", []imp{{"b.md", ""}}},
		{"tilde fence", "~~~md\n@a.md\n~~~\n", nil},
		{"unclosed backtick does not hide later paragraphs", "a ` b\n\n@a.md", []imp{{"a.md", ""}}},
		{"frontmatter", "---\npaths: \"@x\"\n---\n@a.md", []imp{{"a.md", ""}}},
		{"colon", "see @a.md: then", []imp{{"a.md:", ":"}}},
		{"comma", "@a.md, @b.md", []imp{{"a.md,", ","}, {"b.md", ""}}},
		{"semicolon", "@a.md;", []imp{{"a.md;", ";"}}},
		{"parenthesis", "(see @a.md)", []imp{{"a.md)", ")"}}},
		{"several marks", "(see @a.md):", []imp{{"a.md):", "):"}}},
		{"period is part of the name", "@a.md.", []imp{{"a.md.", ""}}},
		{"escaped space", `@my\ notes.md`, []imp{{"my notes.md", ""}}},
		{"home", "@~/x.md", []imp{{"~/x.md", ""}}},
		{"absolute", "@/etc/x.md", []imp{{"/etc/x.md", ""}}},
		{"relative dot", "@./x.md @../y.md", []imp{{"./x.md", ""}, {"../y.md", ""}}},
		{"not paths", "@#x @%x @@x @(x @* @ x @/ @~x @:", nil},
		{"mention", "ask @alice", []imp{{"alice", ""}}},
		{"non-breaking space before", "see\u00a0@a.md", []imp{{"a.md", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := document.Parse("/p/CLAUDE.md", []byte(tt.text))
			var got []imp
			for _, im := range Scan(doc) {
				got = append(got, imp{im.Path, im.Trailing})
				// The span covers exactly '@' and the path as written.
				if s := string(doc.Text[im.Span.Start:im.Span.End]); s[0] != '@' {
					t.Errorf("span %q does not start at '@'", s)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Scan(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestScanSpans(t *testing.T) {
	t.Parallel()
	text := "# T\n\nsee @docs/a.md: now\n"
	doc := document.Parse("/p/CLAUDE.md", []byte(text))
	ims := Scan(doc)
	if len(ims) != 1 {
		t.Fatalf("got %d imports, want 1", len(ims))
	}
	im := ims[0]
	if got := text[im.Span.Start:im.Span.End]; got != "@docs/a.md:" {
		t.Errorf("span covers %q, want %q", got, "@docs/a.md:")
	}
	if got := text[im.PathSpan().Start:im.PathSpan().End]; got != "docs/a.md" {
		t.Errorf("path span covers %q, want %q", got, "docs/a.md")
	}
	if im.Clean() != "docs/a.md" {
		t.Errorf("Clean() = %q", im.Clean())
	}
}
