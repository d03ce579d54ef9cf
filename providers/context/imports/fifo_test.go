//go:build unix

package imports

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestBuildImportOfPipe checks that an import of a named pipe is not read
// and does not hold Build: with no writer, opening it for reading would
// block.
func TestBuildImportOfPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("@pipe.md @a.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan *Tree, 1)
	go func() {
		tree, err := Build(context.Background(), filepath.Join(dir, "CLAUDE.md"), Options{Root: dir})
		if err != nil {
			t.Errorf("Build: %v", err)
		}
		done <- tree
	}()
	select {
	case tree := <-done:
		if tree == nil {
			return
		}
		var got []string
		for _, e := range tree.Root().Imports {
			got = append(got, e.Path+"="+e.Status.String())
		}
		if len(got) != 2 || got[0] == "pipe.md=loaded" || got[1] != "a.md=loaded" {
			t.Errorf("imports %v; want pipe.md not loaded and a.md loaded", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Build blocked on an import of a named pipe")
	}
}
