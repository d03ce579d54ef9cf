package library

import (
	"strings"
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

// Matches reports whether the section answers to want: its name, its name
// without an outline number, its explicit anchor or its GitHub-style slug,
// ignoring case.
func (s *Section) Matches(want string) bool {
	want = strings.TrimSpace(want)
	if want == "" {
		return false
	}
	if strings.EqualFold(s.Name, want) {
		return true
	}
	short := unnumbered(s.Name)
	if short != s.Name && strings.EqualFold(short, want) {
		return true
	}
	lw := strings.ToLower(strings.TrimPrefix(want, "#"))
	if s.Anchor != "" && strings.ToLower(s.Anchor) == lw {
		return true
	}
	// Names that give the same GitHub anchor are the same section: they
	// differ only in case and punctuation ('Load "Always" Files').
	sw := Slug(want)
	return Slug(s.Name) == lw || Slug(short) == lw || Slug(s.Name) == sw || Slug(short) == sw
}

// names lists what a section may be called in prose, longest first.
func (s *Section) names() []string {
	if short := unnumbered(s.Name); short != s.Name {
		return []string{s.Name, short}
	}
	return []string{s.Name}
}
