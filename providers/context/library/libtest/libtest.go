// Package libtest builds small context libraries on disk for tests, as
// net/http/httptest builds servers: a map of slash paths to texts becomes
// a temporary workspace, loaded with the real library model.
package libtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/context/library"
)

// WriteTree writes files (slash path → text) under a new temporary
// directory and returns the directory.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	WriteFiles(t, dir, files)
	return dir
}

// WriteFiles writes files (slash path → text) under dir, making the
// folders they need and replacing what is there.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
