//go:build unix

package ops_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// TestDocumentCostGuardedRead checks that a document neither open nor
// indexed is read only when the workspace's root check allows it: a link
// to a file outside is refused without reading it, and a named pipe
// neither blocks the request nor is read.
func TestDocumentCostGuardedRead(t *testing.T) {
	t.Parallel()
	o, dir := load(t, tree)
	secret := fsguardtest.Outside(t, "secret.md", "python:fastapi_patterns TOP-SECRET\n")
	link := fsguardtest.Link(t, secret, filepath.Join(dir, "notes", "leak.md"))
	fifo := fsguardtest.Pipe(t, filepath.Join(dir, "notes", "pipe.md"))
	tests := []struct {
		name, path, want string
	}{
		{"link out of the root", link, "outside the workspace"},
		{"named pipe", fifo, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var res ops.DocumentCostResponse
			var err error
			fsguardtest.Within(t, "DocumentCost("+tt.path+")", func() {
				res, err = o.DocumentCost(context.Background(), ops.DocumentCostRequest{URI: tt.path})
			})
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
