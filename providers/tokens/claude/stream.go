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
	if plainText(text) {
		return text
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	t := norm.NFC.String(text)
	// Copy the spans that need no change; build only when one does.
	var out []byte
	done := 0
	for i := 0; i < len(t); {
		c := t[i]
		r, w := rune(c), 1
		if c >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(t[i:])
		} else if c >= ' ' && c != 0x7F || c == '\t' || c == '\n' {
			i++
			continue
		}
		var repl string
		switch {
		case strippedRune(r):
			repl = ""
		case spaceFold(r):
			repl = " "
		case foldQuotes && (r == '\u2018' || r == '\u2019'):
			repl = "'"
		case foldQuotes && (r == '\u201C' || r == '\u201D'):
			repl = "\""
		default:
			i += w
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(t))
		}
		out = append(out, t[done:i]...)
		out = append(out, repl...)
		i += w
		done = i
	}
	if out == nil {
		return t
	}
	return string(append(out, t[done:]...))
}

// plainText reports text that normalizes to itself: ASCII with no
// control character but tab and newline. It tests eight bytes at a time.
func plainText(text string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(text); i += 8 {
		x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		if x&highs != 0 {
			return false
		}
		// A byte below a space, or a DEL: look at the eight one by one.
		del := x ^ 0x7F*ones
		if (x-0x20*ones)&^x&highs != 0 || (del-ones)&^del&highs != 0 {
			if !plainBytes(text[i : i+8]) {
				return false
			}
		}
	}
	return plainBytes(text[i:])
}

func plainBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c < ' ' && c != '\t' && c != '\n' || c == 0x7F {
			return false
		}
	}
	return true
}

// strippedHead reports whether the text's first character is one the
// endpoint drops: the space it then exposes is not absorbed by the frame.
func strippedHead(text string) bool {
	// Composition never makes a stripped character of others, nor one
	// of a stripped character, so the raw text's first rune decides.
	r, _ := utf8.DecodeRuneInString(text)
	return len(text) > 0 && strippedRune(r)
}

// run is a maximal run of one class: the bytes [lo, hi) of the text.
type run struct {
	cls    uint8
	lo, hi int32
}

// runSplitter splits normalized text into maximal runs of one class,
// each hard run split further where the kind of character changes. It
// yields the runs a batch at a time, so that a long text is marked in a
// window of bounded size.
type runSplitter struct {
	t     *charTable
	s     string
	i     int   // the next byte to classify
	start int   // the start of the open run
	cls   uint8 // the class of the open run
	done  bool
}

func newRunSplitter(t *charTable, s string) *runSplitter {
	sp := &runSplitter{t: t, s: s, done: s == ""}
	if !sp.done {
		r0, w := utf8.DecodeRuneInString(s)
		sp.i, sp.cls = w, t.runClass(r0)
		if sp.cls == clsWordy && t.strayMark(r0) {
			sp.cls = clsStray
		}
	}
	return sp
}

// emit appends the run [lo, hi) of class cls, a hard run as its parts.
func (sp *runSplitter) emit(out []run, cls uint8, lo, hi int) []run {
	if cls != clsHard {
		return append(out, run{cls, int32(lo), int32(hi)})
	}
	s, t := sp.s, sp.t
	first, w := utf8.DecodeRuneInString(s[lo:])
	start, kind := lo, t.hardKind(first)
	for i := lo + w; i < hi; {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !variationSelector(r) {
			if k := t.hardKind(r); k != kind {
				out = append(out, run{clsHard, int32(start), int32(i)})
				start, kind = i, k
			}
		}
		i += w
	}
	return append(out, run{clsHard, int32(start), int32(hi)})
}

// next appends runs to out until it holds at least limit of them or the
// text ends, and returns it.
func (sp *runSplitter) next(out []run, limit int) []run {
	if sp.done {
		return out
	}
	s, t := sp.s, sp.t
	i, start, cls := sp.i, sp.start, sp.cls
	for i < len(s) && len(out) < limit {
		if b := s[i]; b < utf8.RuneSelf {
			// The common case, ASCII: no ASCII character is a mark, so
			// one goes on a run of its class or starts a run.
			if c := asciiClass[b]; c != cls || cls == clsStray {
				if cls == clsHard {
					out = sp.emit(out, cls, start, i)
				} else {
					out = append(out, run{cls, int32(start), int32(i)})
				}
				start, cls = i, c
			}
			i++
			for i < len(s) && byteClass[s[i]] == cls {
				i++
			}
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		c := t.runClass(r)
		switch {
		case c == cls && cls != clsStray:
		case cls == clsStray && c == clsWordy && t.strayMark(r):
		case c == clsWordy && cls != clsWordy && r >= utf8.RuneSelf && t.strayMark(r):
			out = sp.emit(out, cls, start, i)
			start, cls = i, clsStray
		default:
			out = sp.emit(out, cls, start, i)
			start, cls = i, c
		}
		i += w
	}
	if i >= len(s) {
		out = sp.emit(out, cls, start, len(s))
		sp.done = true
	}
	sp.i, sp.start, sp.cls = i, start, cls
	return out
}

// asciiClass is the class of each ASCII character.
var asciiClass = func() (a [utf8.RuneSelf]uint8) {
	for r := range a {
		a[r] = (*charTable)(nil).classifyASCII(rune(r))
	}
	return a
}()

// byteClass is asciiClass for every byte, and for the bytes of non-ASCII
// characters a value that is no class, so that one lookup tells whether
// an ASCII run goes on.
var byteClass = func() (a [256]uint8) {
	for b := range a {
		a[b] = 0xFF
		if b < utf8.RuneSelf {
			a[b] = asciiClass[b]
		}
	}
	return a
}()

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

func (t *charTable) takesRightBorder(s string, rn run) bool {
	body := s[rn.lo:rn.hi]
	return rn.cls == clsPunct || rn.cls == clsKiller || t.borderable(body) ||
		(rn.cls == clsDigit || rn.cls == clsHard) && t.digitRun(body) && t.digitEow(body)
}

// opensWord reports a lone apostrophe opening the word after it.
func opensWord(s string, runs []run, i int) bool {
	return s[runs[i].lo:runs[i].hi] == "'" && i+1 < len(runs) && runs[i+1].cls == clsWordy
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
func (t *charTable) contractionSeam(s string, runs []run, i int) bool {
	if i == 0 || !contractionSuffix(s[runs[i].lo:runs[i].hi]) {
		return false
	}
	if p := runs[i-1]; p.cls != clsPunct || s[p.lo:p.hi] != "'" {
		return false
	}
	return i < 2 || !t.takesRightBorder(s, runs[i-2])
}

// markCase appends a word in the marked case form: a title-case word
// lowered behind a shift marker, an all-capitals word of at least
// allcapsMin letters lowered behind a caps marker (0: the family has
// none), anything else literal.
func markCase(out []byte, t *charTable, span string, allcapsMin int, headMark bool) []byte {
	if headMark {
		return append(out, span...)
	}
	if ascii, upper, lowerTail := asciiCase(span); ascii {
		switch {
		case allcapsMin > 0 && upper == len(span) && len(span) >= allcapsMin:
			out = append(out, caps)
			return appendLowerASCII(out, span)
		case upper > 0 && lowerTail:
			out = append(out, shift)
			return appendLowerASCII(out, span)
		}
		return append(out, span...)
	}
	if strings.ContainsRune(span, 'ẞ') {
		return append(out, span...)
	}
	rs := []rune(span)
	if strings.ContainsRune(span, 'İ') {
		if isUpper(rs[0]) && rs[0] != 'İ' && !anyUpper(rs[1:], 'İ') {
			out = append(out, shift)
			out = utf8.AppendRune(out, unicode.ToLower(rs[0]))
			for _, r := range rs[1:] {
				if r != 'İ' {
					r = unicode.ToLower(r)
				}
				out = utf8.AppendRune(out, r)
			}
			return out
		}
		return append(out, span...)
	}
	caseless := false
	for _, r := range rs {
		if isLetterCat(t.cat(r)) && !isLower(r) && !isUpper(r) {
			caseless = true
			break
		}
	}
	if allcapsMin > 0 && !caseless && len(rs) >= allcapsMin && isUpperString(rs) {
		out = append(out, caps)
		for _, r := range rs {
			r = unicode.ToLower(r)
			if r == 'ς' {
				r = 'σ'
			}
			out = utf8.AppendRune(out, r)
		}
		return out
	}
	if isUpper(rs[0]) && !anyUpper(rs[1:], -1) {
		out = append(out, shift)
		for _, r := range rs {
			out = utf8.AppendRune(out, unicode.ToLower(r))
		}
		return out
	}
	return append(out, span...)
}

// asciiCase reports whether span is all ASCII and, if so, how many
// capitals it has and whether all after the first letter are lowercase
// with the first a capital.
func asciiCase(span string) (ascii bool, upper int, titled bool) {
	titled = span != "" && span[0] >= 'A' && span[0] <= 'Z'
	for i := 0; i < len(span); i++ {
		c := span[i]
		if c >= utf8.RuneSelf {
			return false, 0, false
		}
		if c >= 'A' && c <= 'Z' {
			upper++
			if i > 0 {
				titled = false
			}
		}
	}
	return true, upper, titled
}

func appendLowerASCII(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return out
}

func anyUpper(rs []rune, except rune) bool {
	for _, r := range rs {
		if r != except && isUpper(r) {
			return true
		}
	}
	return false
}

// The window the stream is written in: the runs split at a time, and
// the stream bytes gathered before they are tiled.
const (
	windowRuns  = 512
	windowBytes = 2048
)

// stream writes normalized text as the marked stream the tiler covers,
// in out and runs, whose storage it reuses. With tile set it tiles the
// stream as it goes, a window at a time, and returns the cost and the
// last window; otherwise it returns the whole stream.
func (f *family) stream(tb *tables, norm string, headStripped bool, out []byte, runs []run, tile bool) ([]byte, int) {
	t := tb.chars
	out = out[:0]
	if f.frameTail == tailLadder {
		norm = strings.TrimRight(norm, "\n")
	}
	// The frame ends in a word start, which stands for one leading space.
	if f.frameBow && !headStripped && strings.HasPrefix(norm, " ") && !strings.HasPrefix(norm, "  ") {
		norm = norm[1:]
	}
	sp := newRunSplitter(t, norm)
	runs = sp.next(runs[:0], windowRuns)
	if len(runs) == 0 {
		return out, 0
	}
	body := func(i int) string { return norm[runs[i].lo:runs[i].hi] }
	bordersSpace := func(i, side int) bool {
		j := i + side
		if j < 0 {
			return f.frameBow
		}
		if j >= len(runs) || runs[j].cls != clsSpace {
			return false
		}
		b := body(j)
		if side < 0 {
			return b[len(b)-1] == ' '
		}
		return b[0] == ' ' && (len(b) == 1 || b[1] != ' ')
	}

	first, fb := runs[0], body(0)
	headQuote := opensWord(norm, runs, 0)
	ownBow := !headQuote && (first.cls == clsWordy || first.cls == clsPunct || first.cls == clsStray ||
		first.cls == clsKiller || t.borderable(fb) ||
		(first.cls == clsDigit || first.cls == clsHard) && t.digitBow(fb) ||
		first.cls == clsSpace && fb[0] == ' ')
	if !ownBow && f.frameBow {
		if headQuote {
			out = append(out, ' ')
		} else {
			out = append(out, bow)
		}
	}
	cost, pending := 0, 0
	for i := 0; i < len(runs); i++ {
		if i+1 == len(runs) && !sp.done {
			// Slide the window, keeping the two runs before this one,
			// which the rules look back at; the next is looked ahead at.
			keep := i - 2
			runs = runs[:copy(runs, runs[keep:])]
			i -= keep
			runs = sp.next(runs, windowRuns)
		}
		if tile && len(out) >= windowBytes && out[len(out)-1] == eow {
			// What precedes a word end is final, and a chunk ends there.
			cost += tb.tileChunks(out[pending:])
			out = append(out[:0], eow)
			pending = 1
		}
		rn := runs[i]
		b := body(i)
		switch {
		case rn.cls == clsWordy:
			fused := i > 0 && runs[i-1].cls == clsStray
			// A contraction suffix is at most two letters after a lone
			// apostrophe.
			withBow := !fused && !(len(b) <= 2 && i > 0 && runs[i-1].cls == clsPunct && t.contractionSeam(norm, runs, i))
			if ascii, upper, titled := asciiCase(b); ascii && !fused {
				// The common case, written in one pass.
				marker := byte(0)
				switch {
				case tb.allcapsMin > 0 && upper == len(b) && len(b) >= tb.allcapsMin:
					marker = caps
				case upper > 0 && titled:
					marker = shift
				}
				at := len(out)
				if withBow && seamAt(out, at) {
					at--
					out = out[:at]
				}
				if marker != 0 {
					out = append(out, marker)
				}
				if withBow {
					out = append(out, bow)
				}
				if marker != 0 {
					out = appendLowerASCII(out, b)
				} else {
					out = append(out, b...)
				}
				out = append(out, eow)
				if tile && withBow {
					// The word is a chunk of its own: tile what precedes
					// it, then the word.
					switch at - pending {
					case 0:
					case 1:
						cost++ // a byte is one token
					default:
						cost += tb.tileChunks(out[pending:at])
					}
					cost += tb.chunkCost(out[at:])
					out = append(out[:0], eow)
					pending = 1
				}
				continue
			}
			at := len(out)
			out = markCase(out, t, b, tb.allcapsMin, fused)
			if withBow {
				// The word start follows the case marker.
				k := at
				for k < len(out) && (out[k] == shift || out[k] == caps) {
					k++
				}
				out = append(out, 0)
				copy(out[k+1:], out[k:])
				out[k] = bow
				if seamAt(out, at) {
					out = append(out[:at-1], out[at:]...)
				}
			}
			out = append(out, eow)
		case rn.cls == clsStray:
			out = appendBow(out)
			out = append(out, b...)
			if !(i+1 < len(runs) && runs[i+1].cls == clsWordy) {
				out = append(out, eow)
			}
		case rn.cls == clsSpace:
			out = append(out, b...)
		case rn.cls == clsKiller:
			if bordersSpace(i, -1) {
				out = appendBow(out)
			}
			out = append(out, b...)
			if bordersSpace(i, +1) {
				out = append(out, eow)
			}
		case rn.cls == clsDigit && b[0] < utf8.RuneSelf && b[len(b)-1] < utf8.RuneSelf:
			// ASCII digits at both ends take no border markers.
			out = append(out, b...)
		case rn.cls == clsPunct || t.borderable(b):
			if bordersSpace(i, -1) && !opensWord(norm, runs, i) {
				out = appendBow(out)
			}
			out = append(out, b...)
			if bordersSpace(i, +1) {
				out = append(out, eow)
			}
		case (rn.cls == clsDigit || rn.cls == clsHard) && t.digitRun(b):
			if t.digitBow(b) && bordersSpace(i, -1) {
				out = appendBow(out)
			}
			out = append(out, b...)
			if t.digitEow(b) && bordersSpace(i, +1) {
				out = append(out, eow)
			}
		default:
			out = append(out, b...)
		}
	}
	if tile {
		cost += tb.tileChunks(out[pending:])
	}
	return out, cost
}

// The seam: a single space between a word end and the next word start
// (case markers may stand between) is not written, the marker pair
// encodes it.

// seamAt reports whether out[at-1] is such a space: out[at:] is the case
// markers and word start just written.
func seamAt(out []byte, at int) bool {
	return at >= 2 && out[at-1] == ' ' && out[at-2] == eow
}

// appendBow appends a word start, dropping the seam's space before it.
func appendBow(out []byte) []byte {
	if seamAt(out, len(out)) {
		out = out[:len(out)-1]
	}
	return append(out, bow)
}

// classifyASCII is classify for an ASCII character. Controls other than
// whitespace never reach it: normalize strips them.
func (*charTable) classifyASCII(r rune) uint8 {
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
	return clsHard
}

// runClass is the class of a character in the run split, where a
// word-run separator is a class of its own.
func (t *charTable) runClass(r rune) uint8 {
	if r >= utf8.RuneSelf && t.killer(r) {
		return clsKiller
	}
	return t.classify(r)
}

// strayMark reports a combining mark that, with no letter before it,
// opens a word of its own.
func (t *charTable) strayMark(r rune) bool {
	return !syriacVowel(r) && t.combining(r) && !t.killer(r)
}

// classify returns the class of one character.
func (t *charTable) classify(r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiClass[r]
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
