package fsguard

import "testing"

// TestWithinWindows holds Windows paths, with their drive letters and
// either separator.
func TestWithinWindows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir, p string
		want   bool
		rel    string
	}{
		{`C:\w`, `C:\w`, true, "."},
		{`C:\w`, `C:\w\a\b.md`, true, "a/b.md"},
		{`C:\w`, `C:\wx\a`, false, ""},
		{`C:\w`, `D:\w\a`, false, ""},
		{`C:\w\a`, `C:\w`, false, ""},
		{`C:\`, `C:\a`, true, "a"},
		{`C:\w`, `C:\w\..rootx`, true, "..rootx"},
	} {
		if got := Within(tc.dir, tc.p); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.dir, tc.p, got, tc.want)
		}
		if rel, ok := Rel(tc.dir, tc.p); ok != tc.want || rel != tc.rel {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", tc.dir, tc.p, rel, ok, tc.rel, tc.want)
		}
	}
}
