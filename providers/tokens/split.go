package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The splitters below reproduce, piece for piece, what tiktoken-go's
// compiled split patterns match (github.com/tiktoken-go/tokenizer v0.10.0,
// regexp2 code generation), without a backtracking engine, a []rune copy of
// the text or a string per piece. The patterns are
//
//	o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//	cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Quirks of the compiled patterns that matter for exact counts:
//   - \s is unicode.IsSpace;
//   - (?i) lets 's also match the long s, U+017F;
//   - the ASCII bitmaps of the two negated classes leave out DEL (U+007F),
//     so DEL matches no alternative and is skipped: it is in no piece;
//   - the engine matches runes, so an invalid UTF-8 byte is U+FFFD (a
//     symbol) and the piece holding it is spelled with U+FFFD;
//   - \s*[\r\n]+ ends with the first run of line breaks: "\n \n" is two
//     pieces, "\n" and " \n".

// Rune classes, as bits.
const (
	cU  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cW              // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cL              // \p{L}
	cN              // \p{N}
	cS              // \s
	cP              // [^\r\n\p{L}\p{N}], as compiled
	cO              // [^\s\p{L}\p{N}], as compiled
	cNL             // [\r\n]
)

// byteClass holds the classes of the ASCII runes, and multiByte for the
// bytes that start (or are invalid in) a multi-byte sequence.
var byteClass = func() (t [256]uint8) {
	for b := range t {
		t[b] = multiByte
		if b < utf8.RuneSelf {
			t[b] = classOf(rune(b))
		}
	}
	return t
}()

// multiByte is no rune's class: no rune is both a letter and a number.
const multiByte = 0xff

func classOf(r rune) uint8 {
	switch {
	case r == 0x7f:
		return 0
	case r == '\r' || r == '\n':
		return cS | cNL
	case unicode.IsLetter(r):
		switch {
		case unicode.Is(unicode.Lo, r), unicode.Is(unicode.Lm, r):
			return cL | cU | cW
		case unicode.Is(unicode.Ll, r):
			return cL | cW
		}
		return cL | cU // Lu, Lt
	case unicode.IsMark(r):
		return cU | cW | cP | cO
	case unicode.IsNumber(r):
		return cN
	case unicode.IsSpace(r):
		return cS | cP
	}
	return cP | cO
}

// decode returns the rune at s[i] and its width; an invalid byte is
// U+FFFD of width 1, as in a []rune conversion.
func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return decodeMulti(s, i)
}

func decodeMulti(s string, i int) (rune, int) { return utf8.DecodeRuneInString(s[i:]) }

// classAt returns the class of the rune at s[i] and its width. It is kept
// small enough to inline, for ASCII.
func classAt(s string, i int) (uint8, int) {
	if c := byteClass[s[i]]; c != multiByte {
		return c, 1
	}
	return classAtMulti(s, i)
}

func classAtMulti(s string, i int) (uint8, int) {
	r, w := utf8.DecodeRuneInString(s[i:])
	return classOf(r), w
}

// skip returns the end of the run of runes of a class in mask from i.
func skip(s string, i int, mask uint8) int {
	for i < len(s) {
		// ASCII is looked up here rather than through classAt, which does
		// not inline.
		c, w := byteClass[s[i]], 1
		if c == multiByte {
			c, w = classAtMulti(s, i)
		}
		if c&mask == 0 {
			break
		}
		i += w
	}
	return i
}

// splitFunc returns the end of the piece that starts at s[i], or -1 when
// no piece starts there and the rune at i is skipped.
type splitFunc func(s string, i int) int

// splitO200k matches the o200k_base pattern at s[i].
func splitO200k(s string, i int) int {
	c0, w0 := classAt(s, i)
	if c0&(cU|cW|cP) != 0 {
		// The two letter alternatives: each tries an optional leading rune
		// of [^\r\n\p{L}\p{N}] first, then none.
		next := i + w0
		if c0&cP != 0 && next < len(s) {
			if e := upperLower(s, next); e >= 0 {
				return contraction(s, e)
			}
		}
		if c0&(cU|cW) != 0 {
			if e := upperLower(s, i); e >= 0 {
				return contraction(s, e)
			}
		}
		if c0&cP != 0 && next < len(s) {
			if c, _ := classAt(s, next); c&cU != 0 {
				return contraction(s, skip(s, skip(s, next, cU), cW))
			}
		}
		if c0&cU != 0 {
			return contraction(s, skip(s, skip(s, i, cU), cW))
		}
	}
	if e := numbers(s, i, c0, w0); e >= 0 {
		return e
	}
	if e := punctuation(s, i, "\r\n/"); e >= 0 {
		return e
	}
	return spaces(s, i, c0)
}

// upperLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// at s[i] and returns its end, or -1. The first loop backtracks to the
// last rune that can start the second; the second is then greedy.
func upperLower(s string, i int) int {
	lastW := -1 // end of the last rune of the upper run that is also lower
	for i < len(s) {
		c, w := classAt(s, i)
		if c&cU == 0 {
			if c&cW != 0 {
				return skip(s, i, cW)
			}
			break
		}
		i += w
		if c&cW != 0 {
			lastW = i
		}
	}
	// Either the text ended or the run ended at a rune that is not lower:
	// backtrack. The runes after the last lower one are upper only, so the
	// lower run is that one rune.
	return lastW
}

// contraction extends a piece ending at e by an optional, case-insensitive
// 's, 't, 're, 've, 'm, 'll or 'd.
func contraction(s string, e int) int {
	if c := contractionAt(s, e); c >= 0 {
		return c
	}
	return e
}

// contractionAt matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i] and returns
// its end, or -1.
func contractionAt(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return -1
	}
	switch s[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return i + 2
	case 'r', 'R', 'v', 'V':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l', 'L':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xc5: // ſ, U+017F, folds to s
		if i+2 < len(s) && s[i+2] == 0xbf {
			return i + 3
		}
	}
	return -1
}

// numbers matches \p{N}{1,3} at s[i], whose rune has class c0 and width
// w0, and returns its end, or -1.
func numbers(s string, i int, c0 uint8, w0 int) int {
	if c0&cN == 0 {
		return -1
	}
	e := i + w0
	for range 2 {
		if e >= len(s) {
			break
		}
		c, w := classAt(s, e)
		if c&cN == 0 {
			break
		}
		e += w
	}
	return e
}

// punctuation matches ` ?[^\s\p{L}\p{N}]+[` + trail + `]*` at s[i] and
// returns its end, or -1. Its loops are atomic.
func punctuation(s string, i int, trail string) int {
	p := i
	if s[p] == ' ' {
		p++
	}
	if p >= len(s) {
		return -1
	}
	if c, _ := classAt(s, p); c&cO == 0 {
		return -1
	}
	e := skip(s, p, cO)
	for e < len(s) && (s[e] == trail[0] || s[e] == trail[1] || len(trail) > 2 && s[e] == trail[2]) {
		e++
	}
	return e
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at s[i], whose rune has class
// c0, and returns its end, or -1.
func spaces(s string, i int, c0 uint8) int {
	if c0&cS == 0 {
		return -1
	}
	afterNL, last, e := -1, i, i
	for e < len(s) {
		c, w := classAt(s, e)
		if c&cS == 0 || c&cNL == 0 && afterNL >= 0 {
			break
		}
		last = e
		e += w
		if c&cNL != 0 {
			afterNL = e
		}
	}
	switch {
	case afterNL >= 0:
		// \s*[\r\n]+ ends with the first run of line breaks.
		return afterNL
	case e == len(s):
		return e
	case last > i:
		// (?!\S) holds before the last space of the run.
		return last
	}
	return e
}

// splitCl100k matches the cl100k_base pattern at s[i].
func splitCl100k(s string, i int) int {
	if e := contractionAt(s, i); e >= 0 {
		return e
	}
	c0, w0 := classAt(s, i)
	if next := i + w0; c0&cP != 0 && next < len(s) {
		if c, _ := classAt(s, next); c&cL != 0 {
			return skip(s, next, cL)
		}
	}
	if c0&cL != 0 {
		return skip(s, i, cL)
	}
	if e := numbers(s, i, c0, w0); e >= 0 {
		return e
	}
	if e := punctuation(s, i, "\r\n"); e >= 0 {
		return e
	}
	return spaces(s, i, c0)
}
