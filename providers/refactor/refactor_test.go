package refactor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// load copies the example library into a temporary directory and loads it.
func load(t *testing.T) (*library.Library, string) {
	t.Helper()
	dir := libtest.CopyExample(t)
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lib, dir
}

// apply applies edits to the files on disk.
func apply(t *testing.T, edits map[string][]diag.Edit) {
	t.Helper()
	for p, es := range edits {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for i := len(es) - 1; i >= 0; i-- {
			text = text[:es[i].Span.Start] + es[i].NewText + text[es[i].Span.End:]
		}
		os.WriteFile(p, []byte(text), 0o644)
	}
}

func TestRenameErrors(t *testing.T) {
	t.Parallel()
	lib, _ := load(t)
	fastapi, _ := lib.Snapshot().Topic("python/fastapi_patterns")
	tests := []struct {
		name string
		want error
	}{
		{"../x", ErrInvalidName},
		{"", ErrInvalidName},
		{"a b", ErrInvalidName},
		{"pydantic_models", ErrExists},
		{"Pydantic_Models", ErrExists}, // differs from a topic only in case
		{strings.Repeat("a", 253), ErrInvalidName},
		{strings.Repeat("a", 252), nil}, // 255 bytes with .md
		{"FastAPI_Patterns", nil},       // its own name in other case
		{"fastapi_guide.md", nil},
	}
	for _, tc := range tests {
		_, err := Rename(lib.Snapshot(), fastapi, tc.name)
		if !errors.Is(err, tc.want) {
			t.Errorf("Rename(%q): %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestRenameOntoExistingName checks that a rename refuses a new name that
// something the library does not know holds already, through the path
// guard: a file, a link into the workspace and a link out of it.
func TestRenameOntoExistingName(t *testing.T) {
	t.Parallel()
	lib, dir := load(t)
	fastapi, _ := lib.Snapshot().Topic("python/fastapi_patterns")
	outside := filepath.Join(t.TempDir(), "elsewhere.md")
	if err := os.WriteFile(outside, []byte("# Elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(dir, "context", "python")
	// Made after the load, so that only the check of the disk sees them.
	if err := os.WriteFile(filepath.Join(py, "plain.md"), []byte("# Plain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"link_in.md": filepath.Join(py, "plain.md"), "link_out.md": outside}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(py, name)); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	tests := []struct {
		name string
		want error
	}{
		{"plain", ErrExists},
		{"link_in", ErrExists},
		{"link_out", ErrExists},
		{"free", nil},
	}
	for _, tc := range tests {
		if _, err := Rename(lib.Snapshot(), fastapi, tc.name); !errors.Is(err, tc.want) {
			t.Errorf("Rename(%q): %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestMovesAndEdits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		from, to string // relative paths; from "" renames fastapi_patterns to guide
		want     map[string][]string
	}{
		{"rename", "", "", map[string][]string{
			"commands/implement.md":              {"python/fastapi_guide,", `getCachedContext(state, "python", "fastapi_guide")`},
			"commands/review.md":                 {"context/python/fastapi_guide.md"},
			"context/python/fastapi_patterns.md": {"id: python/fastapi_guide\n"},
		}},
		{"move to another domain", "context/python/fastapi_patterns.md", "context/security/fastapi.md", map[string][]string{
			"commands/implement.md":              {"security/fastapi,", "`security:fastapi#Dependency Injection`"},
			"context/python/index.md":            {"path: ../security/fastapi.md"},
			"context/python/fastapi_patterns.md": {"id: security/fastapi\n", "domain: security\n"},
		}},
		{"domain folder", "context/git", "context/vcs", map[string][]string{
			"commands/implement.md": {"[python, vcs,", `getDomainIndex("vcs")`, "vcs/commit_conventions]"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lib, dir := load(t)
			var edits map[string][]diag.Edit
			if tc.from == "" {
				fastapi, _ := lib.Snapshot().Topic("python/fastapi_patterns")
				m, err := Rename(lib.Snapshot(), fastapi, "fastapi_guide")
				if err != nil {
					t.Fatal(err)
				}
				edits = Edits(lib.Snapshot(), []Move{m}, []FileMove{{From: m.Topic.Path, To: m.NewPath}})
			} else {
				from, to := filepath.Join(dir, tc.from), filepath.Join(dir, tc.to)
				moves, stranded := Moves(lib.Snapshot(), from, to)
				if len(moves) == 0 || len(stranded) > 0 {
					t.Fatalf("moves %v stranded %v", moves, stranded)
				}
				edits = Edits(lib.Snapshot(), moves, []FileMove{{From: from, To: to}})
			}
			apply(t, edits)
			for rel, wants := range tc.want {
				data, _ := os.ReadFile(filepath.Join(dir, rel))
				for _, w := range wants {
					if !strings.Contains(string(data), w) {
						t.Errorf("%s lacks %q", rel, w)
					}
				}
			}
		})
	}
}

func TestFrontmatter(t *testing.T) {
	t.Parallel()
	lib, _ := libtest.Load(t, map[string]string{"context/go/errors.md": "# Errors: true or \"false\"\n\n## Wrapping\n\nUse %w.\n"})
	topic, ok := lib.Snapshot().Topic("go/errors")
	if !ok {
		t.Fatal("no topic")
	}
	fm := frontmatter(topic)
	var m map[string]any
	if err := yaml.Unmarshal([]byte(strings.Trim(fm, "-\n")), &m); err != nil {
		t.Fatalf("frontmatter does not parse: %v\n%s", err, fm)
	}
	if m["id"] != "go/errors" || m["title"] != `Errors: true or "false"` || m["estimatedTokens"] != topic.Tokens {
		t.Errorf("frontmatter: %v", m)
	}
}
