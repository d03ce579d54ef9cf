package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"

	"strings"
	"testing"
	"time"
)

// These tests build the ctxls binary once and drive `ctxls serve` over
// pipes as an editor does. They know the server only through the LSP
// specification, SPEC.md and the example library.

// stdioBinary is the path of the ctxls binary built by TestMain.
var stdioBinary string

func TestMain(m *testing.M) {
	os.Exit(stdioRunMain(m))
}

func stdioRunMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ctxls-stdio-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	stdioBinary = filepath.Join(dir, "ctxls")
	cmd := exec.Command("go", "build", "-o", stdioBinary, "github.com/ctxls/ctxls/cmd/ctxls")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build ctxls:", err)
		return 1
	}
	return m.Run()
}

// stdioTimeout bounds every wait of a test, generous for 2 shared cores.
const stdioTimeout = 30 * time.Second

// stdioCtx returns a context that ends with the test or after stdioTimeout.
func stdioCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), stdioTimeout)
	t.Cleanup(cancel)
	return ctx
}

// stdioExampleRoot returns the example library of the repository.
func stdioExampleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "examples", "library"))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// stdioWorkspace copies the example library into a temporary directory,
// so that tests can change files and the server can write its database.
func stdioWorkspace(t testing.TB) string {
	t.Helper()
	src := stdioExampleRoot(t)
	dst := filepath.Join(t.TempDir(), "library")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == ".ctxls" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy example library: %v", err)
	}
	return dst
}

// stdioStart starts `ctxls serve --stdio` in root.
func stdioStart(t testing.TB, root string) *Client {
	t.Helper()
	return StartClient(t, root, stdioBinary, "serve", "--stdio")
}

// stdioStartInit starts the server on a copy of the example library and
// initializes it with the default (UTF-16) capabilities.
func stdioStartInit(t *testing.T) (c *Client, root string, init json.RawMessage) {
	t.Helper()
	root = stdioWorkspace(t)
	c = stdioStart(t, root)
	init, err := c.Initialize(stdioCtx(t), root, nil, nil)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	return c, root, init
}

func stdioRead(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// stdioOpen opens a file of the workspace in the server and returns its
// URI and text.
func stdioOpen(t *testing.T, c *Client, root, rel string) (uri, text string) {
	t.Helper()
	path := filepath.Join(root, rel)
	text = stdioRead(t, path)
	uri = stdioFileURI(path)
	if err := c.DidOpen(uri, text); err != nil {
		t.Fatalf("didOpen %s: %v", rel, err)
	}
	return uri, text
}

// stdioAlive checks that the server still answers a request.
func stdioAlive(t *testing.T, c *Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stdioTimeout)
	defer cancel()
	// workspace/symbol is cheap and needs no open document; any answer,
	// result or error, shows the connection is alive.
	_, err := c.CallRaw(ctx, "workspace/symbol", map[string]any{"query": "fastapi"})
	var rpcErr *ClientRPCError
	if err != nil && !errors.As(err, &rpcErr) {
		t.Fatalf("server no longer answers: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
}

// stdioCompletionItem is the part of a CompletionItem the tests read.
type stdioCompletionItem struct {
	Label         string          `json:"label"`
	Detail        string          `json:"detail"`
	Documentation json.RawMessage `json:"documentation"`
	InsertText    string          `json:"insertText"`
	FilterText    string          `json:"filterText"`
	SortText      string          `json:"sortText"`
	TextEdit      *struct {
		Range   *ClientRange `json:"range"`
		Insert  *ClientRange `json:"insert"`
		NewText string       `json:"newText"`
	} `json:"textEdit"`
}

// text is what accepting the item inserts.
func (it stdioCompletionItem) text() string {
	switch {
	case it.TextEdit != nil:
		return it.TextEdit.NewText
	case it.InsertText != "":
		return it.InsertText
	}
	return it.Label
}

// stdioCompletion requests completion and returns the items of either
// result shape (CompletionItem[] or CompletionList).
func stdioCompletion(ctx context.Context, t testing.TB, c *Client, uri string, line, char int) []stdioCompletionItem {
	t.Helper()
	raw, err := c.CallRaw(ctx, "textDocument/completion", stdioPos(uri, line, char))
	if err != nil {
		t.Fatalf("completion: %v", err)
	}
	items, err := stdioDecodeCompletion(raw)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func stdioDecodeCompletion(raw json.RawMessage) ([]stdioCompletionItem, error) {
	var items []stdioCompletionItem
	trimmed := strings.TrimSpace(string(raw))
	switch {
	case trimmed == "null":
		return nil, nil
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("decode completion items: %w", err)
		}
	default:
		var list struct {
			Items []stdioCompletionItem `json:"items"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("decode completion list: %w", err)
		}
		items = list.Items
	}
	return items, nil
}

// stdioHoverText requests hover and returns its text ("" for a null result).
func stdioHoverText(ctx context.Context, t testing.TB, c *Client, uri string, line, char int) (string, *ClientRange) {
	t.Helper()
	var hover *struct {
		Contents json.RawMessage `json:"contents"`
		Range    *ClientRange    `json:"range"`
	}
	if err := c.Call(ctx, "textDocument/hover", stdioPos(uri, line, char), &hover); err != nil {
		t.Fatalf("hover: %v", err)
	}
	if hover == nil {
		return "", nil
	}
	var markup struct {
		Kind  string `json:"kind"`
		Value string `json:"value"`
	}
	if json.Unmarshal(hover.Contents, &markup) == nil && markup.Value != "" {
		return markup.Value, hover.Range
	}
	var s string
	if json.Unmarshal(hover.Contents, &s) == nil {
		return s, hover.Range
	}
	return string(hover.Contents), hover.Range
}

// stdioLocations decodes a definition or references result (Location,
// Location[] or LocationLink[]).
func stdioLocations(t testing.TB, raw json.RawMessage) []ClientLocation {
	t.Helper()
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "null" {
		return nil
	}
	if !strings.HasPrefix(trimmed, "[") {
		raw = json.RawMessage("[" + trimmed + "]")
	}
	var items []struct {
		ClientLocation
		TargetURI            string       `json:"targetUri"`
		TargetSelectionRange *ClientRange `json:"targetSelectionRange"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("decode locations %s: %v", stdioTail(string(raw), 300), err)
	}
	var out []ClientLocation
	for _, it := range items {
		if it.TargetURI != "" {
			loc := ClientLocation{URI: it.TargetURI}
			if it.TargetSelectionRange != nil {
				loc.Range = *it.TargetSelectionRange
			}
			out = append(out, loc)
			continue
		}
		out = append(out, it.ClientLocation)
	}
	return out
}

var stdioTokDetail = regexp.MustCompile(`· [0-9][0-9,.]*k? tok`)

func TestStdioInitializeCapabilities(t *testing.T) {
	c, _, init := stdioStartInit(t)
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(init, &res); err != nil {
		t.Fatalf("initialize result: %v", err)
	}
	for _, p := range []string{"completionProvider", "hoverProvider", "definitionProvider", "referencesProvider", "renameProvider", "textDocumentSync"} {
		if _, ok := res.Capabilities[p]; !ok {
			t.Errorf("capability %s missing from %s", p, stdioTail(string(init), 1500))
		}
	}
	// No positionEncodings offered: the server must use UTF-16, either by
	// saying so or by leaving the field out.
	if enc, ok := res.Capabilities["positionEncoding"]; ok && string(enc) != `"utf-16"` {
		t.Errorf("positionEncoding = %s, want utf-16 or absent", enc)
	}
	var sync struct {
		Change    int  `json:"change"`
		OpenClose bool `json:"openClose"`
	}
	if raw := res.Capabilities["textDocumentSync"]; len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &sync)
	} else {
		_ = json.Unmarshal(raw, &sync.Change)
	}
	if sync.Change != 2 {
		t.Errorf("textDocumentSync change = %d, want 2 (incremental)", sync.Change)
	}
	if res.ServerInfo.Name == "" {
		t.Errorf("serverInfo.name is empty")
	}
	if err := c.Shutdown(stdioCtx(t)); err != nil {
		t.Errorf("shutdown and exit: %v", err)
	}
}

// stdioCheckSpan checks that one diagnostic lies on line and starts within
// [start, end) — the reference's span, or the part naming the topic.
func stdioCheckSpan(t *testing.T, diags []ClientDiagnostic, line, start, end int) {
	t.Helper()
	for _, d := range diags {
		if d.Range.Start.Line != line || d.Range.End.Line != line {
			continue
		}
		if d.Range.Start.Character >= start && d.Range.Start.Character < end &&
			d.Range.End.Character > d.Range.Start.Character && d.Range.End.Character <= end {
			return
		}
	}
	t.Errorf("no diagnostic within line %d columns [%d, %d); got %s", line, start, end, stdioDiagSummary(diags))
}

func stdioLabels(items []stdioCompletionItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Label)
	}
	return out
}

// stdioWorkspaceEdit is an LSP WorkspaceEdit with either changes or
// documentChanges.
type stdioWorkspaceEdit struct {
	Changes         map[string][]ClientTextEdit `json:"changes"`
	DocumentChanges []struct {
		Kind         string `json:"kind"`
		OldURI       string `json:"oldUri"`
		NewURI       string `json:"newUri"`
		TextDocument *struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Edits []ClientTextEdit `json:"edits"`
	} `json:"documentChanges"`
}

// stdioDiagAt reports whether diags hold one with code on line whose
// message contains substr.
func stdioDiagAt(diags []ClientDiagnostic, code string, line int, substr string) bool {
	for _, d := range diags {
		if d.CodeString() == code && d.Range.Start.Line == line && strings.Contains(d.Message, substr) {
			return true
		}
	}
	return false
}

func TestStdioDiagnosticsPublished(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	review := stdioRead(t, filepath.Join(root, "commands", "review.md"))
	lineOf := func(needle string) int { l, _, _ := stdioFind(t, review, needle, 0); return l }
	want := []struct {
		code, substr string
		line         int
	}{
		{"unresolved-reference", "threat_model", lineOf(`getReference("security", "threat_model")`)},
		{"unknown-section", "Nonexistent Section", lineOf("python:fastapi_patterns#Nonexistent Section")},
		{"unresolved-reference", "django", lineOf("load python:django and")},
		{"unresolved-reference", "owasp_checklist", lineOf("owasp_checklist.md")},
	}
	// The whole workspace is diagnosed after the initial index: review.md
	// gets its diagnostics without being opened.
	reviewURI := stdioFileURI(filepath.Join(root, "commands", "review.md"))
	check := func(ds []ClientDiagnostic) bool {
		for _, w := range want {
			if !stdioDiagAt(ds, w.code, w.line, w.substr) {
				return false
			}
		}
		return true
	}
	ds, err := c.WaitDiagnostics(ctx, reviewURI, check)
	if err != nil {
		t.Fatalf("workspace diagnostics of the unopened review.md: %v", err)
	}
	// Team conventions: https:, 10:30, note:, skill: are no references.
	for _, d := range ds {
		for _, notRef := range []string{"https", "10:30", "note", "skill"} {
			if strings.Contains(d.Message, `"`+notRef) || strings.Contains(d.Message, "domain "+notRef) {
				t.Errorf("false diagnostic for %q: %s", notRef, d.Message)
			}
		}
	}

	// Opening a document publishes its diagnostics too.
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	fl, _, _ := stdioFind(t, text, "python:fastapi`", 0)
	ds, err = c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", fl, "fastapi")
	})
	if err != nil {
		t.Fatal(err)
	}
	// The plan note inside a ```text fence and the run-time topic loop
	// are no references.
	for _, d := range ds {
		if strings.Contains(d.Message, "flask") {
			t.Errorf("unexpected diagnostic %d:%d %s", d.Range.Start.Line, d.Range.Start.Character, d.Message)
		}
	}
	if len(ds) != 1 {
		t.Errorf("implement.md has %d diagnostics, want exactly the unresolved python:fastapi: %s", len(ds), stdioDiagSummary(ds))
	}
}

// --- bad input -------------------------------------------------------------

func TestStdioBadInputGarbage(t *testing.T) {
	c, _, _ := stdioStartInit(t)
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	if err := c.WriteRaw(garbage); err != nil {
		t.Fatal(err)
	}
	// Half a header line, then a valid message.
	if err := c.WriteRaw([]byte("\r\n\r\nContent-Type: nonsense\r\nContent-Len")); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteRaw([]byte("\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
}

func TestStdioBadInputGarbageThenEOF(t *testing.T) {
	root := stdioWorkspace(t)
	c := stdioStart(t, root)
	if err := c.WriteRaw([]byte("\x00\xff\xfegarbage without any header\r\n\r\n{]")); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	err := c.Wait(stdioCtx(t))
	if stdioSignaled(err) || (err != nil && !strings.Contains(err.Error(), "exit status")) {
		t.Fatalf("server did not exit cleanly on EOF: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
}

func TestStdioBadInputInvalidJSON(t *testing.T) {
	c, _, _ := stdioStartInit(t)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":99,"method":"textDocument/hover","params":`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":98,"method":42}`,
		`[1,2,`,
		`{"jsonrpc":"2.0","id":97,"method":"textDocument/hover","params":{"textDocument":"x","position":"y"}}`,
	} {
		if err := c.WriteFrame([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	stdioAlive(t, c)
	// What came back for those must be JSON-RPC errors, never results.
	time.Sleep(200 * time.Millisecond)
	for _, m := range c.Unmatched() {
		if m.Error == nil {
			t.Errorf("a malformed message got a non-error response: %+v", m)
		} else if m.Error.Code != -32700 && m.Error.Code != -32600 && m.Error.Code != -32602 {
			t.Errorf("a malformed message got error code %d (%s), want -32700, -32600 or -32602", m.Error.Code, m.Error.Message)
		}
	}
}

func TestStdioBadInputWrongContentLength(t *testing.T) {
	c, _, _ := stdioStartInit(t)
	body := []byte(`{"jsonrpc":"2.0","id":"short","method":"workspace/symbol","params":{"query":"x"}}`)
	// Too short: the body's tail looks like garbage before the next header.
	if err := c.WriteRaw(append([]byte("Content-Length: 20\r\n\r\n"), body...)); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
	// Not a number, negative, absurdly large.
	for _, h := range []string{"Content-Length: abc", "Content-Length: -5", "Content-Length: 99999999999999999999"} {
		if err := c.WriteRaw(append([]byte(h+"\r\n\r\n"), body...)); err != nil {
			t.Fatal(err)
		}
	}
	stdioAlive(t, c)
	// Too long: the server swallows the next message(s) into this body; it
	// must find its footing again afterwards.
	if err := c.WriteRaw(append([]byte("Content-Length: 400\r\n\r\n"), body...)); err != nil {
		t.Fatal(err)
	}
	ctx := stdioCtx(t)
	var chans []<-chan stdioMessage
	for i := 0; i < 10; i++ {
		_, ch, err := c.Send("workspace/symbol", map[string]any{"query": "python"})
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	// The last request lies beyond what the bad frame can swallow.
	answered := false
	select {
	case _, ok := <-chans[len(chans)-1]:
		answered = ok
	case <-ctx.Done():
	}
	if !answered {
		t.Fatalf("no answer after an overlong Content-Length; stderr: %s", stdioTail(c.Stderr(), 2000))
	}
	stdioAlive(t, c)
}

func TestStdioBadInputUnknownMethod(t *testing.T) {
	c, _, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	for _, m := range []string{"ctxls/noSuchMethod", "textDocument/noSuchFeature", "$/noSuchRequest"} {
		_, err := c.CallRaw(ctx, m, map[string]any{})
		var rpcErr *ClientRPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32601 {
			t.Errorf("%s: err = %v, want MethodNotFound (-32601)", m, err)
		}
	}
	// Unknown notifications are ignored (and $/ ones must be).
	if err := c.Notify("$/noSuchNotification", map[string]any{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("ctxls/noSuchNotification", nil); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
}

func TestStdioBadInputPositionsOutOfRange(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, _ := stdioOpen(t, c, root, "commands/implement.md")
	positions := []struct{ line, char int }{
		{100000, 0}, {0, 100000}, {3, 1 << 30}, {1<<31 - 1, 1<<31 - 1},
	}
	methods := []string{"textDocument/hover", "textDocument/completion", "textDocument/definition", "textDocument/references", "textDocument/prepareRename"}
	for _, p := range positions {
		for _, m := range methods {
			params := stdioPos(uri, p.line, p.char)
			params["context"] = map[string]any{"includeDeclaration": true}
			_, err := c.CallRaw(ctx, m, params)
			var rpcErr *ClientRPCError
			if err != nil && !errors.As(err, &rpcErr) {
				t.Fatalf("%s at %d:%d: %v", m, p.line, p.char, err)
			}
		}
	}
	// Negative numbers are no uinteger: invalid params, not a crash.
	_, err := c.CallRaw(ctx, "textDocument/hover", stdioPos(uri, -1, -5))
	var rpcErr *ClientRPCError
	if err != nil && !errors.As(err, &rpcErr) {
		t.Fatalf("hover at -1:-5: %v", err)
	}
	// An incremental change with a range beyond the document.
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": ClientRange{Start: ClientPosition{5000, 3}, End: ClientPosition{6000, 0}},
			"text":  "x",
		}},
	}); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
}

func TestStdioBadInputHugeDocument(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	var b strings.Builder
	b.WriteString("# Huge\n\n")
	line := "Load python:fastapi_patterns and getReference(\"security\", \"secure_coding\") and 🚀 python:nope here.\n"
	for b.Len() < 10<<20 {
		b.WriteString(line)
	}
	text := b.String()
	path := filepath.Join(root, "commands", "huge.md")
	uri := stdioFileURI(path)
	if err := c.DidOpen(uri, text); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
	// A request about the huge document is answered (with a result or an
	// error saying the file is too large).
	_, err := c.CallRaw(ctx, "textDocument/hover", stdioPos(uri, 2, 8))
	var rpcErr *ClientRPCError
	if err != nil && !errors.As(err, &rpcErr) {
		t.Fatalf("hover in a 10 MB document: %v", err)
	}
	// An edit at its end is applied without losing the connection.
	last := strings.Count(text, "\n")
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": ClientRange{Start: ClientPosition{last, 0}, End: ClientPosition{last, 0}}, "text": "python:common_issues\n"}},
	}); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
}

func TestStdioBadInputBeforeInitialize(t *testing.T) {
	root := stdioWorkspace(t)
	c := stdioStart(t, root)
	ctx := stdioCtx(t)
	uri := stdioFileURI(filepath.Join(root, "commands", "implement.md"))
	for _, m := range []string{"textDocument/hover", "workspace/symbol", "ctxls/catalog"} {
		_, err := c.CallRaw(ctx, m, stdioPos(uri, 0, 0))
		var rpcErr *ClientRPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 {
			t.Errorf("%s before initialize: err = %v, want ServerNotInitialized (-32002)", m, err)
		}
	}
	// Notifications before initialize are dropped, not fatal.
	if err := c.DidOpen(uri, "# x\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize after early requests: %v", err)
	}
	stdioAlive(t, c)
	// A second initialize is an error, not a reset.
	_, err := c.CallRaw(ctx, "initialize", map[string]any{"processId": nil, "rootUri": stdioFileURI(root), "capabilities": map[string]any{}})
	var rpcErr *ClientRPCError
	if !errors.As(err, &rpcErr) {
		t.Errorf("second initialize: err = %v, want a JSON-RPC error", err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestStdioEOFAfterInitialize(t *testing.T) {
	c, _, _ := stdioStartInit(t)
	if err := c.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	err := c.Wait(stdioCtx(t))
	if stdioSignaled(err) || (err != nil && !strings.Contains(err.Error(), "exit status")) {
		t.Fatalf("server did not exit on EOF: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
}
