// Package libtest builds small context libraries on disk for tests, as
// net/http/httptest builds servers: a map of slash paths to texts becomes
// a temporary workspace, loaded with the real library model.
package libtest

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library"
)

// WriteTree writes files (slash path → text) under a new temporary
// directory and returns the directory. A tree with files under context/
// and no .ctxls.yaml gets one naming context in contextRoots: a folder's
// name alone does not make it a library, and the small trees of tests
// show it by no other file.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	return testtree.New(t, WithRoot(files))
}

// WithRoot returns files with a .ctxls.yaml naming context in
// contextRoots when files has some under context/ and no .ctxls.yaml.
func WithRoot(files map[string]string) map[string]string {
	if _, ok := files[".ctxls.yaml"]; ok {
		return files
	}
	for p := range files {
		if strings.HasPrefix(p, "context/") {
			out := maps.Clone(files)
			out[".ctxls.yaml"] = "contextRoots: [context]\n"
			return out
		}
	}
	return files
}

// CopyTree copies the tree at src, but for its .ctxls state folders, to
// dst.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".ctxls" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// ExampleDir returns the example library of the repository
// (examples/library).
func ExampleDir(t testing.TB) string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("the source of libtest is unknown")
	}
	return filepath.Join(filepath.Dir(self), "..", "..", "..", "examples", "library")
}

// LoadExample loads the example library where it is, for tests that only
// read it.
func LoadExample(t testing.TB) *library.Library {
	t.Helper()
	lib, err := library.Load(context.Background(), ExampleDir(t), nil, library.Options{})
	if err != nil {
		t.Fatalf("load the example library: %v", err)
	}
	return lib
}

// CopyExample copies the example library to a folder named library in a
// new temporary directory and returns that folder, for tests that change
// its files or let a server write its state there.
func CopyExample(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "library")
	CopyTree(t, ExampleDir(t), dst)
	return dst
}

// Load writes files as WriteTree does and loads the workspace with the
// default configuration. It returns the library and its directory.
func Load(t testing.TB, files map[string]string) (*library.Library, string) {
	t.Helper()
	dir := WriteTree(t, files)
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return lib, dir
}
