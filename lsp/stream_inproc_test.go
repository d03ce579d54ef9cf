package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// inprocRaw is the test client over pipes to a Server in this process,
// for tests that write frames by hand (malformed ones too).
type inprocRaw struct {
	*Client
}

func inprocRawStart(t *testing.T, dir string, o inprocOptions) *inprocRaw {
	t.Helper()
	o.noInit = true
	return &inprocRaw{inprocStart(t, dir, o).Client}
}

func (c *inprocRaw) send(raw string) {
	c.t.Helper()
	if err := c.WriteRaw([]byte(raw)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// response waits for the response to id (as it is written in JSON) among
// those to frames written by hand.
func (c *inprocRaw) response(id string) map[string]json.RawMessage {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := c.WaitUnmatched(ctx, id)
	if err != nil {
		c.t.Fatal(err)
	}
	out := map[string]json.RawMessage{"id": m.ID}
	if m.Result != nil {
		out["result"] = m.Result
	}
	if m.Error != nil {
		out["error"], _ = json.Marshal(m.Error)
	}
	return out
}

func errorCode(m map[string]json.RawMessage) int {
	var e struct{ Code int }
	json.Unmarshal(m["error"], &e)
	return e.Code
}

func TestInprocBadInput(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocRawStart(t, dir, inprocOptions{})
	hover := func(id int, line int) string {
		return frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":%d,"character":3}}}`,
			id, uriOf(dir+"/commands/implement.md"), line))
	}

	c.send(hover(1, 0))
	if got := errorCode(c.response("1")); got != -32002 {
		t.Errorf("hover before initialize: code %d, want -32002", got)
	}
	c.send(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, uriOf(dir))))
	if m := c.response("2"); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	c.send(frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))

	tests := []struct {
		name  string
		input string
		id    string // the response to expect, if any
		code  int    // its error code, 0 for success
	}{
		{"garbage", "\x00\xff garbage without headers\r\n\r\n", "", 0},
		{"invalid JSON", frame(`{"jsonrpc":"2.0","id":10,"method":`), "null", -32700},
		{"short Content-Length", "Content-Length: 10\r\n\r\n" + `{"jsonrpc":"2.0","id":11,"method":"shutdown"}`, "null", -32700},
		{"not a message", frame(`[1,2`), "null", -32700},
		{"unknown method", frame(`{"jsonrpc":"2.0","id":12,"method":"ctxls/nope","params":{}}`), "12", -32601},
		{"bad notification params", frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":5}}`), "", 0},
		{"bad request params", frame(`{"jsonrpc":"2.0","id":13,"method":"textDocument/hover","params":{"position":"x"}}`), "13", -32602},
		{"position out of range", hover(14, 100000), "14", -32602},
		{"string id", frame(`{"jsonrpc":"2.0","id":"s1","method":"ctxls/commands","params":{}}`), `"s1"`, 0},
	}
	for i, tc := range tests {
		c.send(tc.input)
		if tc.id != "" {
			m := c.response(tc.id)
			if got := errorCode(m); got != tc.code {
				t.Errorf("%s: error code %d, want %d (%s)", tc.name, got, tc.code, m["error"])
			}
		}
		// The server still answers.
		id := 100 + i
		c.send(hover(id, 36))
		if m := c.response(strconv.Itoa(id)); m["error"] != nil {
			t.Errorf("after %s: hover failed: %s", tc.name, m["error"])
		}
	}

	// A 10 MB document is accepted and answered.
	big := strings.Repeat("python:fastapi_patterns and some prose 中文 😀\n", 10<<20/50)
	u := uriOf(dir + "/commands/big.md")
	text, _ := json.Marshal(big)
	c.send(frame(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"markdown","version":1,"text":%s}}}`, u, text)))
	c.send(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":200,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":150000,"character":3}}}`, u)))
	if m := c.response("200"); m["error"] != nil || !strings.Contains(string(m["result"]), "FastAPI") {
		t.Errorf("hover in a 10 MB document: %.300s", m["result"])
	}
}

func TestInprocCancelRequest(t *testing.T) {
	t.Parallel()
	// The index is held until the first request is cancelled: the request
	// waits for it.
	dir := inprocCopyLibrary(t)
	gate := make(chan struct{})
	c := inprocRawStart(t, dir, inprocOptions{indexGate: gate})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release)
	c.send(frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, uriOf(dir))))
	c.response("1")
	c.send(frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
	c.send(frame(`{"jsonrpc":"2.0","id":2,"method":"ctxls/commands","params":{}}`))
	c.send(frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`))
	if got := errorCode(c.response("2")); got != -32800 {
		t.Errorf("cancelled request: code %d, want -32800 (RequestCancelled)", got)
	}
	release()
	c.send(frame(`{"jsonrpc":"2.0","id":3,"method":"ctxls/commands","params":{}}`))
	if m := c.response("3"); m["error"] != nil {
		t.Errorf("the next request failed: %s", m["error"])
	}
}
