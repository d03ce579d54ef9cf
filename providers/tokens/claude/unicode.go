package claude

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Unicode general categories, as indexes into categoryNames. catCn is
// an unassigned codepoint.
const (
	catCn uint8 = iota
	catCc
	catCf
	catCo
	catCs
	catLl
	catLm
	catLo
	catLt
	catLu
	catMc
	catMe
	catMn
	catNd
	catNl
	catNo
	catPc
	catPd
	catPe
	catPf
	catPi
	catPo
	catPs
	catSc
	catSk
	catSm
	catSo
	catZl
	catZp
	catZs
)

var categoryNames = [...]string{"Cn", "Cc", "Cf", "Co", "Cs", "Ll", "Lm", "Lo", "Lt", "Lu", "Mc", "Me", "Mn", "Nd", "Nl", "No", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Sc", "Sk", "Sm", "So", "Zl", "Zp", "Zs"}

// Bits of a BMP rune's entry in charTable beside its category.
const (
	catMask     = 0x1f
	flagKiller  = 0x20 // is a word-run separator (isKiller)
	flagCombine = 0x40 // has a nonzero canonical combining class
)

// charTable holds, for every BMP rune, its category and the flags above:
// the classifier asks these for every character of the text.
type charTable [0x10000]uint8

func newCharTable() *charTable {
	t := new(charTable)
	for i := 1; i < len(categoryNames); i++ {
		tab := unicode.Categories[categoryNames[i]]
		for _, r16 := range tab.R16 {
			for r := uint32(r16.Lo); r <= uint32(r16.Hi); r += uint32(r16.Stride) {
				t[r] = uint8(i)
			}
		}
	}
	// Only marks have a nonzero combining class.
	for _, tab := range []*unicode.RangeTable{unicode.Mn, unicode.Mc, unicode.Me} {
		for _, r16 := range tab.R16 {
			for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
				if ccc(r) != 0 {
					t[r] |= flagCombine
				}
				if ccc(r) == 9 && r != nonSeparator {
					t[r] |= flagKiller
				}
			}
		}
	}
	for _, r := range separatorSigns {
		t[r] |= flagKiller
	}
	for _, x := range separatorRanges {
		for r := x[0]; r <= x[1]; r++ {
			t[r] |= flagKiller
		}
	}
	return t
}

func (t *charTable) cat(r rune) uint8 {
	if r < 0x10000 {
		return t[r] & catMask
	}
	for i := 1; i < len(categoryNames); i++ {
		if unicode.Is(unicode.Categories[categoryNames[i]], r) {
			return uint8(i)
		}
	}
	return catCn
}

// killer reports a word-run separator. Astral characters are hard: they
// take no word model, so none separates words, viramas included.
func (t *charTable) killer(r rune) bool {
	return r < 0x10000 && t[r]&flagKiller != 0
}

func (t *charTable) combining(r rune) bool {
	if r < 0x10000 {
		return t[r]&flagCombine != 0
	}
	return ccc(r) != 0
}

// ccc returns the canonical combining class of r.
func ccc(r rune) uint8 {
	var b [utf8.UTFMax]byte
	n := utf8.EncodeRune(b[:], r)
	return norm.NFC.Properties(b[:n]).CCC()
}

func isLetterCat(c uint8) bool { return c >= catLl && c <= catLu }
func isMarkCat(c uint8) bool   { return c >= catMc && c <= catMn }
func isPunctCat(c uint8) bool  { return c >= catPc && c <= catPs }
func isSymbolCat(c uint8) bool { return c >= catSc && c <= catSo }
func isSpaceCat(c uint8) bool  { return c >= catZl && c <= catZs }

// The case tests follow the Unicode Uppercase and Lowercase properties,
// which also hold for letter-like symbols such as the circled letters.
func isUpper(r rune) bool {
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}

func isLower(r rune) bool {
	return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)
}

// isUpperString reports whether s has at least one uppercase letter and
// no lowercase or titlecase one.
func isUpperString(s []rune) bool {
	cased := false
	for _, r := range s {
		if isLower(r) || unicode.IsTitle(r) {
			return false
		}
		if isUpper(r) {
			cased = true
		}
	}
	return cased
}
