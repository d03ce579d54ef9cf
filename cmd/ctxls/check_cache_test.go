package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/indexcache"
)

// check writes the index cache and gives the same report from it, in
// both formats and after a file changed; --no-cache neither reads nor
// writes it.
func TestCheckIndexCache(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv(indexcache.EnvDir, cacheDir)
	dir := copyTree(t, filepath.Join("..", "..", "examples", "library"))
	cacheFiles := func() int {
		t.Helper()
		ents, err := os.ReadDir(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	check := func(args ...string) (string, int) {
		t.Helper()
		out, _, err := runCLI(t, append([]string{"check", dir}, args...)...)
		return out, exitCode(err)
	}

	for _, step := range []string{"unchanged", "changed"} {
		if step == "changed" {
			p := filepath.Join(dir, "commands", "implement.md")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "\nAlso load python:no_such_topic_here.\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range []string{"json", "text"} {
			want, wantCode := check("--format", format, "--no-cache")
			if wantCode != 1 || want == "" {
				t.Fatalf("%s, check --no-cache --format %s: exit %d, output %q", step, format, wantCode, want)
			}
			if step == "changed" && !strings.Contains(want, "no_such_topic_here") {
				t.Fatalf("the changed file's problem is missing from check --no-cache:\n%s", want)
			}
			for _, run := range []string{"first", "second"} {
				got, code := check("--format", format)
				if got != want || code != wantCode {
					t.Errorf("%s, %s check --format %s (exit %d) differs from check --no-cache (exit %d):\n got %s\nwant %s", step, run, format, code, wantCode, got, want)
				}
			}
		}
		if n := cacheFiles(); n != 2 {
			t.Fatalf("%s: %d files in the cache directory, want 2 (the index and the report)", step, n)
		}
	}

	empty := t.TempDir()
	t.Setenv(indexcache.EnvDir, empty)
	check("--no-cache")
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("check --no-cache wrote %d files to the cache directory", len(ents))
	}
}
