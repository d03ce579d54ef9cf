package present

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// byteCounter counts one token per byte of each span, and only for the
// first max spans when max is not negative.
type byteCounter struct{ max int }

func (byteCounter) Name() string          { return "bytes" }
func (byteCounter) Count(text string) int { return len(text) }
func (c byteCounter) CountSpans(text string, spans [][2]int) (int, []int) {
	var per []int
	for i, s := range spans {
		if c.max >= 0 && i >= c.max {
			break
		}
		per = append(per, s[1]-s[0])
	}
	return len(text), per
}

// render writes an outline one heading a line, indented by depth, with
// its spans' text.
func render(b *strings.Builder, text string, hs []Heading, depth int) {
	for _, h := range hs {
		fmt.Fprintf(b, "%s%s %d %q %d\n", strings.Repeat("  ", depth), h.Name, h.Tokens, text[h.Heading.Start:h.Heading.End], h.Content.Len())
		render(b, text, h.Children, depth+1)
	}
}

func TestOutline(t *testing.T) {
	t.Parallel()
	const text = "# Title\n\n## A\n\ntext\n\n### A1\n\nmore\n\n#### A1a\n\n## B\n\nend\n"
	doc := document.Parse("/x/t.md", []byte(text))
	measured := "A 7 \"## A\" 36\n  A1 8 \"### A1\" 24\n    A1a 9 \"#### A1a\" 10\nB 10 \"## B\" 10\n"
	counted := "A 36 \"## A\" 36\n  A1 24 \"### A1\" 24\n    A1a 10 \"#### A1a\" 10\nB 10 \"## B\" 10\n"
	var secs []library.Section
	for i, s := range doc.Sections() {
		secs = append(secs, library.Section{Name: s.Text, Level: s.Level, Heading: s.Span, Content: s.Content, Tokens: 7 + i})
	}
	topic := &library.Topic{Doc: doc, Sections: secs}
	edited := document.Parse("/x/t.md", []byte(text+"\n"))
	tests := []struct {
		name    string
		doc     *document.Doc
		topic   *library.Topic
		counter byteCounter
		want    string
	}{
		{"topic in sync: measured sections", doc, topic, byteCounter{-1}, measured},
		{"no topic: counted", doc, nil, byteCounter{-1}, counted},
		{"topic edited since: counted", edited, topic, byteCounter{-1}, strings.Replace(counted, "B 10 \"## B\" 10", "B 11 \"## B\" 11", 1)},
		{"counter short of spans", doc, nil, byteCounter{1}, "A 36 \"## A\" 36\n  A1 0 \"### A1\" 24\n    A1a 0 \"#### A1a\" 10\nB 0 \"## B\" 10\n"},
		{"no sections", document.Parse("/x/u.md", []byte("# Only a title\n\ntext\n")), nil, byteCounter{-1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			render(&b, string(tc.doc.Text), Outline(tc.doc, tc.topic, tc.counter), 0)
			if b.String() != tc.want {
				t.Errorf("Outline =\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestOutlineNesting(t *testing.T) {
	t.Parallel()
	// Levels 3, 2, 4, 4, 3, 2: a deeper first heading stays at the top.
	var secs []library.Section
	for i, l := range []int{3, 2, 4, 4, 3, 2} {
		secs = append(secs, library.Section{Name: fmt.Sprint("s", i), Level: l})
	}
	secs[3].Name = "  "
	doc := document.Parse("/x/t.md", nil)
	got := Outline(doc, &library.Topic{Doc: doc, Sections: secs}, byteCounter{-1})
	var b strings.Builder
	var walk func(hs []Heading, depth int)
	walk = func(hs []Heading, depth int) {
		for _, h := range hs {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(".", depth), h.Name)
			walk(h.Children, depth+1)
		}
	}
	walk(got, 0)
	if want := "s0\ns1\n.s2\n.(untitled)\n.s4\ns5\n"; b.String() != want {
		t.Errorf("Outline =\n%s\nwant\n%s", b.String(), want)
	}
}
