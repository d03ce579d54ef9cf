package history

import "strings"

// stripANSI removes terminal escape sequences from s: agents colour their
// output and draw progress for a terminal, and those bytes mean nothing in
// a stored conversation or in the next prompt, where they only cost
// tokens. It removes CSI sequences (ESC [ … final byte), OSC sequences
// (ESC ] … ended by BEL or ESC \), the other two-byte ESC sequences and
// the 8-bit CSI; any other text is kept as it is.
func stripANSI(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch {
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i = skipCSI(s, i+2)
		case strings.HasPrefix(s[i:], "\u009b"):
			i = skipCSI(s, i+len("\u009b"))
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == ']':
			i = skipOSC(s, i+2)
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] >= 0x40 && s[i+1] <= 0x5f:
			i += 2 // a two-byte sequence such as ESC M or ESC \
		case s[i] == 0x1b && i+2 < len(s) && s[i+1] >= 0x20 && s[i+1] <= 0x2f:
			i += 3 // a character set designation such as ESC ( B
		case s[i] == 0x1b:
			i++ // a lone ESC
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// skipCSI returns the index after the CSI sequence whose parameters start
// at i: parameter and intermediate bytes (0x20–0x3f), then one final byte
// (0x40–0x7e). A sequence cut off by the end of s ends there.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipOSC returns the index after the OSC sequence whose text starts at i,
// ended by BEL or ESC \ (or by the end of s).
func skipOSC(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		}
		i++
	}
	return i
}
