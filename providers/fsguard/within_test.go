package fsguard

import (
	"path/filepath"
	"testing"
)

// TestWithinReversed asks both ways round: a directory does not lie in a
// file below it, which a check with its arguments swapped would answer.
func TestWithinReversed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(string(filepath.Separator), "w")
	p := filepath.Join(dir, "a", "b.md")
	if !Within(dir, p) {
		t.Errorf("Within(%q, %q) = false", dir, p)
	}
	if Within(p, dir) {
		t.Errorf("Within(%q, %q) = true", p, dir)
	}
	if _, ok := Rel(p, dir); ok {
		t.Errorf("Rel(%q, %q) is inside", p, dir)
	}
}

func TestWithinRelative(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir, p string
		want   bool
	}{
		{"skills/a", "skills/a", true},
		{"skills/a", "skills/a/ref.md", true},
		{"skills/a", "skills/ab/ref.md", false},
		{"skills/a/ref.md", "skills/a", false},
		{"skills/a", "../skills/a", false},
	} {
		if got := Within(filepath.FromSlash(tc.dir), filepath.FromSlash(tc.p)); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.dir, tc.p, got, tc.want)
		}
	}
}

func TestClimbs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{"..", true},
		{"../rootx", true},
		{"../", true},
		{"a/../../x", true},
		{"./../x", true},
		{"..rootx", false},
		{"..rootx/a.md", false},
		{"a/..", false},
		{"a/../b", false},
		{".", false},
		{"a/b.md", false},
		{"...", false},
	} {
		if got := Climbs(tc.p); got != tc.want {
			t.Errorf("Climbs(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
}
