//go:build unix

package agentfiles

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
)

// TestLoadSpecialFiles checks that agent files pass the workspace's root
// check: a link to a file outside the workspace is kept as skipped without
// being read, a named pipe neither blocks Load nor is read, and a link
// inside the workspace is read.
func TestLoadSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fsguardtest.Write(t, filepath.Join(dir, "notes.md"), "# Inside\n")
	fsguardtest.Links(t, dir, map[string]string{
		"CLAUDE.md": fsguardtest.Outside(t, "secret.md", "TOP-SECRET\n"),
		"GEMINI.md": filepath.Join(dir, "notes.md"),
	})
	fsguardtest.Pipe(t, filepath.Join(dir, "AGENTS.md"))
	s := fsguardtest.Call(t, "Load", func() (*Set, error) { return Load(t.Context(), dir, nil) })
	tests := []struct {
		rel, skipped string // skipped: "" when the file must be read
	}{
		{"CLAUDE.md", "outside the workspace"},
		{"AGENTS.md", "not a regular file"},
		{"GEMINI.md", ""},
	}
	for _, tt := range tests {
		f, ok := s.File(filepath.Join(dir, tt.rel))
		switch {
		case !ok:
			t.Errorf("%s: not found among %d agent files", tt.rel, len(s.Files))
		case strings.Contains(string(f.Text), "TOP-SECRET"):
			t.Errorf("%s: read from outside the workspace", tt.rel)
		case tt.skipped == "" && (f.Skipped != "" || !strings.Contains(string(f.Text), "Inside")):
			t.Errorf("%s: Skipped %q, text %q; want it read", tt.rel, f.Skipped, f.Text)
		case tt.skipped != "" && !strings.Contains(f.Skipped, tt.skipped):
			t.Errorf("%s: Skipped %q; want it to say %q", tt.rel, f.Skipped, tt.skipped)
		}
	}
}
