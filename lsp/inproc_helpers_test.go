package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// inprocClient is the test client (client_test.go) driving a Server in
// this process through pipes, with real framing and JSON on the wire.
type inprocClient struct {
	*Client
	srv  *Server
	root string
	done chan error // what Serve returned
}

// inprocOptions tune the client's initialize request.
type inprocOptions struct {
	utf8         bool
	capabilities map[string]any
	initOptions  any
	noInit       bool
	diagDelay    time.Duration     // 0: a short delay for quick tests
	watch        bool              // run the server-side file watcher
	reclaim      func()            // Options.Reclaim
	idle         func()            // Options.Idle
	indexGate    chan struct{}     // Options.indexGate
	previewGate  chan struct{}     // Options.previewGate
	methods      map[string]method // Options.methods
	// wrapClient, when set, wraps the server's view of the client once
	// initialize is answered and before initialized is sent.
	wrapClient func(protocol.Client) protocol.Client
}

// inprocStart serves a new Server on dir and returns an initialized client.
func inprocStart(t testing.TB, dir string, o inprocOptions) *inprocClient {
	t.Helper()
	srvIn, cliOut := io.Pipe()
	cliIn, srvOut := io.Pipe()
	if o.diagDelay == 0 {
		o.diagDelay = 5 * time.Millisecond
	}
	srv := New(Options{NoWatch: !o.watch, DiagnosticsDelay: o.diagDelay, Reclaim: o.reclaim, Idle: o.idle, indexGate: o.indexGate, previewGate: o.previewGate, methods: o.methods})
	c := &inprocClient{Client: newClient(t, cliOut), srv: srv, root: dir, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := srv.Serve(ctx, srvIn, srvOut)
		srvOut.Close() // the client's read loop ends
		c.done <- err
	}()
	c.start(cliIn)
	t.Cleanup(func() {
		cancel()
		cliOut.Close()
		select {
		case <-c.Client.done:
		case <-time.After(30 * time.Second):
			t.Error("server did not stop")
		}
	})
	if o.noInit {
		return c
	}
	caps := map[string]any{
		"window":    map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}}},
	}
	if o.utf8 {
		caps["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
	}
	for k, v := range o.capabilities {
		caps[k] = v
	}
	init := map[string]any{
		"processId":        nil,
		"rootUri":          string(uriOf(dir)),
		"capabilities":     caps,
		"workspaceFolders": []any{map[string]any{"uri": string(uriOf(dir)), "name": filepath.Base(dir)}},
	}
	if o.initOptions != nil {
		init["initializationOptions"] = o.initOptions
	}
	var res map[string]any
	if err := c.call("initialize", init, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if o.wrapClient != nil {
		srv.client = o.wrapClient(srv.client)
	}
	c.notify("initialized", map[string]any{})
	return c
}

// call sends a request and decodes its result into out. An error response
// is returned as a *jsonrpc2.Error, as the server made it.
func (c *inprocClient) call(method string, params, out any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if params == nil {
		params = json.RawMessage("null")
	}
	res, err := c.CallRaw(ctx, method, params)
	var rpcErr *ClientRPCError
	if errors.As(err, &rpcErr) {
		return jsonrpc2.NewError(jsonrpc2.Code(rpcErr.Code), rpcErr.Message)
	}
	if err != nil {
		return err
	}
	if out == nil || len(res) == 0 {
		return nil
	}
	if p, ok := out.(*json.RawMessage); ok {
		*p = res
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		c.t.Fatalf("decode %s result %s: %v", method, res, err)
	}
	return nil
}

// callErr sends a request that must fail and returns its error response;
// a result or a failure of the connection fails the test.
func (c *inprocClient) callErr(method string, params any) *jsonrpc2.Error {
	c.t.Helper()
	err := c.call(method, params, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) {
		c.t.Fatalf("%s: got %v, want an error response", method, err)
	}
	return rpcErr
}

// mustCall is call that fails the test on an error.
func (c *inprocClient) mustCall(method string, params, out any) {
	c.t.Helper()
	if err := c.call(method, params, out); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *inprocClient) notify(method string, params any) {
	c.t.Helper()
	if params == nil {
		params = json.RawMessage("null")
	}
	if err := c.Notify(method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// uri is the URI of a path under the root, given as path elements.
func (c *inprocClient) uri(elem ...string) string {
	return string(uriOf(filepath.Join(append([]string{c.root}, elem...)...)))
}

// read returns the disk text of a file under the root.
func (c *inprocClient) read(rel string) string {
	c.t.Helper()
	return stdioRead(c.t, filepath.Join(c.root, rel))
}

// remove deletes a file under the root.
func (c *inprocClient) remove(rel string) {
	c.t.Helper()
	if err := os.Remove(filepath.Join(c.root, rel)); err != nil {
		c.t.Fatal(err)
	}
}

// noteContains is true of a notification whose JSON holds s.
func noteContains(s string) func(json.RawMessage) bool {
	return func(raw json.RawMessage) bool { return strings.Contains(string(raw), s) }
}

// open sends didOpen for path (relative to the root) with its disk text,
// or with text when given.
func (c *inprocClient) open(rel string, text ...string) string {
	c.t.Helper()
	var content string
	if len(text) > 0 {
		content = text[0]
	} else {
		content = c.read(rel)
	}
	u := c.uri(rel)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "markdown", "version": 1, "text": content}})
	return u
}

// waitNote waits for a notification that satisfies ok and returns it.
func (c *inprocClient) waitNote(method string, ok func(json.RawMessage) bool) json.RawMessage {
	c.t.Helper()
	return c.waitNoteSince(0, method, ok)
}

// waitQuiet waits until no notification has arrived for d.
func (c *inprocClient) waitQuiet(d time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	n := c.noteCount()
	for {
		if time.Now().After(deadline) {
			c.t.Fatalf("notifications kept arriving for 30 s (%d so far)", n)
		}
		time.Sleep(d)
		if m := c.noteCount(); m == n {
			return
		} else {
			n = m
		}
	}
}

// noteCount returns the number of notifications received so far.
func (c *inprocClient) noteCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notifications)
}

// waitNoteSince is waitNote among the notifications after the first since.
func (c *inprocClient) waitNoteSince(since int, method string, ok func(json.RawMessage) bool) json.RawMessage {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	seen := since
	for {
		c.mu.Lock()
		notes := c.notifications[seen:]
		c.mu.Unlock()
		for _, n := range notes {
			seen++
			if n.Method == method && (ok == nil || ok(n.Params)) {
				return n.Params
			}
		}
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no %s notification arrived", method)
		}
	}
}

// inprocDiagnostics is the decoded form of publishDiagnostics.
type inprocDiagnostics struct {
	URI         string             `json:"uri"`
	Version     *int32             `json:"version"`
	Diagnostics []inprocDiagnostic `json:"diagnostics"`
}

// inprocDiagnostic is one diagnostic as the client decodes it.
type inprocDiagnostic struct {
	Range    protocolRange   `json:"range"`
	Severity int             `json:"severity"`
	Code     string          `json:"code"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data"`
	Related  []struct {
		Location struct {
			URI   string        `json:"uri"`
			Range protocolRange `json:"range"`
		} `json:"location"`
		Message string `json:"message"`
	} `json:"relatedInformation"`
}

// protocolRange is a range as the client decodes it.
type protocolRange = protocol.Range

// waitDiagnostics waits for diagnostics of uri that satisfy ok.
func (c *inprocClient) waitDiagnostics(u string, ok func(inprocDiagnostics) bool) inprocDiagnostics {
	c.t.Helper()
	return c.waitDiagnosticsSince(0, u, ok)
}

// waitDiagnosticsSince is waitDiagnostics among the notifications after
// the first since.
func (c *inprocClient) waitDiagnosticsSince(since int, u string, ok func(inprocDiagnostics) bool) inprocDiagnostics {
	c.t.Helper()
	var out inprocDiagnostics
	c.waitNoteSince(since, "textDocument/publishDiagnostics", func(raw json.RawMessage) bool {
		if !strings.Contains(string(raw), u) {
			return false
		}
		var d inprocDiagnostics
		if json.Unmarshal(raw, &d) != nil || d.URI != u {
			return false
		}
		if ok != nil && !ok(d) {
			return false
		}
		out = d
		return true
	})
	return out
}

// diagCodes is true of a publication whose diagnostics have exactly the
// codes want, in order: diagCodes() of one with none.
func diagCodes(want ...string) func(inprocDiagnostics) bool {
	return func(d inprocDiagnostics) bool {
		if len(d.Diagnostics) != len(want) {
			return false
		}
		for i, dg := range d.Diagnostics {
			if dg.Code != want[i] {
				return false
			}
		}
		return true
	}
}

// diagHas is true of a publication with a diagnostic of code.
func diagHas(code string) func(inprocDiagnostics) bool {
	return func(d inprocDiagnostics) bool {
		for _, dg := range d.Diagnostics {
			if dg.Code == code {
				return true
			}
		}
		return false
	}
}

// anyDiagnostics is true of a publication with at least one diagnostic.
func anyDiagnostics(d inprocDiagnostics) bool { return len(d.Diagnostics) > 0 }

// diagVersion is true of the publication for document version v.
func diagVersion(v int32) func(inprocDiagnostics) bool {
	return func(d inprocDiagnostics) bool { return d.Version != nil && *d.Version == v }
}

// inprocWorkspace serves a new workspace of files (relative path →
// content) and returns an initialized client.
func inprocWorkspace(t *testing.T, files map[string]string, o inprocOptions) *inprocClient {
	t.Helper()
	dir := t.TempDir()
	testtree.WriteFiles(t, dir, libtest.WithRoot(files))
	return inprocStart(t, dir, o)
}

// inprocCopyLibrary copies the example library into a temporary directory.
func inprocCopyLibrary(t *testing.T) string {
	t.Helper()
	return libtest.CopyExample(t)
}

// inprocPos returns the position of the first occurrence of needle in
// text (plus delta bytes), in the given encoding's units.
func inprocPos(t *testing.T, text, needle string, delta int, utf8 bool) map[string]any {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q not in text", needle)
	}
	off := i + delta
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndex(text[:off], "\n") + 1
	col := off - start
	if !utf8 {
		col = 0
		for _, r := range text[start:off] {
			if r >= 0x10000 {
				col += 2
			} else {
				col++
			}
		}
	}
	return map[string]any{"line": line, "character": col}
}
