package document

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// frontmatterSeeds are frontmatter texts worth starting from: the usual
// fields, and the shapes that have hurt YAML parsers.
var frontmatterSeeds = []string{
	"id: python/x\ntitle: X\ntype: reference\nestimatedTokens: 1200\nsections:\n  - name: A\n    tokens: 10\ntags: [a, b]\n",
	"a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n",
	"a: " + strings.Repeat("[", 50) + strings.Repeat("]", 50) + "\n",
	strings.Repeat("- ", 40) + "x\n",
	// Lines of nested "- ": yaml.v3 takes more than a second per megabyte
	// of these, the reason for maxFrontmatterSize.
	strings.Repeat(strings.Repeat("- ", 30)+"\n", 8),
	"id: \"a\x01b\"\r\ntitle: 'x'\r\n",
	"? [a, b]\n: c\n",
	"a: |\n  block\n  text\nb: >-\n  folded\n",
	"a: !!binary aGVsbG8=\nb: !custom x\n",
	"{a: 1, b: [2, {c: 3}]}\n",
	"- not\n- a mapping\n",
	"a:\n\t- tab\n",
	"id: x\nid: y\n",
}

// FuzzFrontmatter parses documents whose frontmatter is arbitrary text:
// the frontmatter and every node of its tree must map to spans inside the
// document, an error must name a line of it, and a tree is a mapping.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range frontmatterSeeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, yamlText string, crlf bool) {
		text := "---\n" + yamlText + "\n---\n# Title\n\n## Part\n\nBody.\n"
		if crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		d := Parse("f.md", []byte(text))
		fm := d.Frontmatter
		if fm == nil {
			if !strings.Contains(yamlText, "---") && !strings.Contains(yamlText, "...") && strings.Contains(yamlText, ":") {
				t.Fatalf("no frontmatter found in %q", text)
			}
			return
		}
		if fm.Span.Start != 0 || fm.Span.End > len(d.Text) || fm.Content.Start < fm.Span.Start || fm.Content.End > fm.Span.End || fm.Content.Start > fm.Content.End {
			t.Fatalf("frontmatter spans %+v %+v in %d bytes", fm.Span, fm.Content, len(d.Text))
		}
		if d.Body.Start != fm.Span.End {
			t.Fatalf("body starts at %d, frontmatter ends at %d", d.Body.Start, fm.Span.End)
		}
		if fm.Err != nil && (fm.Err.Line < 0 || fm.Err.Line >= d.Lines.Count()) {
			t.Fatalf("error on line %d of %d: %v", fm.Err.Line, d.Lines.Count(), fm.Err)
		}
		root := fm.Root().y
		if root == nil {
			return
		}
		if fm.Err != nil {
			t.Fatalf("a tree and an error: %v", fm.Err)
		}
		if root.Kind != yaml.MappingNode {
			t.Fatalf("root is of kind %v", root.Kind)
		}
		seen := 0
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			// Aliases are not followed: an alias bomb must stay small.
			seen++
			if seen > len(text)*4+16 {
				t.Fatalf("more nodes than the text can hold")
			}
			sp := d.NodeSpan(Node{n})
			if sp.Start > sp.End || sp.End > len(d.Text) || sp != (Span{}) && sp.Start < fm.Content.Start {
				t.Fatalf("node %q at %d:%d spans %+v outside the frontmatter %+v", n.Value, n.Line, n.Column, sp, fm.Content)
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(root)
	})
}

// FuzzSections splits arbitrary markdown into sections: headings come in
// order, outside code fences, and each section runs from its heading to the
// next heading of the same or a higher level.
func FuzzSections(f *testing.F) {
	for _, s := range []string{
		"# T\n\n## A\n\ntext\n\n### A.1\n\n## B\n",
		"## A\n```\n## not a heading\n```\n## B\n",
		"~~~md\n# x\n~~~\n#no space\n####### seven\n## closed ##\n",
		"## A\r\n\r\n### B\r\n#### C\r\n## D",
		"\xEF\xBB\xBF## BOM\n",
		"---\ntitle: x\n---\n## After frontmatter\n",
		"    ## indented code\n   ## three spaces\n",
		"```\nunclosed\n## inside\n",
		"## é中文😀 #\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Parse("f.md", data)
		secs := d.Sections()
		prev := -1
		for _, h := range d.Headings {
			if h.Line <= prev {
				t.Fatalf("heading on line %d after line %d", h.Line, prev)
			}
			prev = h.Line
			if h.Level < 1 || h.Level > 6 {
				t.Fatalf("heading level %d", h.Level)
			}
			if h.Span.Start < d.Body.Start || h.Span.End > len(d.Text) || h.TextSpan.Start < h.Span.Start || h.TextSpan.End > h.Span.End {
				t.Fatalf("heading %q spans %+v %+v", h.Text, h.Span, h.TextSpan)
			}
			if string(d.Text[h.TextSpan.Start:h.TextSpan.End]) != h.Text {
				t.Fatalf("heading text %q, span holds %q", h.Text, d.Text[h.TextSpan.Start:h.TextSpan.End])
			}
			if f, in := d.InFence(h.Span.Start); in {
				t.Fatalf("heading %q inside the fence %+v", h.Text, f.Span)
			}
		}
		for i, s := range secs {
			c := s.Content
			if c.Start > c.End || c.End > len(d.Text) || c.Start != d.Lines.Start(s.Line) {
				t.Fatalf("section %q spans %+v", s.Text, c)
			}
			// The section ends where the next heading of its level or
			// higher begins, and holds every deeper heading before it.
			for _, n := range secs[i+1:] {
				if n.Content.Start >= c.End {
					break
				}
				if n.Level <= s.Level {
					t.Fatalf("section %q (level %d) holds %q (level %d)", s.Text, s.Level, n.Text, n.Level)
				}
				if n.Content.End > c.End {
					t.Fatalf("subsection %q ends after %q", n.Text, s.Text)
				}
			}
		}
		if len(data) > 0 && !bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) && !bytes.Equal(d.Text, data) {
			t.Fatalf("text differs from the input")
		}
	})
}

// TestFrontmatterSizeBound checks the regression that FuzzFrontmatter's
// seeds hold: a frontmatter above maxFrontmatterSize is reported, not
// parsed, and the body is kept; one below it is parsed.
func TestFrontmatterSizeBound(t *testing.T) {
	t.Parallel()
	slow := strings.Repeat(strings.Repeat("- ", 1000)+"\n", maxFrontmatterSize/2000+10)
	d := Parse("f.md", []byte("---\n"+slow+"---\n# Title\n\n## Part\n"))
	if d.Frontmatter == nil || d.Frontmatter.Err == nil || !strings.Contains(d.Frontmatter.Err.Message, "KiB") {
		t.Fatalf("frontmatter of %d KiB: %+v", len(slow)>>10, d.Frontmatter)
	}
	if d.Frontmatter.Root().Exists() {
		t.Error("the oversized frontmatter was parsed")
	}
	if len(d.Sections()) != 1 || d.Sections()[0].Text != "Part" {
		t.Errorf("body lost: sections %+v", d.Sections())
	}

	keys := strings.Repeat("k: v\n", (maxFrontmatterSize-64)/5)
	d = Parse("f.md", []byte("---\nid: x\n"+keys+"---\n# Title\n"))
	if d.Frontmatter == nil || d.Frontmatter.Err != nil {
		t.Fatalf("frontmatter just below the limit: %+v", d.Frontmatter.Err)
	}
	if _, v := d.Frontmatter.Field("id"); v.Value() != "x" {
		t.Errorf("id of a large frontmatter = %v", v)
	}
}
