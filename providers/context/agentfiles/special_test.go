//go:build unix

package agentfiles

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadSpecialFiles checks that agent files pass the workspace's root
// check: a link to a file outside the workspace is kept as skipped without
// being read, a named pipe neither blocks Load nor is read, and a link
// inside the workspace is read.
func TestLoadSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("TOP-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "notes.md"), filepath.Join(dir, "GEMINI.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "AGENTS.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Load(ctx, dir, nil)
	if ctx.Err() != nil {
		t.Fatal("Load did not return within the deadline")
	}
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
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
