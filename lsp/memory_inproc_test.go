package lsp

import (
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// A file an import loads, changed on disk, is checked again when the
// client reports it.
func TestInprocMemoryDiskChange(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		"CLAUDE.md":    "# Memory\n\n@docs/more.md\n",
		"docs/more.md": "More: @gone.md\n",
	}, inprocOptions{})
	dir := c.root
	more := filepath.Join(dir, "docs/more.md")
	c.waitDiagnostics(string(uriOf(more)), diagCodes("import-missing"))
	testtree.WriteFiles(t, dir, map[string]string{"docs/more.md": "More, and nothing else.\n"})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": string(uriOf(more)), "type": 2}}})
	c.waitDiagnostics(string(uriOf(more)), diagCodes())
}
