//go:build unix

package ops_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/ops"
)

// TestDocumentCostGuardedRead checks that a document neither open nor
// indexed is read only when the workspace's root check allows it: a link
// to a file outside is refused without reading it, and a named pipe
// neither blocks the request nor is read.
func TestDocumentCostGuardedRead(t *testing.T) {
	t.Parallel()
	o, dir := load(t, tree)
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("python:fastapi_patterns TOP-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "notes", "leak.md")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "notes", "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"link out of the root", link, "outside the workspace"},
		{"named pipe", fifo, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := o.DocumentCost(ctx, ops.DocumentCostRequest{URI: tt.path})
			if ctx.Err() != nil {
				t.Fatalf("DocumentCost(%s) did not return within the deadline", tt.path)
			}
			if err != nil {
				t.Fatalf("DocumentCost(%s): %v", tt.path, err)
			}
			if len(res.Items) != 0 || res.Total != 0 {
				t.Errorf("DocumentCost(%s) read the file: %+v", tt.path, res)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, tt.want) {
				t.Errorf("DocumentCost(%s) warnings = %+v; want one containing %q", tt.path, res.Warnings, tt.want)
			}
		})
	}
}
