package present

import (
	"strings"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Heading is a section of a document's outline with its token cost and
// the sections nested in it.
type Heading struct {
	// Name is the heading's text, or "(untitled)" when it has none.
	Name string
	// Heading is the span of the heading line; Content is the span of the
	// section it opens.
	Heading, Content document.Span
	// Tokens is the cost of the section.
	Tokens int
	// Children are the deeper sections the section holds.
	Children []Heading
}

// Outline returns the sections of doc as a tree with their token costs:
// the measured sections of topic t when doc has t's text, else doc's
// headings measured with counter. t may be nil.
func Outline(doc *document.Doc, t *library.Topic, counter tokens.Counter) []Heading {
	var flat []Heading
	var levels []int
	if t != nil && doc.Len() == t.Doc.Len() {
		for _, sec := range t.Sections {
			flat = append(flat, Heading{Name: untitled(sec.Name), Heading: sec.Heading, Content: sec.Content, Tokens: sec.Tokens})
			levels = append(levels, sec.Level)
		}
	} else {
		secs := doc.Sections()
		spans := make([][2]int, len(secs))
		for i, sec := range secs {
			spans[i] = [2]int{sec.Content.Start, sec.Content.End}
		}
		_, per := counter.CountSpans(string(doc.Slice(document.Span{Start: 0, End: doc.Len()})), spans)
		for i, sec := range secs {
			n := 0
			if i < len(per) {
				n = per[i]
			}
			flat = append(flat, Heading{Name: untitled(sec.Text), Heading: sec.Span, Content: sec.Content, Tokens: n})
			levels = append(levels, sec.Level)
		}
	}
	out, _ := nest(flat, levels, 0, 0)
	return out
}

// nest arranges headings [i:] whose level is deeper than parent into a
// tree, returning them and the index of the first heading that is not.
func nest(hs []Heading, levels []int, i, parent int) ([]Heading, int) {
	var out []Heading
	for i < len(hs) && levels[i] > parent {
		h := hs[i]
		h.Children, i = nest(hs, levels, i+1, levels[i])
		out = append(out, h)
	}
	return out, i
}

// untitled names a heading without text.
func untitled(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(untitled)"
	}
	return s
}
