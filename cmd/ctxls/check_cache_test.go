package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/context/indexcache"
)

// check writes the index cache and gives the same report from it;
// --no-cache neither reads nor writes it.
func TestCheckIndexCache(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv(indexcache.EnvDir, cacheDir)
	dir := filepath.Join("..", "..", "examples", "library")
	cacheFiles := func() int {
		t.Helper()
		ents, err := os.ReadDir(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}

	want, _, err := runCLI(t, "check", dir, "--format", "json", "--no-cache")
	if exitCode(err) != 1 || want == "" {
		t.Fatalf("check --no-cache: exit %v, output %q", err, want)
	}
	if n := cacheFiles(); n != 0 {
		t.Fatalf("check --no-cache left %d files in the cache directory", n)
	}
	for _, run := range []string{"cold", "warm"} {
		got, _, err := runCLI(t, "check", dir, "--format", "json")
		if exitCode(err) != 1 {
			t.Fatalf("%s check: exit %v", run, err)
		}
		if got != want {
			t.Errorf("%s check differs from check --no-cache:\n got %s\nwant %s", run, got, want)
		}
		if n := cacheFiles(); n != 1 {
			t.Fatalf("%s check: %d files in the cache directory, want 1", run, n)
		}
	}
}
