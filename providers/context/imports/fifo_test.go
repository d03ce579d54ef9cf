//go:build unix

package imports

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
)

// TestBuildImportOfPipe checks that an import of a named pipe is not read
// and does not hold Build: with no writer, opening it for reading would
// block.
func TestBuildImportOfPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	claude := fsguardtest.Write(t, filepath.Join(dir, "CLAUDE.md"), "@pipe.md @a.md\n")
	fsguardtest.Write(t, filepath.Join(dir, "a.md"), "a\n")
	fsguardtest.Pipe(t, filepath.Join(dir, "pipe.md"))
	tree := fsguardtest.Call(t, "Build", func() (*Tree, error) { return Build(context.Background(), claude, Options{Root: dir}) })
	got := importStatuses(tree)
	if len(got) != 2 || got[0] == "pipe.md=loaded" || got[1] != "a.md=loaded" {
		t.Errorf("imports %v; want pipe.md not loaded and a.md loaded", got)
	}
}
