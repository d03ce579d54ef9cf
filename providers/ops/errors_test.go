package ops_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/refactor"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/history"
)

// TestErrorCodes: an error of the packages the operations call reaches a
// client with the code of its kind in each protocol, wrapped or not, and
// an error of no kind with none.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		lsp, mcp int64 // 0: no code, the server's own failure
	}{
		{"unknown execution", fmt.Errorf("get execution: %w", execution.ErrNotFound), ops.CodeInvalidParams, ops.CodeResourceNotFound},
		{"bad argument", fmt.Errorf("%w: limit", execution.ErrInvalidArgument), ops.CodeInvalidParams, ops.CodeInvalidParams},
		{"chain running", chain.ErrConflict, ops.CodeConflict, 0},
		{"running elsewhere", fmt.Errorf("step 2: %w", execution.ErrConflict), ops.CodeConflict, 0},
		{"unknown command", chain.ErrUnknownCommand, ops.CodeInvalidParams, ops.CodeResourceNotFound},
		{"unknown conversation", history.ErrUnknownConversation, ops.CodeInvalidParams, ops.CodeResourceNotFound},
		{"forged token", history.ErrInvalidToken, ops.CodeInvalidParams, ops.CodeInvalidParams},
		{"escape", contextapi.ErrEscape, ops.CodeInvalidParams, ops.CodeInvalidParams},
		{"name taken", fmt.Errorf("rename to web:api: %w", refactor.ErrExists), ops.CodeInvalidParams, ops.CodeInvalidParams},
		{"consent", &ops.ConsentError{Dir: "/w", Command: []string{"./agent"}}, ops.CodeConsent, 0},
		{"closed", errkind.Mark(errkind.Unavailable, errors.New("the workspace is closed")), 0, 0},
		{"plain", errors.New("disk on fire"), 0, 0},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			p    ops.Protocol
			name string
			want int64
		}{{ops.LSP, "LSP", tt.lsp}, {ops.MCP, "MCP", tt.mcp}} {
			got, ok := ops.ErrorCode(c.p, tt.err)
			if got != c.want || ok != (c.want != 0) {
				t.Errorf("%s over %s: code %d, %v; want %d", tt.name, c.name, got, ok, c.want)
			}
		}
	}
}

// TestSentinelsHaveKinds: every sentinel error of the packages the
// operations and the front ends report is made with errkind.New, or is another package's
// sentinel, so that the operations map it to a protocol code by its kind
// rather than by a list of every package's errors.
func TestSentinelsHaveKinds(t *testing.T) {
	t.Parallel()
	dirs := []string{"../runs/execution", "../runs/chain", "../runs/history", "../runs/internal/confirm", "../contextapi", "../refactor"}
	checked := 0
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if !strings.HasPrefix(id.Name, "Err") || !id.IsExported() || i >= len(vs.Values) {
							continue
						}
						checked++
						switch v := vs.Values[i].(type) {
						case *ast.CallExpr:
							if sel, ok := v.Fun.(*ast.SelectorExpr); ok && fmt.Sprint(sel.X) == "errkind" && sel.Sel.Name == "New" {
								continue
							}
						case *ast.SelectorExpr: // another package's sentinel
							continue
						}
						t.Errorf("%s: %s is not made with errkind.New", fset.Position(id.Pos()), id.Name)
					}
				}
			}
		}
	}
	if checked < 15 {
		t.Errorf("checked %d sentinels, want at least 15", checked)
	}
}
