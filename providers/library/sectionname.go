package library

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// headingName splits a heading's text into the section name and its
// explicit anchor, written as a trailing attribute block:
// "1. Memory Leaks {#memory-leaks}" gives "1. Memory Leaks" and
// "memory-leaks". Without an attribute the anchor is "".
func headingName(text string) (name, anchor string) {
	name = strings.TrimSpace(text)
	if !strings.HasSuffix(name, "}") {
		return name, ""
	}
	open := strings.LastIndex(name, "{")
	if open < 0 {
		return name, ""
	}
	for _, attr := range strings.Fields(name[open+1 : len(name)-1]) {
		if id, ok := strings.CutPrefix(attr, "#"); ok && id != "" {
			anchor = id
		}
	}
	if anchor == "" {
		return name, ""
	}
	return strings.TrimSpace(name[:open]), anchor
}

// unnumbered strips a leading outline number such as "1. ", "2.3 " or
// "10) " from a heading: authors number sections in the text while the
// frontmatter and references name them without the number.
func unnumbered(name string) string {
	i := 0
	for i < len(name) && (name[i] >= '0' && name[i] <= '9' || name[i] == '.' && i > 0) {
		i++
	}
	if i == 0 || i == len(name) {
		return name
	}
	if name[i] == ')' {
		i++
	} else if name[i-1] != '.' {
		return name
	}
	if i >= len(name) || name[i] != ' ' {
		return name
	}
	return strings.TrimSpace(name[i:])
}

// sectionMatch holds what a wanted section name is compared with, ignoring
// case: the section's name, its name without an outline number, its
// explicit anchor and its GitHub-style slug. Its slugs are compared without
// being built (slugIs): a topic's sections are looked up by name for every
// reference to it, and building the slugs of each was most of the time of
// diagnosing a library.
type sectionMatch struct{ name, short, anchor string }

func (s *Section) matchKey() sectionMatch {
	return sectionMatch{name: s.Name, short: unnumbered(s.Name), anchor: s.Anchor}
}

// wantMatch is a name a section is looked up by, prepared for matches.
type wantMatch struct{ want, lower, slug, loose string }

func wantKey(want string) wantMatch {
	want = strings.TrimSpace(want)
	lower := strings.ToLower(strings.TrimPrefix(want, "#"))
	return wantMatch{want: want, lower: lower, slug: slugOf(want), loose: collapseHyphens(lower)}
}

// collapseHyphens returns s with runs of '-' made one and none at either
// end: the anchor Marksman and VS Code give "WebRTC + server", where
// GitHub's has two hyphens.
func collapseHyphens(s string) string {
	if !strings.Contains(s, "-") {
		return s
	}
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' }) {
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(part)
	}
	return b.String()
}

func (k sectionMatch) matches(w wantMatch) bool {
	if w.want == "" {
		return false
	}
	if strings.EqualFold(k.name, w.want) {
		return true
	}
	if k.short != k.name && strings.EqualFold(k.short, w.want) {
		return true
	}
	if k.anchor != "" && strings.ToLower(k.anchor) == w.lower {
		return true
	}
	// Names that give the same GitHub anchor are the same section: they
	// differ only in case and punctuation ('Load "Always" Files').
	if slugIs(k.name, w.lower) || slugIs(k.short, w.lower) || slugIs(k.name, w.slug) || slugIs(k.short, w.slug) {
		return true
	}
	return w.loose != "" && (looseSlugIs(k.name, w.loose) || looseSlugIs(k.short, w.loose))
}

// looseSlugIs reports whether the GitHub slug of heading, with runs of
// hyphens made one and none at either end, is slug.
func looseSlugIs(heading, slug string) bool {
	i := 0
	hyphen := true // at the start, a hyphen is dropped
	for _, r := range strings.TrimSpace(heading) {
		r = unicode.ToLower(r)
		var c rune
		switch {
		case r == ' ' || r == '-':
			if hyphen {
				continue
			}
			c, hyphen = '-', true
		case r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			c, hyphen = r, false
		default:
			continue
		}
		if i >= len(slug) {
			if c == '-' {
				continue // a trailing hyphen is dropped
			}
			return false
		}
		got, n := utf8.DecodeRuneInString(slug[i:])
		if got != c {
			return false
		}
		i += n
	}
	return i == len(slug)
}

// slugIs reports whether slugOf(heading) == slug, without building it.
func slugIs(heading, slug string) bool {
	i := 0
	for _, r := range strings.TrimSpace(heading) {
		r = unicode.ToLower(r)
		var c rune
		switch {
		case r == ' ' || r == '-':
			c = '-'
		case r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			c = r
		default:
			continue
		}
		if i >= len(slug) {
			return false
		}
		got, n := utf8.DecodeRuneInString(slug[i:])
		if got != c || got == utf8.RuneError && n <= 1 {
			return false
		}
		i += n
	}
	return i == len(slug)
}

// names lists what a section may be called in prose, longest first.
func (s *Section) names() []string {
	if short := unnumbered(s.Name); short != s.Name {
		return []string{s.Name, short}
	}
	return []string{s.Name}
}
