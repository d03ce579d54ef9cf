package claude

// The measured character populations the marked stream rests on. Each
// was measured against the count_tokens endpoint, one character at a time
// where a set is enumerated; no Unicode property reproduces them.

// punctSymbols are the non-ASCII symbols and punctuation that tile over
// the punctuation vocabulary rather than standing alone.
const punctSymbols = "—»«•°„–−£§€…√→（№†└│།·─═█"

// symbolLetters are blocks of symbol-letters that take the whole word
// model (markers, seam, case) like Latin letters.
var symbolLetters = [][2]rune{
	{0x16EE, 0x16F0}, // Runic golden numbers
	{0x2160, 0x2188}, // Roman numerals
	{0x24B6, 0x24E9}, // circled letters
	{0xA6E6, 0xA6EF}, // Bamum number-letters
}

// separatorSigns separate word runs as a virama does, without having
// combining class 9.
const separatorSigns = "\u0740\u0741\u0742\u0743\u0744\u0745\u0746\u0747\u0748\u0749\u074a" +
	"\u093c\u0951\u0952\u0953\u0954\u09bc\u09fe\u0a3c\u0abc\u0afd\u0afe\u0aff\u0b3c\u0b55" +
	"\u0c3c\u0cbc\u0e47\u0e48\u0e49\u0e4a\u0e4b\u0e4c\u0e4e\u0ec8\u0ec9\u0eca\u0ecb\u0ecc\u0ece" +
	"\u0f18\u0f19\u0f35\u0f37\u0f39\u0f3e\u0f3f\u0f86\u0f87\u0fc6\u1037" +
	"\u17b4\u17b5\u17c9\u17ca\u17cb\u17cc\u17cd\u17ce\u17cf\u17d0\u17d1\u17d3\u17dd" +
	"\u1a75\u1a76\u1a77\u1a78\u1a79\u1a7a\u1a7b\u1a7c\u1a7f" +
	"\u1b34\u1b6b\u1b6c\u1b6d\u1b6e\u1b6f\u1b70\u1b71\u1b72\u1b73\ua9b3"

// nonSeparator is the one combining-class-9 character that does not
// separate word runs: THAI CHARACTER PHINTHU.
const nonSeparator = '\u0e3a'

// separatorRanges are the combining accents, tone, cantillation and
// annotation marks that close the word before themselves.
var separatorRanges = [][2]rune{
	{0x0300, 0x0344}, {0x0346, 0x0362},
	{0x0483, 0x0489}, {0x0591, 0x05af}, {0x0658, 0x0658}, {0x06df, 0x06e0}, {0x06ea, 0x06ec},
	{0x07eb, 0x07f3}, {0x07fd, 0x07fd}, {0x0859, 0x085b}, {0x0898, 0x089f}, {0x08ca, 0x08d3}, {0x08e0, 0x08e1},
	{0x0818, 0x0819}, {0x082d, 0x082d}, {0x08ea, 0x08ef}, {0x135d, 0x135f},
	{0x180b, 0x180d}, {0x180f, 0x180f}, {0x1939, 0x193b},
	{0x1ab0, 0x1abe}, {0x1ac1, 0x1acb}, {0x1cd0, 0x1ce8}, {0x1ced, 0x1ced}, {0x1cf4, 0x1cf4}, {0x1cf8, 0x1cf9},
	{0x1be6, 0x1be6}, {0x1c37, 0x1c37}, {0x1cf7, 0x1cf7},
	{0x1dc0, 0x1dd2}, {0x1df5, 0x1dff}, {0x20d0, 0x20f0}, {0xa66f, 0xa672}, {0xa67c, 0xa67d},
	{0x2cef, 0x2cf1}, {0x302a, 0x302f}, {0x3099, 0x309a},
	{0xa6f0, 0xa6f1}, {0xa8e0, 0xa8f1}, {0xa92b, 0xa92d}, {0xaabf, 0xaabf}, {0xaac1, 0xaac1}, {0xabec, 0xabec},
	{0xfe20, 0xfe2f},
}

func inRanges(r rune, rs [][2]rune) bool {
	for _, x := range rs {
		if r >= x[0] && r <= x[1] {
			return true
		}
	}
	return false
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

// A word-run separator ("killer") is a mark of combining class 9 other
// than nonSeparator, one of separatorSigns, or in separatorRanges.

// hardRune reports the character-based letter scripts (Han, Hangul
// syllables, everything astral) and the few marks that behave like them.
func hardRune(r rune) bool {
	return r >= 0x10000 ||
		r >= 0x4E00 && r <= 0x9FFF ||
		r >= 0x3400 && r <= 0x4DBF ||
		r >= 0xF900 && r <= 0xFAFF ||
		r >= 0xAC00 && r <= 0xD7A3 ||
		r == 0x3005 || r == 0x3006 ||
		r >= 0x06DD && r <= 0x06E0 ||
		r >= 0x06E9 && r <= 0x06EC
}

func variationSelector(r rune) bool { return r >= 0xFE00 && r <= 0xFE0F }

// syriacVowel reports a Syriac vowel point, which acts as a word-forming
// letter where no base can hold it.
func syriacVowel(r rune) bool { return r == 0x0711 || r >= 0x0730 && r <= 0x073F }

// ideographicPunct reports punctuation of the CJK Symbols and
// Punctuation block, which takes no border marker.
func (t *charTable) ideographicPunct(r rune) bool {
	return r >= 0x3001 && r <= 0x303F && isPunctCat(t.cat(r))
}

// marksLikePunct reports a character the border-marker rule can claim:
// BMP punctuation, symbol or format character, not ideographic.
func (t *charTable) marksLikePunct(r rune) bool {
	if r >= 0x10000 {
		return false
	}
	c := t.cat(r)
	return (isPunctCat(c) || isSymbolCat(c) || c == catCf) && !t.ideographicPunct(r)
}

// digitBorder reports a digit that takes border markers: a non-ASCII
// decimal digit or any other number.
func (t *charTable) digitBorder(r rune) bool {
	c := t.cat(r)
	return c == catNo || c == catNd && r >= 0x80
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
