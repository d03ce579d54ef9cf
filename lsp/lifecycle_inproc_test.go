package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

func TestInprocLifecycle(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{noInit: true})

	// Requests before initialize are refused with ServerNotInitialized.
	if e := c.callErr("textDocument/hover", map[string]any{}); e.Code != jsonrpc2.ServerNotInitialized {
		t.Fatalf("hover before initialize: got %v, want ServerNotInitialized", e)
	}

	var res struct {
		Capabilities struct {
			PositionEncoding string          `json:"positionEncoding"`
			TextDocumentSync json.RawMessage `json:"textDocumentSync"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	c.mustCall("initialize", map[string]any{"processId": nil, "rootUri": string(uriOf(dir)), "capabilities": map[string]any{}}, &res)
	if res.ServerInfo.Name != "ctxls" || res.Capabilities.PositionEncoding != "utf-16" {
		t.Errorf("initialize result: %+v", res)
	}
	c.notify("initialized", map[string]any{})

	// An unknown method is MethodNotFound.
	if e := c.callErr("ctxls/noSuchMethod", map[string]any{}); e.Code != jsonrpc2.MethodNotFound {
		t.Errorf("unknown method: got %v, want MethodNotFound", e)
	}
	var cmds struct {
		Items []ops.CommandInfo `json:"items"`
	}
	c.mustCall("ctxls/commands", map[string]any{}, &cmds)
	// commands/ has four, .claude/commands one.
	if len(cmds.Items) != 5 {
		t.Errorf("ctxls/commands: %d items, want 5", len(cmds.Items))
	}
	c.mustCall("shutdown", nil, nil)
	if e := c.callErr("textDocument/hover", map[string]any{}); e.Code != jsonrpc2.InvalidRequest {
		t.Errorf("hover after shutdown: got %v, want InvalidRequest", e)
	}
	c.notify("exit", nil)
	if err := libtest.Receive(t, c.done, "Serve to return after shutdown and exit"); err != nil {
		t.Errorf("Serve after shutdown+exit: %v", err)
	}
}

// TestInprocReclaim checks that the server hands the garbage of its
// initial work to Options.Reclaim: once after the index and once after the
// diagnostics of every file, and not on ordinary edits.
func TestInprocReclaim(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	var calls atomic.Int32
	c := inprocStart(t, dir, inprocOptions{reclaim: func() { calls.Add(1) }})
	waitCount(&calls, 2)
	u := c.open("commands/notes.md", inprocNoteText)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": inprocNoteText + "\nmore\n"}}})
	c.waitQuiet(200 * time.Millisecond)
	if n := calls.Load(); n != 2 {
		t.Fatalf("Reclaim ran %d times, want 2 (after the index and after the first diagnostics)", n)
	}
}

// waitCount waits up to libtest.Wait for n to reach want and returns n
// then.
func waitCount(n *atomic.Int32, want int32) int32 {
	deadline := time.Now().Add(libtest.Wait)
	for n.Load() < want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return n.Load()
}

// TestInprocIdle checks that Options.Idle runs once the diagnostics of an
// edit are out and no further change came, once per such pause.
func TestInprocIdle(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	var calls atomic.Int32
	c := inprocStart(t, dir, inprocOptions{idle: func() { calls.Add(1) }})
	c.mustCall("ctxls/commands", map[string]any{}, nil) // the index is ready
	u := c.open("commands/notes.md", inprocNoteText)
	// The open is one change: its pause runs Idle once. Counting from
	// after a quiet spell instead would miss that run when it comes late.
	if waitCount(&calls, 1) < 1 {
		t.Fatal("Idle did not run after the open")
	}
	base := calls.Load()
	for i := range 3 {
		since := c.noteCount()
		want := int32(i + 2)
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": want},
			"contentChanges": []any{map[string]any{"text": inprocNoteText + strings.Repeat("\nmore", i+1) + "\n"}}})
		c.waitDiagnosticsSince(since, u, diagVersion(want))
		if n := waitCount(&calls, base+int32(i)+1) - base; n != int32(i)+1 {
			t.Fatalf("after edit %d, Idle ran %d times, want %d", i+1, n, i+1)
		}
	}
	c.waitQuiet(100 * time.Millisecond)
	if n := calls.Load() - base; n != 3 {
		t.Fatalf("Idle ran %d times for 3 pauses, want 3", n)
	}
}

// A workspace folder that does not exist is reported to the user, and
// requests say why they fail, instead of serving an empty library.
func TestInprocMissingRootShowsMessage(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	c := inprocStart(t, dir, inprocOptions{})
	note := c.waitNote("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "does not exist")
	})
	var msg struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(note, &msg); err != nil || msg.Type != 1 || !strings.Contains(msg.Message, dir) {
		t.Errorf("showMessage = %s (%v); want an error naming %s", note, err, dir)
	}
	var res any
	if err := c.call("ctxls/catalog", map[string]any{}, &res); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("catalog on a missing root: %v, %v; want an error that says the folder does not exist", res, err)
	}
}
