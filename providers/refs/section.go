package refs

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// maxSectionWords bounds a section name guessed from prose.
const maxSectionWords = 8

// sectionStop reports whether c ends a section name written in prose.
func sectionStop(c byte) bool {
	switch c {
	case '`', '|', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', ':', '!', '?', '*', '"', '\'':
		return true
	}
	return false
}

// joiners are the lower-case words that may sit inside a capitalised
// section name: "How to Use", "Mocking and Patching".
var joiners = map[string]bool{
	"a": true, "an": true, "and": true, "as": true, "at": true, "by": true,
	"for": true, "from": true, "in": true, "into": true, "of": true, "on": true,
	"or": true, "the": true, "to": true, "vs": true, "vs.": true, "with": true,
}

// proseSection returns the end of the section name that starts at start
// (just after '#') on a line ending at le; start when there is none.
func (s *scanner) proseSection(start, le int, domain, topic string) int {
	t := s.text
	if s.opts.Sections != nil {
		best := 0
		for _, name := range s.opts.Sections(domain, topic) {
			n := len(name)
			if n <= best || start+n > le || !bytes.EqualFold(t[start:start+n], []byte(name)) {
				continue
			}
			if start+n < le && isDomainByte(t[start+n]) && isDomainByte(name[n-1]) {
				continue // "Sec" must not match inside "Security"
			}
			best = n
		}
		if best > 0 {
			return start + best
		}
	}
	return heuristicSection(t, start, le)
}

// heuristicSection applies the word rule documented at ScanList.
func heuristicSection(t []byte, start, le int) int {
	limit := start
	for limit < le && !sectionStop(t[limit]) {
		limit++
	}
	end := start
	capital := false
	p := start
	for words := 0; words < maxSectionWords; words++ {
		q := p
		for q < limit && (t[q] == ' ' || t[q] == '\t') {
			q++
		}
		if words == 0 && q != p {
			break // "#" followed by a space names no section
		}
		w := q
		for q < limit && t[q] != ' ' && t[q] != '\t' {
			q++
		}
		if w == q {
			break
		}
		word := t[w:q]
		dot := len(word) > 1 && word[len(word)-1] == '.'
		switch {
		case words == 0:
			end = q
			capital = startsUpper(word)
		case !capital:
			return trimDot(t, start, end)
		case startsUpper(word) || isDigit(word[0]):
			end = q
		case joiners[string(bytes.ToLower(word))] || isSymbolWord(word):
			// Kept only if a capitalised word follows.
			dot = false
		default:
			return trimDot(t, start, end)
		}
		if dot {
			break
		}
		p = q
	}
	return trimDot(t, start, end)
}

func trimDot(t []byte, start, end int) int {
	for end > start && (t[end-1] == '.' || t[end-1] == ' ' || t[end-1] == '\t') {
		end--
	}
	return end
}

func startsUpper(word []byte) bool {
	r, _ := utf8.DecodeRune(word)
	return unicode.IsUpper(r)
}

// isSymbolWord reports whether word is a lone joining symbol such as "/"
// or "&".
func isSymbolWord(word []byte) bool {
	switch string(word) {
	case "/", "&", "-", "+", "–", "—":
		return true
	}
	return false
}
