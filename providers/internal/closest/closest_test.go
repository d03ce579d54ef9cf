package closest

import (
	"fmt"
	"slices"
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
		// Names skips names whose length differs by more than it
		// allows, on this bound.
		if gap := abs(utf8.RuneCountInString(tt.a) - utf8.RuneCountInString(tt.b)); tt.want < gap {
			t.Errorf("Distance(%q, %q) = %d, under the length gap %d", tt.a, tt.b, tt.want, gap)
		}
	}
}

// BenchmarkNames measures suggesting topic files for missing links, as
// diagnosing a command full of them does.
func BenchmarkNames(b *testing.B) {
	names := []string{"async_patterns.md", "fastapi_patterns.md", "testing_patterns.md", "index.md", "a.md", "django_orm.md", "type_hints.md", "packaging_and_distribution.md"}
	for b.Loop() {
		for i := range 100 {
			Names(fmt.Sprintf("m%d.md", i), names, 3)
			Names("property_based", names, 3)
		}
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	names := []string{"django_patterns", "fastapi_patterns", "flask_patterns", "common_issues", "ml_patterns"}
	tests := []struct {
		want string
		top  string
	}{
		{"django", "django_patterns"},
		{"fastapi_pattern", "fastapi_patterns"},
		{"flsk_patterns", "flask_patterns"},
		{"issues", "common_issues"},
		{"DJANGO_PATTERNS", "django_patterns"},
		{"zzzzzzzz", ""},
	}
	for _, tc := range tests {
		got := Names(tc.want, names, 3)
		top := ""
		if len(got) > 0 {
			top = got[0]
		}
		if top != tc.top {
			t.Errorf("Names(%q) = %v, want first %q", tc.want, got, tc.top)
		}
	}
	if d := distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
	if d := distance("héllo", "hello"); d != 1 {
		t.Errorf("Distance counts bytes, not runes: %d", d)
	}
}

// TestNamesScaleWithLength checks that what counts as a close name
// depends on the names' length: a short name is not a typo of every name
// of about its length, while prefixes and misspelled prefixes still lead
// to the longer topic.
func TestNamesScaleWithLength(t *testing.T) {
	t.Parallel()
	names := []string{"a", "bom", "good", "go_modules", "django_patterns", "fastapi_patterns", "pytest_fixtures", "common_issues"}
	tests := []struct {
		want string
		got  []string
	}{
		{"zz", nil},
		{"goo", []string{"good"}}, // one letter short of "good", not "bom"
		{"bo", []string{"bom"}},
		{"x", nil},
		{"g", nil},
		{"django", []string{"django_patterns"}},
		{"djangoo", []string{"django_patterns"}},
		{"djnago", []string{"django_patterns"}},
		{"djnago_patterns", []string{"django_patterns"}},
		{"fastapi", []string{"fastapi_patterns"}},
		{"fastap", []string{"fastapi_patterns"}},
		{"fast", []string{"fastapi_patterns"}}, // starts a word
		{"fst", nil},
		{"fixture", []string{"pytest_fixtures"}},
		{"django_patterns_v2", []string{"django_patterns"}},
		{"go", []string{"go_modules"}},
		{"good_practice", []string{"good"}},
	}
	for _, tc := range tests {
		if got := Names(tc.want, names, 3); !slices.Equal(got, tc.got) {
			t.Errorf("Names(%q) = %q, want %q", tc.want, got, tc.got)
		}
	}
}

func TestNamesNeedSameFirstWordForLargeDistance(t *testing.T) {
	t.Parallel()
	names := []string{"build_patterns", "analysis_patterns", "implementation_strategies"}
	if got := Names("etl_patterns", names, 3); len(got) != 0 {
		t.Errorf("Names(etl_patterns) = %v, want none", got)
	}
	if got := Names("biuld_patterns", names, 3); len(got) == 0 || got[0] != "build_patterns" {
		t.Errorf("Names(biuld_patterns) = %v", got)
	}
	if got := Names("analysis_pattern", names, 3); len(got) == 0 || got[0] != "analysis_patterns" {
		t.Errorf("Names(analysis_pattern) = %v", got)
	}
}
