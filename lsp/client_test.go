package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// This file holds the one LSP client of the tests, written from the LSP
// specification so that the tests see the server exactly as an editor
// does: Content-Length framing over a server process's stdio
// (StartClient) or over pipes to a Server in this process (inprocStart).
// It reads at all times and answers the server's requests off its read
// loop, so that it never makes the server wait.

// stdioMessage is any JSON-RPC 2.0 message: request, notification or
// response.
type stdioMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ClientRPCError `json:"error,omitempty"`
}

// ClientRPCError is a JSON-RPC error object received from the server.
type ClientRPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *ClientRPCError) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// ClientNotification is a notification the server sent, with the time it
// arrived.
type ClientNotification struct {
	Method string
	Params json.RawMessage
	At     time.Time
}

// ClientDiagnostic is the part of an LSP Diagnostic the tests look at.
type ClientDiagnostic struct {
	Range    ClientRange     `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
	Related  []struct {
		Location ClientLocation `json:"location"`
		Message  string         `json:"message"`
	} `json:"relatedInformation,omitempty"`
}

// CodeString returns the diagnostic's code as a string.
func (d ClientDiagnostic) CodeString() string {
	var s string
	if json.Unmarshal(d.Code, &s) == nil {
		return s
	}
	return string(d.Code)
}

// ClientPublishDiagnostics is the params of textDocument/publishDiagnostics.
type ClientPublishDiagnostics struct {
	URI         string             `json:"uri"`
	Version     *int32             `json:"version"`
	Diagnostics []ClientDiagnostic `json:"diagnostics"`
}

// ClientPosition is an LSP Position.
type ClientPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// ClientRange is an LSP Range.
type ClientRange struct {
	Start ClientPosition `json:"start"`
	End   ClientPosition `json:"end"`
}

// ClientLocation is an LSP Location.
type ClientLocation struct {
	URI   string      `json:"uri"`
	Range ClientRange `json:"range"`
}

// ClientTextEdit is an LSP TextEdit.
type ClientTextEdit struct {
	Range   ClientRange `json:"range"`
	NewText string      `json:"newText"`
}

// Client is an LSP client driving one server over a pair of streams.
type Client struct {
	t       testing.TB
	cmd     *exec.Cmd // nil for a server in this process
	stdin   io.WriteCloser
	stderr  *libtest.SyncBuffer
	done    chan struct{} // closed when the read loop ends
	exited  chan struct{} // closed when the server has ended
	waitErr error
	changed chan struct{} // signalled on every notification

	writeMu sync.Mutex
	nextID  atomic.Int64

	mu            sync.Mutex
	pending       map[string]chan stdioMessage
	notifications []ClientNotification
	watchers      []*stdioWatcher
	serverReqs    []stdioMessage
	unmatched     []stdioMessage // responses to ids we did not send (e.g. null)
	readErr       error
	open          map[string]bool // the documents DidOpen opened and CloseAll has not closed
	// record, when set, keeps every message the server sent, whole.
	record   bool
	received [][]byte
	// largest is the size of the largest message the server sent.
	largest int
}

type stdioWatcher struct {
	method string
	match  func(json.RawMessage) bool
	ch     chan ClientNotification
}

// StartClient starts the server command and begins reading its output.
// The process is killed when the test ends if it is still running.
func StartClient(t testing.TB, dir string, name string, args ...string) *Client {
	t.Helper()
	return startClientEnv(t, dir, nil, name, args...)
}

// startClientEnv is StartClient with env ("KEY=value") added to the
// server's environment, over the test's own.
func startClientEnv(t testing.TB, dir string, env []string, name string, args ...string) *Client {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("stdin pipe: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	c := newClient(t, stdin)
	c.cmd = cmd
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	c.start(stdout)
	go func() {
		<-c.done
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			_ = c.stdin.Close()
			select {
			case <-c.exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				select {
				case <-c.exited:
				case <-time.After(30 * time.Second):
					t.Errorf("the killed server's output did not end (a child may hold it)")
				}
			}
		}
		if s := c.stderr.String(); stdioLooksLikeCrash(s) {
			t.Errorf("server crashed; stderr:\n%s", stdioTail(s, 4000))
		}
	})
	return c
}

// newClient returns a client that writes to w; start begins reading.
func newClient(t testing.TB, w io.WriteCloser) *Client {
	return &Client{
		t:       t,
		stdin:   w,
		stderr:  &libtest.SyncBuffer{Max: 4 << 20}, // the head of a crash says enough
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
		changed: make(chan struct{}, 1),
		pending: map[string]chan stdioMessage{},
	}
}

// start reads the server's messages from r until it ends.
func (c *Client) start(r io.Reader) { go c.readLoop(r) }

// stdioLooksLikeCrash reports whether a server's stderr shows a Go panic
// or a fatal runtime error.
func stdioLooksLikeCrash(stderr string) bool {
	return strings.Contains(stderr, "panic:") || strings.Contains(stderr, "fatal error:") ||
		strings.Contains(stderr, "goroutine ") && strings.Contains(stderr, "[running]")
}

func stdioTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// Record makes the client keep every message the server sends from now
// on, for Received.
func (c *Client) Record() {
	c.mu.Lock()
	c.record = true
	c.mu.Unlock()
}

// Received returns every message the server sent since Record, one JSON
// body a line.
func (c *Client) Received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Join(c.received, []byte("\n"))
}

// Stderr returns what the server wrote to stderr so far.
func (c *Client) Stderr() string { return c.stderr.String() }

func (c *Client) readLoop(stdout io.Reader) {
	defer close(c.done)
	r := bufio.NewReaderSize(stdout, 1<<20)
	tp := textproto.NewReader(r)
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			c.setReadErr(fmt.Errorf("read header: %w", err))
			return
		}
		n, err := strconv.Atoi(hdr.Get("Content-Length"))
		if err != nil || n < 0 {
			c.setReadErr(fmt.Errorf("bad Content-Length %q from server", hdr.Get("Content-Length")))
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			c.setReadErr(fmt.Errorf("read body: %w", err))
			return
		}
		c.mu.Lock()
		if c.record {
			c.received = append(c.received, body)
		}
		c.largest = max(c.largest, n)
		c.mu.Unlock()
		var msg stdioMessage
		if err := decodeMessage(body, &msg); err != nil {
			c.setReadErr(fmt.Errorf("server sent invalid JSON %q: %w", stdioTail(string(body), 200), err))
			return
		}
		c.dispatch(msg)
	}
}

// Largest returns the size in bytes of the largest message the server
// has sent.
func (c *Client) Largest() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.largest
}

func (c *Client) setReadErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readErr = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

func (c *Client) dispatch(msg stdioMessage) {
	now := time.Now()
	switch {
	case msg.Method != "" && len(msg.ID) > 0: // request from the server
		c.mu.Lock()
		c.serverReqs = append(c.serverReqs, msg)
		c.mu.Unlock()
		go c.answerServerRequest(msg)
	case msg.Method != "": // notification
		n := ClientNotification{Method: msg.Method, Params: msg.Params, At: now}
		c.mu.Lock()
		c.notifications = append(c.notifications, n)
		var keep []*stdioWatcher
		for _, w := range c.watchers {
			if w.method == n.Method && (w.match == nil || w.match(n.Params)) {
				w.ch <- n // buffered, one value
				continue
			}
			keep = append(keep, w)
		}
		c.watchers = keep
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
	default: // response
		key := string(msg.ID)
		c.mu.Lock()
		ch, ok := c.pending[key]
		delete(c.pending, key)
		if !ok {
			c.unmatched = append(c.unmatched, msg)
		}
		c.mu.Unlock()
		if ok {
			ch <- msg
		} else {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		}
	}
}

// answerServerRequest answers requests from the server the way a minimal
// editor does: no configuration values, accepted registrations and
// progress tokens, edits applied.
func (c *Client) answerServerRequest(msg stdioMessage) {
	var result any
	switch msg.Method {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		result = make([]any, len(p.Items))
	case "workspace/applyEdit":
		result = map[string]any{"applied": true}
	default:
		result = nil
	}
	raw, _ := json.Marshal(result)
	_ = c.write(stdioMessage{JSONRPC: "2.0", ID: msg.ID, Result: raw})
}

// decodeMessage decodes a message into m as json.Unmarshal would. It
// walks the top level with jsontext and copies the raw values: with
// encoding/json, the client took longer to read a 10,000-item execution
// list than the server to answer it, as an editor's JSON.parse does not.
func decodeMessage(body []byte, m *stdioMessage) error {
	d := jsontext.NewDecoder(bytes.NewReader(body))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return fmt.Errorf("a message is a JSON object: %.40q", body)
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String() // the token is void after the next read
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		switch name {
		case "jsonrpc":
			err = json.Unmarshal(v, &m.JSONRPC)
		case "id":
			m.ID = json.RawMessage(v.Clone())
		case "method":
			err = json.Unmarshal(v, &m.Method)
		case "params":
			m.Params = json.RawMessage(v.Clone())
		case "result":
			m.Result = json.RawMessage(v.Clone())
		case "error":
			err = json.Unmarshal(v, &m.Error)
		}
		if err != nil {
			return fmt.Errorf("message field %s: %w", name, err)
		}
	}
	return nil
}

// ServerRequests returns the methods of the requests the server sent.
func (c *Client) ServerRequests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.serverReqs {
		out = append(out, m.Method)
	}
	return out
}

// Unmatched returns responses whose id the client never used (for
// example the null id of a parse error).
func (c *Client) Unmatched() []stdioMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]stdioMessage(nil), c.unmatched...)
}

// WaitUnmatched waits for a response to id (as written in JSON) among
// those to messages the client did not send itself (WriteRaw, WriteFrame).
// Each response is returned once.
func (c *Client) WaitUnmatched(ctx context.Context, id string) (stdioMessage, error) {
	for {
		c.mu.Lock()
		for i, m := range c.unmatched {
			if string(m.ID) == id {
				c.unmatched = slices.Delete(c.unmatched, i, i+1)
				c.mu.Unlock()
				return m, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		case <-c.done:
			return stdioMessage{}, fmt.Errorf("the server closed its output before the response to %s: %v", id, c.readError())
		case <-ctx.Done():
			return stdioMessage{}, fmt.Errorf("no response to %s: %w", id, ctx.Err())
		}
	}
}

func (c *Client) write(msg stdioMessage) error {
	msg.JSONRPC = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode %s: %w", msg.Method, err)
	}
	return c.WriteFrame(body)
}

// WriteFrame writes body with a correct Content-Length header.
func (c *Client) WriteFrame(body []byte) error {
	return c.WriteRaw(append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(body)), body...))
}

// WriteRaw writes bytes to the server's stdin as they are.
func (c *Client) WriteRaw(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.stdin.Write(b)
	return err
}

// CloseStdin closes the server's stdin (end of file).
func (c *Client) CloseStdin() error { return c.stdin.Close() }

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(stdioMessage{Method: method, Params: raw})
}

// Send sends a request and returns a channel that receives its response.
// The channel is closed without a value if the connection ends first.
func (c *Client) Send(method string, params any) (id json.RawMessage, resp <-chan stdioMessage, err error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	id = json.RawMessage(strconv.FormatInt(c.nextID.Add(1), 10))
	ch := make(chan stdioMessage, 1)
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, nil, fmt.Errorf("connection closed: %w", err)
	}
	c.pending[string(id)] = ch
	c.mu.Unlock()
	if err := c.write(stdioMessage{ID: id, Method: method, Params: raw}); err != nil {
		c.mu.Lock()
		delete(c.pending, string(id))
		c.mu.Unlock()
		return nil, nil, fmt.Errorf("send %s: %w", method, err)
	}
	return id, ch, nil
}

// CallRaw sends a request and waits for its response. An error response is
// returned as *ClientRPCError.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	_, ch, err := c.Send(method, params)
	if err != nil {
		return nil, err
	}
	select {
	case msg, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: connection closed before the response: %v; stderr: %s", method, c.readError(), stdioTail(c.Stderr(), 2000))
		}
		if msg.Error != nil {
			return nil, msg.Error
		}
		return msg.Result, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no response: %w", method, ctx.Err())
	}
}

// Call sends a request, waits for the response and decodes its result into
// out (when out is not nil).
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decode result %s: %w", method, stdioTail(string(raw), 300), err)
	}
	return nil
}

func (c *Client) readError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// Expect registers interest in the next notification of method for which
// match returns true (nil matches any). Register before causing it.
func (c *Client) Expect(method string, match func(json.RawMessage) bool) <-chan ClientNotification {
	ch := make(chan ClientNotification, 1)
	c.mu.Lock()
	c.watchers = append(c.watchers, &stdioWatcher{method: method, match: match, ch: ch})
	c.mu.Unlock()
	return ch
}

// Notifications returns the notifications of method received so far.
func (c *Client) Notifications(method string) []ClientNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ClientNotification
	for _, n := range c.notifications {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// ClientProgress is the params of $/progress, as far as the tests read
// them.
type ClientProgress struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind        string `json:"kind"`
		Title       string `json:"title"`
		Cancellable bool   `json:"cancellable"`
	} `json:"value"`
}

// Progress returns the $/progress notifications received so far.
func (c *Client) Progress() []ClientProgress {
	var out []ClientProgress
	for _, n := range c.Notifications("$/progress") {
		var p ClientProgress
		if json.Unmarshal(n.Params, &p) == nil {
			out = append(out, p)
		}
	}
	return out
}

// LatestDiagnostics returns the most recent diagnostics published for uri.
func (c *Client) LatestDiagnostics(uri string) (ClientPublishDiagnostics, bool) {
	ns := c.Notifications("textDocument/publishDiagnostics")
	for i := len(ns) - 1; i >= 0; i-- {
		var p ClientPublishDiagnostics
		if json.Unmarshal(ns[i].Params, &p) == nil && stdioSameURI(p.URI, uri) {
			return p, true
		}
	}
	return ClientPublishDiagnostics{}, false
}

// WaitDiagnostics waits until the latest diagnostics published for uri
// satisfy ok, and returns them.
func (c *Client) WaitDiagnostics(ctx context.Context, uri string, ok func([]ClientDiagnostic) bool) ([]ClientDiagnostic, error) {
	for {
		ch := c.Expect("textDocument/publishDiagnostics", func(raw json.RawMessage) bool {
			var p ClientPublishDiagnostics
			return json.Unmarshal(raw, &p) == nil && stdioSameURI(p.URI, uri)
		})
		if p, found := c.LatestDiagnostics(uri); found && ok(p.Diagnostics) {
			return p.Diagnostics, nil
		}
		select {
		case <-ch:
		case <-c.done:
			return nil, fmt.Errorf("connection closed while waiting for diagnostics of %s: %v", uri, c.readError())
		case <-ctx.Done():
			p, _ := c.LatestDiagnostics(uri)
			return p.Diagnostics, fmt.Errorf("diagnostics of %s: %w (latest: %s)", uri, ctx.Err(), stdioDiagSummary(p.Diagnostics))
		}
	}
}

func stdioDiagSummary(ds []ClientDiagnostic) string {
	var b strings.Builder
	b.WriteString("[")
	for i, d := range ds {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d:%d %s %s", d.Range.Start.Line, d.Range.Start.Character, d.CodeString(), d.Message)
	}
	b.WriteString("]")
	return b.String()
}

// stdioSameURI compares file URIs, tolerating differences in percent
// encoding of characters that need none.
func stdioSameURI(a, b string) bool {
	if a == b {
		return true
	}
	return stdioURIPath(a) == stdioURIPath(b)
}

// Initialize sends initialize and initialized. capabilities may be nil.
func (c *Client) Initialize(ctx context.Context, root string, capabilities map[string]any, initOptions any) (json.RawMessage, error) {
	if capabilities == nil {
		capabilities = stdioDefaultCapabilities()
	}
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]any{"name": "ctxls-stdio-test", "version": "1"},
		"rootUri":               stdioFileURI(root),
		"rootPath":              root,
		"workspaceFolders":      []any{map[string]any{"uri": stdioFileURI(root), "name": "library"}},
		"capabilities":          capabilities,
		"initializationOptions": initOptions,
		"trace":                 "off",
	}
	raw, err := c.CallRaw(ctx, "initialize", params)
	if err != nil {
		return nil, err
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		return nil, err
	}
	return raw, nil
}

// stdioDefaultCapabilities are the client capabilities of an ordinary
// editor: markdown hovers, snippets, completion list defaults, rename with
// file operations, work done progress, UTF-16 positions.
func stdioDefaultCapabilities() map[string]any {
	return map[string]any{
		"general": map[string]any{},
		"window":  map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{
			"workspaceFolders": true,
			"configuration":    true,
			"applyEdit":        true,
			"workspaceEdit": map[string]any{
				"documentChanges":    true,
				"resourceOperations": []string{"create", "rename", "delete"},
			},
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			"fileOperations":        map[string]any{"willRename": true, "didRename": true},
		},
		"textDocument": map[string]any{
			"synchronization": map[string]any{"didSave": true, "dynamicRegistration": false},
			"completion": map[string]any{
				"completionItem": map[string]any{
					"snippetSupport":      true,
					"documentationFormat": []string{"markdown", "plaintext"},
				},
				// As VS Code's client asks.
				"completionList": map[string]any{
					"itemDefaults": []string{"commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"},
				},
			},
			"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"definition":         map[string]any{"linkSupport": false},
			"rename":             map[string]any{"prepareSupport": true},
			"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": true},
			"diagnostic":         map[string]any{"dynamicRegistration": false},
		},
	}
}

// Shutdown sends shutdown and exit and waits for the process to end. It
// returns the process's exit error (nil for status 0).
func (c *Client) Shutdown(ctx context.Context) error {
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := c.Notify("exit", nil); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	return c.Wait(ctx)
}

// Wait waits for the process to end and returns its exit error.
func (c *Client) Wait(ctx context.Context) error {
	select {
	case <-c.exited:
		return c.waitErr
	case <-ctx.Done():
		return fmt.Errorf("server still running: %w", ctx.Err())
	}
}

// stdioSignaled reports whether the process was killed by a signal (a
// crash or our own kill), as opposed to exiting.
func stdioSignaled(err error) bool {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			return ws.Signaled()
		}
	}
	return false
}

// DidOpen opens a document with its text.
func (c *Client) DidOpen(uri, text string) error {
	c.mu.Lock()
	if c.open == nil {
		c.open = map[string]bool{}
	}
	c.open[uri] = true
	c.mu.Unlock()
	return c.Notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text},
	})
}

// DidClose closes a document.
func (c *Client) DidClose(uri string) error {
	c.mu.Lock()
	delete(c.open, uri)
	c.mu.Unlock()
	return c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// CloseAll closes every document DidOpen opened, so that the next user of
// the server finds none open, as an editor leaves it after closing its tabs.
func (c *Client) CloseAll() error {
	c.mu.Lock()
	uris := slices.Sorted(maps.Keys(c.open))
	c.open = nil
	c.mu.Unlock()
	for _, uri := range uris {
		if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
			return fmt.Errorf("didClose %s: %w", uri, err)
		}
	}
	return nil
}

// stdioPos builds TextDocumentPositionParams.
func stdioPos(uri string, line, char int) map[string]any {
	return map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"position":     map[string]any{"line": line, "character": char},
	}
}

// stdioUTF16Len returns the length of s in UTF-16 code units.
func stdioUTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// stdioFind returns the 0-based line and the UTF-16 and UTF-8 columns of
// the nth (0-based) occurrence of needle in text, plus offset within the
// needle.
func stdioFind(t testing.TB, text, needle string, nth int) (line, col16, col8 int) {
	t.Helper()
	idx := -1
	from := 0
	for i := 0; i <= nth; i++ {
		j := strings.Index(text[from:], needle)
		if j < 0 {
			t.Fatalf("occurrence %d of %q not found", nth, needle)
		}
		idx = from + j
		from = idx + len(needle)
	}
	before := text[:idx]
	line = strings.Count(before, "\n")
	lineStart := strings.LastIndex(before, "\n") + 1
	return line, stdioUTF16Len(text[lineStart:idx]), idx - lineStart
}

// stdioApplyEdits applies non-overlapping TextEdits with UTF-16 positions
// to text.
func stdioApplyEdits(t testing.TB, text string, edits []ClientTextEdit) string {
	t.Helper()
	type span struct {
		start, end int
		newText    string
	}
	var spans []span
	for _, e := range edits {
		spans = append(spans, span{stdioOffset(t, text, e.Range.Start), stdioOffset(t, text, e.Range.End), e.NewText})
	}
	// Apply from the end so earlier offsets stay valid.
	for i := 0; i < len(spans); i++ {
		for j := i + 1; j < len(spans); j++ {
			if spans[j].start > spans[i].start {
				spans[i], spans[j] = spans[j], spans[i]
			}
		}
	}
	for i, s := range spans {
		if i > 0 && s.end > spans[i-1].start {
			t.Fatalf("overlapping edits %+v", edits)
		}
		text = text[:s.start] + s.newText + text[s.end:]
	}
	return text
}

// stdioOffset converts a UTF-16 position to a byte offset in text.
func stdioOffset(t testing.TB, text string, p ClientPosition) int {
	t.Helper()
	off := 0
	for i := 0; i < p.Line; i++ {
		j := strings.IndexByte(text[off:], '\n')
		if j < 0 {
			t.Fatalf("position %+v beyond the last line", p)
		}
		off += j + 1
	}
	units := 0
	for units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		if size == 0 || r == '\n' {
			t.Fatalf("position %+v beyond the end of its line", p)
		}
		units += len(utf16.Encode([]rune{r}))
		off += size
	}
	return off
}

// stdioFileURI returns the file URI of an absolute path.
func stdioFileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// stdioURIPath returns the path of a file URI ("" for other URIs).
func stdioURIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return u.Path
}
