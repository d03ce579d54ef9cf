package claude

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The structural markers, one byte each in the marked stream. The
// controls they use are stripped from the text before it is marked, so a
// marker never collides with a character of the text.
const (
	bow   = '\x01' // word start
	eow   = '\x02' // word end
	shift = '\x03' // the word is title case, written lowered
	caps  = '\x04' // the word is all capitals, written lowered
)

func isMarker(b byte) bool { return b >= bow && b <= caps }

// Character classes of the run split.
const (
	clsSpace uint8 = iota
	clsWordy
	clsDigit
	clsPunct
	clsHard
	clsKiller // a word-run separator mark
	clsStray  // a combining mark with no letter before it to be its base
)

// strippedRune reports the characters the endpoint drops before counting:
// C0 and C1 controls other than tab, newline and NUL, and BMP private use.
func strippedRune(r rune) bool {
	return r >= 0x01 && r <= 0x08 || r >= 0x0B && r <= 0x1F || r >= 0x7F && r <= 0x9F ||
		r >= 0xE000 && r <= 0xF8FF
}

// spaceFold reports the space separators counted exactly as U+0020.
func spaceFold(r rune) bool {
	return r == 0x00A0 || r == 0x1680 || r >= 0x2000 && r <= 0x200A ||
		r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F || r == 0
}

// normalize returns text as the tokenizer reads it: NFC, stripped of the
// characters the endpoint drops, curly quotes folded where the family
// folds them, and space variants written as spaces.
func normalize(text string, foldQuotes bool) string {
	t := norm.NFC.String(strings.ToValidUTF8(text, "\uFFFD"))
	var sb strings.Builder
	sb.Grow(len(t))
	for _, r := range t {
		switch {
		case strippedRune(r):
			continue
		case spaceFold(r):
			r = ' '
		case foldQuotes && (r == '\u2018' || r == '\u2019'):
			r = '\''
		case foldQuotes && (r == '\u201C' || r == '\u201D'):
			r = '"'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// strippedHead reports whether the text's first character is one the
// endpoint drops: the space it then exposes is not absorbed by the frame.
func strippedHead(text string) bool {
	t := norm.NFC.String(strings.ToValidUTF8(text, "\uFFFD"))
	r, _ := utf8.DecodeRuneInString(t)
	return len(t) > 0 && strippedRune(r)
}

type run struct {
	cls  uint8
	body string
}

// classify returns the class of one character.
func (t *charTable) classify(r rune) uint8 {
	if r < 0x80 {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			return clsSpace
		case r >= '0' && r <= '9':
			return clsDigit
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			return clsWordy
		case r > ' ' && r < 0x7F:
			return clsPunct
		}
	}
	c := t.cat(r)
	switch {
	case isSpaceCat(c):
		return clsSpace
	case inRanges(r, symbolLetters):
		return clsWordy
	case c == catNd && (r < 0x80 || r >= 0x0660 && r <= 0x0669 || r >= 0x06F0 && r <= 0x06F9):
		return clsDigit
	case r < 0x80 && (isPunctCat(c) || isSymbolCat(c)):
		return clsPunct
	case containsRune(punctSymbols, r):
		return clsPunct
	case variationSelector(r):
		return clsHard
	case r == 0x0CF3:
		return clsWordy
	case (isLetterCat(c) || isMarkCat(c)) && !hardRune(r):
		return clsWordy
	}
	return clsHard
}

func (t *charTable) runClass(r rune) uint8 {
	if r >= 0x80 && t.killer(r) {
		return clsKiller
	}
	return t.classify(r)
}

func (t *charTable) strayMark(r rune) bool {
	return !syriacVowel(r) && t.combining(r) && !t.killer(r)
}

// hardKind names the pretoken alternative a character of a hard run
// belongs to: 0 letter, 1 number, 2 punctuation.
func (t *charTable) hardKind(r rune) uint8 {
	switch {
	case t.marksLikePunct(r):
		return 2
	case t.digitBorder(r):
		return 1
	}
	return 0
}

// runs splits normalized text into maximal runs of one class, then splits
// each hard run where the kind of character changes.
func (t *charTable) runs(s string) []run {
	if s == "" {
		return nil
	}
	var out []run
	r0, w := utf8.DecodeRuneInString(s)
	start, cls := 0, t.runClass(r0)
	if cls == clsWordy && t.strayMark(r0) {
		cls = clsStray
	}
	for i := w; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		c := t.runClass(r)
		switch {
		case cls == clsStray && c == clsWordy && t.strayMark(r):
		case c == cls:
		case c == clsWordy && cls != clsWordy && t.strayMark(r):
			out = append(out, run{cls, s[start:i]})
			start, cls = i, clsStray
		default:
			out = append(out, run{cls, s[start:i]})
			start, cls = i, c
		}
		i += w
	}
	out = append(out, run{cls, s[start:]})

	split := out[:0:0]
	for _, rn := range out {
		if rn.cls != clsHard || utf8.RuneCountInString(rn.body) == 1 {
			split = append(split, rn)
			continue
		}
		b := rn.body
		first, w := utf8.DecodeRuneInString(b)
		start, kind := 0, t.hardKind(first)
		for i := w; i < len(b); {
			r, w := utf8.DecodeRuneInString(b[i:])
			if !variationSelector(r) {
				if k := t.hardKind(r); k != kind {
					split = append(split, run{clsHard, b[start:i]})
					start, kind = i, k
				}
			}
			i += w
		}
		split = append(split, run{clsHard, b[start:]})
	}
	return split
}

// core yields the runes of body other than variation selectors.
func allCore(body string, f func(rune) bool) bool {
	for _, r := range body {
		if variationSelector(r) {
			continue
		}
		if !f(r) {
			return false
		}
	}
	return true
}

// borderable reports a body that takes the punctuation border markers:
// every character punctuation, symbol or format.
func (t *charTable) borderable(body string) bool {
	return body != "" && allCore(body, t.marksLikePunct)
}

func (t *charTable) digitRun(body string) bool {
	nd, no := true, body != ""
	for _, r := range body {
		c := t.cat(r)
		nd = nd && c == catNd
		no = no && c == catNo
	}
	return nd || no
}

func (t *charTable) digitBow(body string) bool {
	r, _ := utf8.DecodeRuneInString(body)
	return t.digitRun(body) && t.digitBorder(r)
}

func (t *charTable) digitEow(body string) bool {
	r, _ := utf8.DecodeLastRuneInString(body)
	return t.digitRun(body) && t.digitBorder(r)
}

func (t *charTable) takesRightBorder(rn run) bool {
	return rn.cls == clsPunct || rn.cls == clsKiller || t.borderable(rn.body) ||
		(rn.cls == clsDigit || rn.cls == clsHard) && t.digitRun(rn.body) && t.digitEow(rn.body)
}

// opensWord reports a lone apostrophe opening the word after it.
func opensWord(runs []run, i int) bool {
	return runs[i].body == "'" && i+1 < len(runs) && runs[i+1].cls == clsWordy
}

func contractionSuffix(s string) bool {
	switch s {
	case "s", "t", "d", "m", "ll", "re", "ve":
		return true
	}
	return false
}

// contractionSeam reports whether a lone apostrophe before wordy run i
// is that word's opening boundary.
func (t *charTable) contractionSeam(runs []run, i int) bool {
	if i == 0 || !contractionSuffix(runs[i].body) {
		return false
	}
	if p := runs[i-1]; p.cls != clsPunct || p.body != "'" {
		return false
	}
	return i < 2 || !t.takesRightBorder(runs[i-2])
}

// markCase writes a word in the marked case form: a title-case word
// lowered behind a shift marker, an all-capitals word of at least
// allcapsMin letters lowered behind a caps marker (0: the family has
// none), anything else literal.
func markCase(sb *strings.Builder, t *charTable, span string, allcapsMin int, headMark bool) {
	if headMark || strings.ContainsRune(span, 'ẞ') {
		sb.WriteString(span)
		return
	}
	rs := []rune(span)
	if strings.ContainsRune(span, 'İ') {
		if isUpper(rs[0]) && rs[0] != 'İ' && !anyUpper(rs[1:], 'İ') {
			sb.WriteByte(shift)
			sb.WriteRune(unicode.ToLower(rs[0]))
			for _, r := range rs[1:] {
				if r != 'İ' {
					r = unicode.ToLower(r)
				}
				sb.WriteRune(r)
			}
			return
		}
		sb.WriteString(span)
		return
	}
	caseless := false
	for _, r := range rs {
		if isLetterCat(t.cat(r)) && !isLower(r) && !isUpper(r) {
			caseless = true
			break
		}
	}
	if allcapsMin > 0 && !caseless && len(rs) >= allcapsMin && isUpperString(rs) {
		sb.WriteByte(caps)
		for _, r := range rs {
			r = unicode.ToLower(r)
			if r == 'ς' {
				r = 'σ'
			}
			sb.WriteRune(r)
		}
		return
	}
	if isUpper(rs[0]) && !anyUpper(rs[1:], -1) {
		sb.WriteByte(shift)
		for _, r := range rs {
			sb.WriteRune(unicode.ToLower(r))
		}
		return
	}
	sb.WriteString(span)
}

func anyUpper(rs []rune, except rune) bool {
	for _, r := range rs {
		if r != except && isUpper(r) {
			return true
		}
	}
	return false
}

// stream writes normalized text as the marked stream the tiler covers.
func (f *family) stream(tb *tables, norm string, headStripped bool) string {
	t := tb.chars
	if f.frameTail == tailLadder {
		norm = strings.TrimRight(norm, "\n")
	}
	// The frame ends in a word start, which stands for one leading space.
	if f.frameBow && !headStripped && strings.HasPrefix(norm, " ") && !strings.HasPrefix(norm, "  ") {
		norm = norm[1:]
	}
	runs := t.runs(norm)
	if len(runs) == 0 {
		return ""
	}
	n := len(runs)
	bordersSpace := func(i, side int) bool {
		j := i + side
		if j < 0 {
			return f.frameBow
		}
		if j >= n || runs[j].cls != clsSpace {
			return false
		}
		b := runs[j].body
		if side < 0 {
			return strings.HasSuffix(b, " ")
		}
		return strings.HasPrefix(b, " ") && !strings.HasPrefix(b, "  ")
	}

	var sb strings.Builder
	sb.Grow(len(norm) + len(norm)/2)
	first := runs[0]
	headQuote := opensWord(runs, 0)
	ownBow := !headQuote && (first.cls == clsWordy || first.cls == clsPunct || first.cls == clsStray ||
		first.cls == clsKiller || t.borderable(first.body) ||
		(first.cls == clsDigit || first.cls == clsHard) && t.digitBow(first.body) ||
		first.cls == clsSpace && strings.HasPrefix(first.body, " "))
	if !ownBow && f.frameBow {
		if headQuote {
			sb.WriteByte(' ')
		} else {
			sb.WriteByte(bow)
		}
	}
	for i, rn := range runs {
		switch {
		case rn.cls == clsWordy:
			fused := i > 0 && runs[i-1].cls == clsStray
			var w strings.Builder
			markCase(&w, t, rn.body, tb.allcapsMin, fused)
			m := w.String()
			k := 0
			for k < len(m) && (m[k] == shift || m[k] == caps) {
				k++
			}
			sb.WriteString(m[:k])
			if !fused && !t.contractionSeam(runs, i) {
				sb.WriteByte(bow)
			}
			sb.WriteString(m[k:])
			sb.WriteByte(eow)
		case rn.cls == clsStray:
			sb.WriteByte(bow)
			sb.WriteString(rn.body)
			if !(i+1 < n && runs[i+1].cls == clsWordy) {
				sb.WriteByte(eow)
			}
		case rn.cls == clsKiller:
			if bordersSpace(i, -1) {
				sb.WriteByte(bow)
			}
			sb.WriteString(rn.body)
			if bordersSpace(i, +1) {
				sb.WriteByte(eow)
			}
		case rn.cls == clsPunct || t.borderable(rn.body):
			if bordersSpace(i, -1) && !opensWord(runs, i) {
				sb.WriteByte(bow)
			}
			sb.WriteString(rn.body)
			if bordersSpace(i, +1) {
				sb.WriteByte(eow)
			}
		case (rn.cls == clsDigit || rn.cls == clsHard) && t.digitRun(rn.body):
			if t.digitBow(rn.body) && bordersSpace(i, -1) {
				sb.WriteByte(bow)
			}
			sb.WriteString(rn.body)
			if t.digitEow(rn.body) && bordersSpace(i, +1) {
				sb.WriteByte(eow)
			}
		default:
			sb.WriteString(rn.body)
		}
	}
	return seam(sb.String())
}

// seam drops the single space between a word end and the next word
// start (case markers may stand between): the marker pair encodes it.
func seam(s string) string {
	if !strings.Contains(s, "\x02 ") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		b = append(b, c)
		if c != eow || i == 0 || s[i-1] == '\n' || i+1 >= len(s) || s[i+1] != ' ' {
			continue
		}
		k := i + 2
		for k < len(s) && (s[k] == shift || s[k] == caps) {
			k++
		}
		if k < len(s) && s[k] == bow {
			i++ // skip the space
		}
	}
	return string(b)
}
