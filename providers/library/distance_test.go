package library

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("patterns_", 8) // longer than the stack buffers
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"django", "django", 0},
		{"djangoo", "django", 1},
		{"fastapi", "fastpai", 2},
		{"kitten", "sitting", 3},
		{"café", "cafe", 1},
		{"日本語", "日本", 1},
		{long, long + "x", 1},
		{"x" + long, long, 1},
		{long, strings.ToUpper(long), 64},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
		// Suggest skips names whose length differs by more than it
		// allows, on this bound.
		if gap := abs(utf8.RuneCountInString(tt.a) - utf8.RuneCountInString(tt.b)); tt.want < gap {
			t.Errorf("Distance(%q, %q) = %d, under the length gap %d", tt.a, tt.b, tt.want, gap)
		}
	}
}

// BenchmarkSuggest measures suggesting topic files for missing links, as
// diagnosing a command full of them does.
func BenchmarkSuggest(b *testing.B) {
	names := []string{"async_patterns.md", "fastapi_patterns.md", "testing_patterns.md", "index.md", "a.md", "django_orm.md", "type_hints.md", "packaging_and_distribution.md"}
	for b.Loop() {
		for i := range 100 {
			Suggest(fmt.Sprintf("m%d.md", i), names, 3)
			Suggest("property_based", names, 3)
		}
	}
}

func TestLastTwo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p, dir, file string
		ok           bool
	}{
		{"python/django.md", "python", "django.md", true},
		{"../context/python/django.md", "python", "django.md", true},
		{"/django.md", "", "django.md", true},
		{"django.md", "", "", false},
	}
	for _, tt := range tests {
		dir, file, ok := lastTwo(tt.p)
		if dir != tt.dir || file != tt.file || ok != tt.ok {
			t.Errorf("lastTwo(%q) = %q, %q, %v; want %q, %q, %v", tt.p, dir, file, ok, tt.dir, tt.file, tt.ok)
		}
	}
}
