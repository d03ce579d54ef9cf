package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/ops"
)

func TestInprocPanicRecovered(t *testing.T) {
	customMethods["ctxls/test/panic"] = func(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
		var m map[string]int
		m["boom"]++ // a nil map write: a bug in a handler
		return nil, nil
	}
	defer delete(customMethods, "ctxls/test/panic")
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	err := c.call("ctxls/test/panic", map[string]any{}, nil)
	var werr *jsonrpc2.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc2.InternalError {
		t.Fatalf("panicking request: %v, want InternalError", err)
	}
	c.notify("ctxls/test/panic", map[string]any{}) // a panicking notification is dropped
	var cmds struct{ Items []ops.CommandInfo }
	c.mustCall("ctxls/commands", map[string]any{}, &cmds)
	if len(cmds.Items) == 0 {
		t.Error("the server stopped answering after a panic")
	}
}
