package library

import "testing"

// slugIs agrees with comparing Slug's result.
func TestSlugIs(t *testing.T) {
	t.Parallel()
	headings := []string{
		"", "  ", "Overview", "1. Memory Leaks", "Load \"Always\" Files", "  Spaced  Out ",
		"Ünïcödé Straße", "İstanbul", "snake_case-and-dash", "C++ & Go/Rust", "emoji 🚀 rocket",
		"bad \xff byte", "ΣΊΣΥΦΟΣ", "tab\there",
	}
	slugs := []string{"", "overview", "1-memory-leaks", "load-always-files", "spaced--out", "memory-leaks", "\xff"}
	for _, h := range headings {
		for _, s := range append([]string{slugOf(h)}, slugs...) {
			if got, want := slugIs(h, s), slugOf(h) == s; got != want {
				t.Errorf("slugIs(%q, %q) = %v, want %v (Slug gives %q)", h, s, got, want, slugOf(h))
			}
		}
	}
}
