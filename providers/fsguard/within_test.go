package fsguard

import (
	"path/filepath"
	"testing"
)

// TestWithinTable asks every case both ways round: p in dir (want), and
// dir in p (back). A check with its arguments swapped, or one that trusts
// a ".." below the directory, fails here.
func TestWithinTable(t *testing.T) {
	t.Parallel()
	sep := string(filepath.Separator)
	w := filepath.Join(sep, "w")
	j := filepath.Join
	for _, tc := range []struct {
		name       string
		dir, p     string
		want, back bool
	}{
		{"the directory itself", w, w, true, true},
		{"a file in it", w, j(w, "a.md"), true, false},
		{"a file below it", w, j(w, "a", "b.md"), true, false},
		{"a sibling sharing the prefix", w, w + "-x", false, false},
		{"below a sibling sharing the prefix", w, j(w+"x", "a.md"), false, false},
		{"the parent", w, sep, false, true},
		{"elsewhere", w, j(sep, "other", "a.md"), false, false},
		{"below the file system root", sep, j(sep, "a.md"), true, false},
		{"no directory", "", sep, false, false},
		{"a name starting with two dots", w, j(w, "..foo"), true, false},
		{"a name of three dots", w, j(w, "..."), true, false},
		{"climbing out with ..", w, w + sep + ".." + sep + "etc", false, false},
		{"climbing out below a folder", w, w + sep + "a" + sep + ".." + sep + ".." + sep + "etc", false, false},
		{"a .. that stays inside, not clean", w, w + sep + "a" + sep + ".." + sep + "b", false, false},
		{"ending in ..", w, w + sep + "a" + sep + "..", false, false},
		{"relative, inside", "skills", j("skills", "a", "SKILL.md"), true, false},
		{"relative, climbing", "skills", "skills" + sep + ".." + sep + "x", false, false},
		{"slash paths", "skills/a", "skills/a/ref.md", true, false},
		{"slash paths, a sibling", "skills/a", "skills/ab/ref.md", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Within(tc.dir, tc.p); got != tc.want {
				t.Errorf("Within(%q, %q) = %v, want %v", tc.dir, tc.p, got, tc.want)
			}
			if got := Within(tc.p, tc.dir); got != tc.back {
				t.Errorf("Within(%q, %q) = %v, want %v (arguments the other way round)", tc.p, tc.dir, got, tc.back)
			}
			if _, ok := Rel(tc.dir, tc.p); ok != tc.want {
				t.Errorf("Rel(%q, %q) inside = %v, want %v", tc.dir, tc.p, ok, tc.want)
			}
		})
	}
}

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

func TestRelSlash(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir, p, want string
	}{
		{"/ws", "/ws/a/b.md", "a/b.md"},
		{"/ws", "/ws", "."},
		{"/ws/", "/ws/CLAUDE.md", "CLAUDE.md"},
		{"/ws", "/other/x.md", "../other/x.md"},
		{"/ws", "/wsx/y.md", "../wsx/y.md"},
		{"/ws", "rel/z.md", "rel/z.md"}, // no path from an absolute folder to a relative one
	} {
		if got := RelSlash(filepath.FromSlash(tc.dir), filepath.FromSlash(tc.p)); got != tc.want {
			t.Errorf("RelSlash(%q, %q) = %q, want %q", tc.dir, tc.p, got, tc.want)
		}
	}
}
