package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

func TestInprocPanicRecovered(t *testing.T) {
	t.Parallel()
	panics := func(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
		var m map[string]int
		m["boom"]++ // a nil map write: a bug in a handler
		return nil, nil
	}
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{methods: map[string]method{"ctxls/test/panic": panics}})
	if e := c.callErr("ctxls/test/panic", map[string]any{}); e.Code != jsonrpc2.InternalError {
		t.Fatalf("panicking request: %v, want InternalError", e)
	}
	c.notify("ctxls/test/panic", map[string]any{}) // a panicking notification is dropped
	var cmds struct{ Items []ops.CommandInfo }
	c.mustCall("ctxls/commands", map[string]any{}, &cmds)
	if len(cmds.Items) == 0 {
		t.Error("the server stopped answering after a panic")
	}
}

// TestInprocWarningDoesNotBlockReading sends notifications that fail (each
// logs a warning for the client) to a server whose client is not reading
// at that moment, over pipes without buffers. The server must go on
// reading: a client may be busy writing to it, and if the server's read
// loop waited for the client to take the warning, both would wait forever.
func TestInprocWarningDoesNotBlockReading(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srvIn, w := io.Pipe()
	r, srvOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- New(Options{Dir: dir, NoWatch: true}).Serve(context.Background(), srvIn, srvOut) }()
	t.Cleanup(func() {
		go io.Copy(io.Discard, r)
		w.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("server did not stop at end of input")
		}
	})
	write := func(body string) error {
		_, err := io.WriteString(w, frame(body))
		return err
	}
	if err := write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(r)
	for got := false; !got; {
		var n int
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("read the initialize response: %v", err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatal(err)
		}
		got = strings.Contains(string(body), `"id":1`)
	}
	// From here on nothing is read until every write went through.
	wrote := make(chan error, 1)
	go func() {
		err := write(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		for i := 0; i < 5 && err == nil; i++ {
			err = write(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":5}}`)
		}
		wrote <- err
	}()
	if err := libtest.Receive(t, wrote, "the server to read on while a warning waits for the client"); err != nil {
		t.Fatal(err)
	}
}

// TestInprocGenericErrorCode: a request that fails for a reason with no
// JSON-RPC code of its own (here the database cannot be opened, because
// .ctxls is a file) is answered with RequestFailed, not with code 0.
func TestInprocGenericErrorCode(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	testtree.WriteFiles(t, dir, map[string]string{".ctxls": "not a directory"})
	c := inprocStart(t, dir, inprocOptions{})
	if e := c.callErr("ctxls/execution/list", map[string]any{}); e.Code != codeRequestFailed || !strings.Contains(e.Message, "database") {
		t.Fatalf("execution/list without a database: %v, want RequestFailed (%d) naming the database", e, codeRequestFailed)
	}
}
