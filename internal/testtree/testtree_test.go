package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, comment string
		files             []File
		out               string // "" when Format gives in back
	}{
		{"comment only", "a note\n", "a note\n", nil, ""},
		{"files", "note\n-- a.md --\n# A\n-- b/c.md --\n\n-- d --\n", "note\n",
			[]File{{"a.md", "# A\n"}, {"b/c.md", "\n"}, {"d", ""}}, ""},
		{"no final newline", "-- a --\nx", "", []File{{"a", "x\n"}}, "-- a --\nx\n"},
		{"dashes in text", "-- a --\n-- not a marker\n--  --\n", "", []File{{"a", "-- not a marker\n--  --\n"}}, ""},
		{"same name twice", "-- a --\n1\n-- a --\n2\n", "", []File{{"a", "1\n"}, {"a", "2\n"}}, ""},
		{"name with spaces", "-- @hover x --\nok\n", "", []File{{"@hover x", "ok\n"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := Parse([]byte(tc.in))
			if a.Comment != tc.comment {
				t.Errorf("comment %q, want %q", a.Comment, tc.comment)
			}
			if len(a.Files) != len(tc.files) {
				t.Fatalf("files %q, want %q", a.Files, tc.files)
			}
			for i := range a.Files {
				if a.Files[i] != tc.files[i] {
					t.Errorf("file %d = %q, want %q", i, a.Files[i], tc.files[i])
				}
			}
			want := tc.out
			if want == "" {
				want = tc.in
			}
			if got := string(Format(a)); got != want {
				t.Errorf("Format = %q, want %q", got, want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	dir := New(t, map[string]string{"a/b/c.md": "c\n", "d.md": ""})
	for rel, want := range map[string]string{"a/b/c.md": "c\n", "d.md": ""} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	WriteFiles(t, dir, map[string]string{"d.md": "replaced\n"})
	if got, _ := os.ReadFile(filepath.Join(dir, "d.md")); string(got) != "replaced\n" {
		t.Errorf("WriteFiles did not replace d.md: %q", got)
	}
}
