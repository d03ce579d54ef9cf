package listing_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/listing"
)

func writeTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, rel := range []string{"a/x.md", "a/skip/y.md", "b/z.md", "b/c/d.md", "e.md", "f/stop.md", "f/after.md", "g/h.md"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// visit records the walk and skips as a discovery walk does: a folder by
// SkipDir, the rest of a folder by SkipDir on a file, the rest of the
// tree by SkipAll.
func visit(dir string, seen *[]string) fs.WalkDirFunc {
	return func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		*seen = append(*seen, filepath.ToSlash(rel))
		switch {
		case d.IsDir() && d.Name() == "skip":
			return fs.SkipDir
		case d.Name() == "stop.md":
			return fs.SkipDir
		case strings.HasPrefix(d.Name(), "g"):
			return fs.SkipAll
		}
		return nil
	}
}

// TestWalkDirAsFilepath checks that a walk through listings calls its
// function as filepath.WalkDir does, and that a second walk reads the
// folders the first one listed from the listings, not the disk.
func TestWalkDirAsFilepath(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	var want, got []string
	if err := filepath.WalkDir(dir, visit(dir, &want)); err != nil {
		t.Fatal(err)
	}
	l := listing.New()
	if err := l.WalkDir(dir, visit(dir, &got)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("walk through listings:\n got %q\nwant %q", got, want)
	}
	// The listing of b is kept: its removal from the disk goes unseen,
	// while a/skip, never listed, is read from the disk.
	if err := os.RemoveAll(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	var noSkip []string
	err := l.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		noSkip = append(noSkip, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"b/c/d.md", "a/skip/y.md", "f/after.md", "g/h.md"} {
		if !slices.Contains(noSkip, rel) {
			t.Errorf("second walk misses %s: %q", rel, noSkip)
		}
	}
	var nilWalk []string
	var none *listing.Listings
	if err := none.WalkDir(dir, visit(dir, &nilWalk)); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(nilWalk, "b/z.md") {
		t.Errorf("a nil Listings kept a listing: %q", nilWalk)
	}
}
