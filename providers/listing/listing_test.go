package listing_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/listing"
)

func writeTree(t *testing.T) string {
	t.Helper()
	files := map[string]string{}
	for _, rel := range []string{"a/x.md", "a/skip/y.md", "b/z.md", "b/c/d.md", "e.md", "f/stop.md", "f/after.md", "g/h.md"} {
		files[rel] = ""
	}
	return testtree.New(t, files)
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

// TestWalkDirEntries checks that the walk hands its function the paths,
// names and types filepath.WalkDir hands it, whatever the spelling of the
// root, links and empty folders included.
func TestWalkDirEntries(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	record := func(seen *[]string) fs.WalkDirFunc {
		return func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			*seen = append(*seen, p+" "+d.Name()+" "+d.Type().String())
			return nil
		}
	}
	for _, root := range []string{dir, dir + string(filepath.Separator), filepath.Join(dir, "a") + string(filepath.Separator) + ".." + string(filepath.Separator) + "b"} {
		var want, got []string
		if err := filepath.WalkDir(root, record(&want)); err != nil {
			t.Fatal(err)
		}
		for _, l := range []*listing.Listings{nil, listing.New()} {
			got = got[:0]
			if err := l.WalkDir(root, record(&got)); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("walk of %s:\n got %q\nwant %q", root, got, want)
			}
		}
	}
}

// TestEntryType checks the types a walk's listings give: a link is a link,
// whether it leads to a folder outside the tree or nowhere, and a folder
// the walk did not list is not known.
func TestEntryType(t *testing.T) {
	t.Parallel()
	dir := writeTree(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"out": outside, "gone": filepath.Join(outside, "missing")} {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	lst := listing.New()
	if err := lst.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && d.Name() == "c" {
			return fs.SkipDir
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, name string
		typ       fs.FileMode
		ok        bool
	}{
		{dir, "e.md", 0, true},
		{dir, "a", fs.ModeDir, true},
		{dir, "out", fs.ModeSymlink, true},
		{dir, "gone", fs.ModeSymlink, true},
		{dir, "nothing", 0, false},
		{filepath.Join(dir, "b"), "c", fs.ModeDir, true},
		{filepath.Join(dir, "b", "c"), "d.md", 0, false},   // skipped, so not listed
		{filepath.Join(dir, "out"), "secret.md", 0, false}, // a link is not walked into
	}
	for _, tt := range tests {
		typ, ok := lst.EntryType(tt.dir, tt.name)
		if typ != tt.typ || ok != tt.ok {
			rel, _ := filepath.Rel(dir, filepath.Join(tt.dir, tt.name))
			t.Errorf("EntryType of %s = %v, %v; want %v, %v", rel, typ, ok, tt.typ, tt.ok)
		}
	}
	var none *listing.Listings
	if _, ok := none.EntryType(dir, "e.md"); ok {
		t.Error("a nil set of listings knows an entry")
	}
}

// BenchmarkWalkDir lists a tree of 200 folders of 50 files each, as a
// check's first walk lists a repository.
func BenchmarkWalkDir(b *testing.B) {
	dir := b.TempDir()
	for i := range 200 {
		d := filepath.Join(dir, fmt.Sprintf("p%03d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 50 {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("m%03d.ts", j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := listing.New().WalkDir(dir, func(string, fs.DirEntry, error) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
