package library

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/document"
)

func TestReleasedTextReadBack(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"context/python/a.md": "# A\n\n## Part\n\nSee `python:b` and `git:x`.\n",
		"context/python/b.md": "# B\n\n## Only\n\nText of b.\n",
		"context/git/x.md":    "# X\n",
		"context/git/z.md":    "# Z\n",
	})
	var mu sync.Mutex
	var told []string
	l, err := Load(context.Background(), dir, config.Default(), Options{Changed: func(p string) {
		mu.Lock()
		told = append(told, p)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := l.Snapshot().File(filepath.Join(dir, "context/python/a.md"))
	if !a.Doc.Released() || a.Doc.Text != nil {
		t.Fatal("a file read from disk kept its text")
	}
	// A vanished file gives its read error (nothing was read back yet, so
	// nothing is kept).
	x, _ := l.Snapshot().Topic("git/x")
	if err := os.Remove(x.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Doc.Content(t.Context()); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Content of a removed file: %v", err)
	}
	if got := x.Doc.Slice(x.Doc.Body); got != nil {
		t.Errorf("Slice of a removed file = %q", got)
	}
	b, _ := l.Snapshot().Topic("python/b")
	s, _ := b.Section("Only")
	if got := string(b.Doc.Slice(s.Content)); got != "## Only\n\nText of b.\n" {
		t.Errorf("section read back = %q", got)
	}

	// a changes on disk unseen; a new domain makes every file's references
	// be scanned again, and a's stay those of its indexed text.
	before := a.Refs.Len()
	if err := os.WriteFile(a.Path, []byte("# A\n\nNothing now.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newDomain := filepath.Join(dir, "context/rust/y.md")
	if err := os.MkdirAll(filepath.Dir(newDomain), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newDomain, []byte("# Y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Apply(t.Context(), []Change{{Path: newDomain}}); err != nil {
		t.Fatal(err)
	}
	a2, _ := l.Snapshot().File(a.Path)
	if a2.Refs.Len() != before || before != 2 {
		t.Errorf("references of the changed file after a rescan: %d, want the indexed %d (2)", a2.Refs.Len(), before)
	}
	if _, err := a2.Doc.Content(t.Context()); !errors.Is(err, document.ErrChanged) {
		t.Errorf("Content of the changed file: %v, want ErrChanged", err)
	}
	mu.Lock()
	if !slices.Contains(told, a.Path) {
		t.Errorf("Options.Changed heard of %v, want %s", told, a.Path)
	}
	mu.Unlock()

	// Re-indexed as after a watcher event, the file reads back again.
	if _, err := l.Apply(t.Context(), []Change{{Path: a.Path}}); err != nil {
		t.Fatal(err)
	}
	a3, _ := l.Snapshot().File(a.Path)
	if got, err := a3.Doc.Content(t.Context()); err != nil || string(got) != "# A\n\nNothing now.\n" || a3.Refs.Len() != 0 {
		t.Errorf("after the re-index: %q, %v, %d references", got, err, a3.Refs.Len())
	}

}
