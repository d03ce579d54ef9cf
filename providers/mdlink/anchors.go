// Package mdlink finds the relative links of a markdown document and
// checks them as Marksman and VS Code's markdown language service do: the
// file or folder a link names must exist, and a fragment that names a
// heading of a markdown file must be one of its anchors (GitHub's heading
// slugs, explicit {#id} and <a id> anchors). Links inside code are not
// links. It reports only what those tools would, and says when a report
// is uncertain (a file that a build may make, a path without extension
// that a documentation site may serve).
package mdlink

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/ctxls/ctxls/providers/document"
)

// Anchors is the set of fragments a markdown document answers to.
type Anchors map[string]bool

// Has reports whether fragment (decoded, without '#') names an anchor of
// the document. Headings match by any of the slug rules that renderers
// and editors use (GitHub's, VS Code's, Marksman's), case aside.
func (a Anchors) Has(fragment string) bool {
	f := strings.ToLower(fragment)
	return a[f] || a[GitHubSlug(fragment)] || a[marksmanSlug(fragment)]
}

var (
	// attrID matches an id or name attribute of an HTML tag.
	attrID = regexp.MustCompile(`(?i)<[a-z][a-z0-9]*\b[^>]*?\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
	// curlyID matches an attribute block's id: {#id} or {: #id .class}.
	curlyID = regexp.MustCompile(`\{[:\s]*#([^\s}]+)[^}]*\}\s*$`)
	// inlineLink matches a link or image in a heading: its text stays.
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	// htmlTag matches an HTML tag in a heading, which renders no text.
	htmlTag = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	// emojiCode matches an emoji shortcode such as :rocket:.
	emojiCode = regexp.MustCompile(`:[a-z0-9_+-]+:`)
)

// DocAnchors returns the anchors of doc: a slug of each heading (ATX and
// setext), numbered -1, -2, … when it repeats as GitHub numbers them,
// and every explicit anchor. The text of doc must be held.
func DocAnchors(doc *document.Doc) Anchors {
	a := Anchors{}
	// Each slug rule numbers its own repeats; each reading of a heading's
	// text counts once per rule.
	slugs := []func(string) string{GitHubSlug, vscodeSlug, marksmanSlug}
	seen := make([]map[string]int, len(slugs))
	for i := range seen {
		seen[i] = map[string]int{}
	}
	addHeading := func(text string) {
		if m := curlyID.FindStringSubmatch(text); m != nil {
			a[strings.ToLower(m[1])] = true
			text = strings.TrimSpace(text[:len(text)-len(m[0])])
		}
		for i, slug := range slugs {
			done := map[string]bool{}
			for _, v := range headingTexts(text) {
				s := slug(v)
				if s == "" || done[s] {
					continue
				}
				done[s] = true
				n := seen[i][s]
				seen[i][s] = n + 1
				if n == 0 {
					a[s] = true
				} else {
					a[s+"-"+strconv.Itoa(n)] = true
				}
			}
		}
	}
	body := doc.Text[doc.Body.Start:]
	// Headings in order, ATX ones from the parse and setext ones found
	// here, so that repeated slugs are numbered in the document's order.
	var hs []heading
	for _, h := range doc.Headings {
		hs = append(hs, heading{h.Span.Start, h.Text})
	}
	hs = append(hs, setextHeadings(doc)...)
	hs = append(hs, nestedHeadings(doc)...)
	sortHeadings := func() {
		for i := 1; i < len(hs); i++ {
			for j := i; j > 0 && hs[j].at < hs[j-1].at; j-- {
				hs[j], hs[j-1] = hs[j-1], hs[j]
			}
		}
	}
	sortHeadings()
	for _, h := range hs {
		addHeading(h.text)
	}
	for _, m := range attrID.FindAllSubmatch(body, -1) {
		for _, g := range m[1:] {
			if len(g) > 0 {
				a[strings.ToLower(string(g))] = true
			}
		}
	}
	return a
}

// nestedATX matches an ATX heading that opens a list item or a block
// quote, which GitHub renders as a heading with an anchor too.
var nestedATX = regexp.MustCompile(`^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+|>\s*)+#{1,6}\s+(.*?)(?:\s+#+)?\s*$`)

// nestedHeadings finds the headings in list items and block quotes.
func nestedHeadings(doc *document.Doc) []heading {
	var out []heading
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		line := doc.Lines.Line(n)
		if bytes.IndexByte(line, '#') < 0 {
			continue
		}
		if _, in := doc.InFence(start); in {
			continue
		}
		if m := nestedATX.FindSubmatch(line); m != nil {
			out = append(out, heading{start, string(m[1])})
		}
	}
	return out
}

// heading is a heading's offset and text.
type heading struct {
	at   int
	text string
}

// headingTexts returns the texts a heading may render as: as written, and
// without links' targets, HTML tags, emoji shortcodes and inline markup.
func headingTexts(text string) []string {
	plain := inlineLink.ReplaceAllString(text, "$1")
	plain = htmlTag.ReplaceAllString(plain, "")
	plain = strings.NewReplacer("`", "", "**", "", "__", "", "~~", "").Replace(plain)
	out := []string{text}
	if plain != text {
		out = append(out, plain)
	}
	if noEmoji := emojiCode.ReplaceAllString(plain, ""); noEmoji != plain {
		out = append(out, noEmoji)
	}
	return out
}

// setextHeadings finds the headings underlined with = or - outside code.
func setextHeadings(doc *document.Doc) []heading {
	var out []heading
	prevText, prevAt := "", -1
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		line := doc.Lines.Line(n)
		if _, in := doc.InFence(start); in {
			prevText, prevAt = "", -1
			continue
		}
		t := bytes.TrimRight(line, " \t\r")
		under := len(t) > 0 && len(t)-len(bytes.TrimLeft(t, " ")) < 4
		if under {
			u := bytes.TrimLeft(t, " ")
			under = len(u) > 0 && (u[0] == '=' || u[0] == '-') && len(bytes.Trim(u, string(u[0:1]))) == 0
		}
		if under && prevAt >= 0 {
			out = append(out, heading{prevAt, prevText})
			prevText, prevAt = "", -1
			continue
		}
		trim := strings.TrimSpace(string(t))
		if trim == "" || strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "|") || strings.HasPrefix(trim, ">") || strings.HasPrefix(trim, "- ") || strings.HasPrefix(trim, "* ") || strings.HasPrefix(trim, "<") {
			prevText, prevAt = "", -1
			continue
		}
		prevText, prevAt = trim, start
	}
	return out
}

// GitHubSlug returns the anchor GitHub gives a heading: lower case, each
// space a hyphen, and every other character that is not a letter, a
// digit, '-' or '_' dropped.
func GitHubSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// vscodeSlug returns the anchor VS Code's markdown language service gives
// a heading: runs of white space become one hyphen, punctuation is
// dropped, and so are hyphens at either end.
func vscodeSlug(text string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte('-')
			}
			space = true
			continue
		}
		space = false
		if r == '-' || r == '_' || !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "-")
}

// marksmanSlug returns the anchor Marksman gives a heading: its letters
// and digits in lower case, punctuation and symbols dropped, and one
// hyphen where white space or hyphens part two runs of them.
func marksmanSlug(text string) string {
	var b strings.Builder
	sep := false
	state := 0 // 0 before any run, 1 in a run, 2 after one
	for _, r := range text {
		isSep := unicode.IsSpace(r) || r == '-'
		if isSep {
			sep = true
		}
		if !isSep && !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
			if sep && state == 2 {
				b.WriteByte('-')
				sep = false
			}
			state = 1
			b.WriteRune(unicode.ToLower(r))
		} else if state == 1 {
			state = 2
		}
	}
	return b.String()
}
