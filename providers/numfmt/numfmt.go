// Package numfmt writes numbers for people, the one way every text of
// ctxls writes them: 12,480 with comma separators, "1 file" and "3 files".
package numfmt

import "strconv"

// Thousands formats n with comma separators: 12,480.
func Thousands(n int) string {
	s, sign := strconv.Itoa(n), ""
	if n < 0 {
		// The digits of s, not -n, which overflows for the least int.
		s, sign = s[1:], "-"
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

// Plural returns the "s" that follows a noun counted n times.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Count returns n with comma separators and noun, with an "s" unless n is
// 1: "1 line", "12,480 lines".
func Count(n int, noun string) string {
	return Thousands(n) + " " + noun + Plural(n)
}
