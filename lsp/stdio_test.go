package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"

	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
	"github.com/ctxls/ctxls/providers/runs/trust"
)

// These tests build the ctxls binary once and drive `ctxls serve` over
// pipes as an editor does. They know the server only through the LSP
// specification and the example library.

// stdioTempDir is a directory for the whole test binary (the ctxls
// binary, generated libraries); TestMain removes it at the end.
var stdioTempDir string

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
	stdioTempDir = dir
	// The servers these tests start keep their index cache here.
	os.Setenv(indexcache.EnvDir, filepath.Join(dir, "cache"))
	// Agreements to run executors, made by the tests and read by the
	// servers they start, are kept here, never in the user's own.
	os.Setenv(trust.EnvConfigDir, filepath.Join(dir, "config"))
	return m.Run()
}

// stdioBuild builds the ctxls binary once, for the tests that run it.
var stdioBuild = sync.OnceValues(func() (string, error) {
	return chaintest.Build(filepath.Join("..", "cmd", "ctxls"), stdioTempDir, "ctxls")
})

// stdioBinaryPath returns the path of the ctxls binary, building it on
// first use (the in-process tests need none).
func stdioBinaryPath(t testing.TB) string { return stdioBuilt(t, stdioBuild) }

// stdioBuilt returns the path build made, failing the test if it failed.
func stdioBuilt(t testing.TB, build func() (string, error)) string {
	t.Helper()
	path, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// stdioTimeout bounds every wait of a test, generous for 2 shared cores.
const stdioTimeout = 60 * time.Second

// stdioCtx returns a context that ends with the test or after stdioTimeout.
func stdioCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), stdioTimeout)
	t.Cleanup(cancel)
	return ctx
}

// stdioWorkspace copies the example library into a temporary directory,
// so that tests can change files and the server can write its database.
func stdioWorkspace(t testing.TB) string {
	t.Helper()
	return libtest.CopyExample(t)
}

// stdioStart starts `ctxls serve --stdio` in root.
func stdioStart(t testing.TB, root string) *Client {
	t.Helper()
	return StartClient(t, root, stdioBinaryPath(t), "serve", "--stdio")
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
// URI and text. A text given is written to the file first.
func stdioOpen(t *testing.T, c *Client, root, rel string, write ...string) (uri, text string) {
	t.Helper()
	path := filepath.Join(root, rel)
	if len(write) > 0 {
		testtree.Write(t, path, write[0])
	}
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
	Label        string `json:"label"`
	Detail       string `json:"detail"`
	LabelDetails *struct {
		Description string `json:"description"`
	} `json:"labelDetails"`
	Documentation json.RawMessage `json:"documentation"`
	InsertText    string          `json:"insertText"`
	FilterText    string          `json:"filterText"`
	SortText      string          `json:"sortText"`
	TextEdit      *stdioTextEdit  `json:"textEdit"`
}

// stdioTextEdit is a completion item's edit: a TextEdit or an
// InsertReplaceEdit.
type stdioTextEdit struct {
	Range   *ClientRange `json:"range"`
	Insert  *ClientRange `json:"insert"`
	NewText string       `json:"newText"`
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
			ItemDefaults *struct {
				EditRange *ClientRange `json:"editRange"`
			} `json:"itemDefaults"`
			Items []stdioCompletionItem `json:"items"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("decode completion list: %w", err)
		}
		items = list.Items
		// As a client does: an item without its own edit replaces the
		// list's default range with its label.
		if d := list.ItemDefaults; d != nil && d.EditRange != nil {
			for i := range items {
				if items[i].TextEdit == nil {
					items[i].TextEdit = &stdioTextEdit{Range: d.EditRange, NewText: items[i].Label}
				}
			}
		}
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

// stdioCase is a case of TestStdio.
type stdioCase struct {
	name string
	run  func(t *testing.T, ctx context.Context, c *Client, root string)
}

// TestStdio runs its cases on servers started on a copy of the example
// library and initialized with the default (UTF-16) capabilities, each
// on a server of its own; the first checks the result of initialize and
// that the server shuts down and exits. The requests an editor sends in
// the example library's files, with their answers, are the fixtures of
// testdata/requests/library (TestFixtures).
func TestStdio(t *testing.T) {
	t.Parallel()
	t.Run("InitializeAndShutdown", func(t *testing.T) {
		t.Parallel()
		c, _, init := stdioStartInit(t)
		stdioInitializeCapabilities(t, init)
		if err := c.Shutdown(stdioCtx(t)); err != nil {
			t.Errorf("shutdown and exit: %v", err)
		}
	})
	for _, tc := range []stdioCase{
		{"IncrementalChangeClearsDiagnostics", stdioIncrementalChangeClearsDiagnostics},
		{"DiskChangesRepublish", stdioDiskChangesRepublish},
		{"CancelRequest", stdioCancelRequest},
		{"BadInputGarbage", stdioBadInputGarbage},
		{"BadInputInvalidJSON", stdioBadInputInvalidJSON},
		{"BadInputWrongContentLength", stdioBadInputWrongContentLength},
		{"BadInputUnknownMethod", stdioBadInputUnknownMethod},
		{"BadInputPositionsOutOfRange", stdioBadInputPositionsOutOfRange},
		{"BadInputHugeDocument", stdioBadInputHugeDocument},
		{"RegistersFileWatchers", stdioRegistersFileWatchers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, root, _ := stdioStartInit(t)
			tc.run(t, stdioCtx(t), c, root)
		})
	}
}

// stdioInitializeCapabilities checks the result of an initialize that
// offered the default capabilities.
func stdioInitializeCapabilities(t *testing.T, init json.RawMessage) {
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
	// A move of any file may break an import or a link (an image, a
	// package.json): the editor must ask before it moves any.
	type filter struct {
		Pattern struct {
			Glob    string `json:"glob"`
			Matches string `json:"matches"`
		} `json:"pattern"`
	}
	var ws struct {
		FileOperations struct {
			WillRename struct {
				Filters []filter `json:"filters"`
			} `json:"willRename"`
		} `json:"fileOperations"`
	}
	_ = json.Unmarshal(res.Capabilities["workspace"], &ws)
	if f := ws.FileOperations.WillRename.Filters; !slices.ContainsFunc(f, func(x filter) bool {
		return x.Pattern.Glob == "**/*" && x.Pattern.Matches == "file"
	}) {
		t.Errorf("willRename filters %+v do not take every file", f)
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
			URI     string `json:"uri"`
			Version *int   `json:"version"`
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

func TestStdioPositionEncodingNegotiation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		offered []string
		want    []string // acceptable answers; "" means the field left out
	}{
		{[]string{"utf-32", "utf-16"}, []string{"utf-32", "utf-16"}},
		{[]string{"utf-16"}, []string{"utf-16", ""}},
		{[]string{}, []string{"utf-16", ""}},
		{[]string{"latin-1"}, []string{"utf-16", ""}},
	} {
		t.Run(strings.Join(tc.offered, ","), func(t *testing.T) {
			t.Parallel()
			if _, _, enc := stdioStartEncodings(t, tc.offered); !slices.Contains(tc.want, enc) {
				t.Errorf("offered %v: positionEncoding = %q, want one of %q", tc.offered, enc, tc.want)
			}
		})
	}
}

// stdioStartEncodings starts the server on a copy of the example library,
// initializes it offering the given position encodings and returns the
// encoding it chose ("" when it left the field out).
func stdioStartEncodings(t *testing.T, offered []string) (c *Client, root, encoding string) {
	t.Helper()
	root = stdioWorkspace(t)
	c = stdioStart(t, root)
	caps := stdioDefaultCapabilities()
	caps["general"] = map[string]any{"positionEncodings": offered}
	init, err := c.Initialize(stdioCtx(t), root, caps, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &res); err != nil {
		t.Fatal(err)
	}
	return c, root, res.Capabilities.PositionEncoding
}

func stdioIncrementalChangeClearsDiagnostics(t *testing.T, ctx context.Context, c *Client, root string) {
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	line, col, _ := stdioFind(t, text, "python:fastapi`", 0)
	if _, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", line, "fastapi")
	}); err != nil {
		t.Fatal(err)
	}
	// Insert "_patterns" after "python:fastapi" with a ranged change, in
	// two edits (as typing produces), the first of them still broken.
	at := col + len("python:fastapi")
	changes := []map[string]any{
		{"range": ClientRange{Start: ClientPosition{line, at}, End: ClientPosition{line, at}}, "text": "_pat"},
		{"range": ClientRange{Start: ClientPosition{line, at + 4}, End: ClientPosition{line, at + 4}}, "text": "terns"},
	}
	for i, ch := range changes {
		if err := c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 2 + i},
			"contentChanges": []any{ch},
		}); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool { return len(ds) == 0 })
	if err != nil {
		t.Fatalf("diagnostics not cleared after the fix: %v", err)
	}
	_ = ds
	// The server's text is the edited one: hover on the fixed reference.
	got, _ := stdioHoverText(ctx, t, c, uri, line, at+2)
	if !strings.Contains(got, "FastAPI Patterns") {
		t.Errorf("hover on the fixed reference = %q", got)
	}
	// Break it again by replacing the fixed part.
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 4},
		"contentChanges": []any{map[string]any{
			"range": ClientRange{Start: ClientPosition{line, at}, End: ClientPosition{line, at + len("_patterns")}},
			"text":  "_routers",
		}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", line, "fastapi_routers")
	}); err != nil {
		t.Fatalf("diagnostic not re-published after breaking the reference: %v", err)
	}
	// Closing the document makes the disk the truth again; the file on
	// disk still has python:fastapi.
	if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", line, "fastapi") && !stdioDiagAt(ds, "unresolved-reference", line, "fastapi_routers")
	}); err != nil {
		t.Errorf("diagnostics after close do not follow the disk: %v", err)
	}
}

func stdioDiskChangesRepublish(t *testing.T, ctx context.Context, c *Client, root string) {
	reviewPath := filepath.Join(root, "commands", "review.md")
	reviewURI := stdioFileURI(reviewPath)
	review := stdioRead(t, reviewPath)
	threatLine, _, _ := stdioFind(t, review, `"threat_model"`, 0)
	djangoLine, _, _ := stdioFind(t, review, "load python:django and", 0)
	if _, err := c.WaitDiagnostics(ctx, reviewURI, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", threatLine, "threat_model")
	}); err != nil {
		t.Fatal(err)
	}
	// Another program creates the missing topic: the server's own watcher
	// sees it and the unopened review.md loses that diagnostic.
	topic := "---\nid: security/threat_model\ndomain: security\ntitle: Threat Model\ntype: reference\n" +
		"estimatedTokens: 20\nloadingStrategy: onDemand\n---\n\n# Threat Model\n\nList the assets, the attackers and the entry points before reviewing a change.\n"
	testtree.WriteFiles(t, root, map[string]string{"context/security/threat_model.md": topic})
	if _, err := c.WaitDiagnostics(ctx, reviewURI, func(ds []ClientDiagnostic) bool {
		return !stdioDiagAt(ds, "unresolved-reference", threatLine, "threat_model") &&
			stdioDiagAt(ds, "unresolved-reference", djangoLine, "django")
	}); err != nil {
		t.Fatalf("creating a topic on disk did not update diagnostics: %v", err)
	}
	// An edit of review.md itself on disk, announced by the client too.
	fixed := strings.Replace(review, "load python:django and", "load python:django_patterns and", 1)
	testtree.Write(t, reviewPath, fixed)
	if err := c.Notify("workspace/didChangeWatchedFiles", map[string]any{
		"changes": []any{map[string]any{"uri": reviewURI, "type": 2}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(ctx, reviewURI, func(ds []ClientDiagnostic) bool {
		return !stdioDiagAt(ds, "unresolved-reference", djangoLine, "django") && len(ds) > 0
	}); err != nil {
		t.Fatalf("a changed file on disk did not update its diagnostics: %v", err)
	}
	// The new topic is offered by completion.
	draft := stdioFileURI(filepath.Join(root, "commands", "draft.md"))
	if err := c.DidOpen(draft, "Load security:"); err != nil {
		t.Fatal(err)
	}
	items := stdioCompletion(ctx, t, c, draft, 0, len("Load security:"))
	if !slices.ContainsFunc(items, func(it stdioCompletionItem) bool { return strings.Contains(it.text(), "threat_model") }) {
		t.Errorf("completion after security: lacks the topic created on disk: %v", stdioLabels(items))
	}
}

func stdioCancelRequest(t *testing.T, ctx context.Context, c *Client, root string) {
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	line, col, _ := stdioFind(t, text, "python:common_issues", 0)
	// Whether the cancellation arrives in time is a race; either way the
	// request gets exactly one response: its result or RequestCancelled.
	for i := 0; i < 20; i++ {
		id, ch, err := c.Send("textDocument/references", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     map[string]any{"line": line, "character": col + 8},
			"context":      map[string]any{"includeDeclaration": true},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)}); err != nil {
			t.Fatal(err)
		}
		select {
		case msg, ok := <-ch:
			if !ok {
				t.Fatalf("connection closed: %s", stdioTail(c.Stderr(), 2000))
			}
			if msg.Error != nil && msg.Error.Code != -32800 {
				t.Errorf("cancelled request answered with error %d %s, want a result or RequestCancelled (-32800)", msg.Error.Code, msg.Error.Message)
			}
		case <-ctx.Done():
			t.Fatalf("a cancelled request got no response")
		}
	}
	// Cancelling an unknown or finished request is harmless.
	if err := c.Notify("$/cancelRequest", map[string]any{"id": 987654}); err != nil {
		t.Fatal(err)
	}
	stdioAlive(t, c)
}

func TestStdioIndexProgress(t *testing.T) {
	t.Parallel()
	root := stdioWorkspace(t)
	c := stdioStart(t, root)
	ctx := stdioCtx(t)
	end := c.Expect("$/progress", func(raw json.RawMessage) bool {
		var p ClientProgress
		return json.Unmarshal(raw, &p) == nil && p.Value.Kind == "end"
	})
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatal(err)
	}
	var last ClientNotification
	select {
	case last = <-end:
	case <-ctx.Done():
		t.Fatalf("no $/progress end for the initial index; server requests: %v", c.ServerRequests())
	}
	// The token was created by the server first, and began before it ended.
	if !slices.Contains(c.ServerRequests(), "window/workDoneProgress/create") {
		t.Errorf("$/progress without window/workDoneProgress/create")
	}
	var tok ClientProgress
	_ = json.Unmarshal(last.Params, &tok)
	began := false
	for _, p := range c.Progress() {
		if string(p.Token) == string(tok.Token) && p.Value.Kind == "begin" {
			began = p.Value.Title != ""
		}
	}
	if !began {
		t.Errorf("progress %s ended without a titled begin", tok.Token)
	}
}

func TestStdioShutdownAndExit(t *testing.T) {
	t.Parallel()
	t.Run("requests after shutdown", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioStartInit(t)
		ctx := stdioCtx(t)
		if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		_, err := c.CallRaw(ctx, "workspace/symbol", map[string]any{"query": "x"})
		var rpcErr *ClientRPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32600 {
			t.Errorf("request after shutdown: err = %v, want InvalidRequest (-32600)", err)
		}
		if err := c.Notify("exit", nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(ctx); err != nil {
			t.Errorf("exit after shutdown: %v, want status 0", err)
		}
	})
	t.Run("exit without shutdown", func(t *testing.T) {
		t.Parallel()
		c, _, _ := stdioStartInit(t)
		ctx := stdioCtx(t)
		if err := c.Notify("exit", nil); err != nil {
			t.Fatal(err)
		}
		err := c.Wait(ctx)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit without shutdown: %v, want exit status 1", err)
		}
	})
}

func TestStdioBadConfigurationWarns(t *testing.T) {
	t.Parallel()
	root := stdioWorkspace(t)
	// A config file with a tokenizer that does not exist and broken YAML
	// further down: the server says so and keeps serving the library.
	testtree.WriteFiles(t, root, map[string]string{".ctxls.yaml": "tokenizer: gpt-17\ndriftThreshold: [oops\n"})
	c := stdioStart(t, root)
	ctx := stdioCtx(t)
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize with a broken .ctxls.yaml: %v", err)
	}
	// Features still work on the library.
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	line, col, _ := stdioFind(t, text, "python:common_issues", 0)
	if got, _ := stdioHoverText(ctx, t, c, uri, line, col+9); !strings.Contains(got, "tok") {
		t.Errorf("hover with a broken config = %q", got)
	}
	// The problem is reported: a message to the user or the log, or a
	// diagnostic on .ctxls.yaml.
	configURI := stdioFileURI(filepath.Join(root, ".ctxls.yaml"))
	reported := func() bool {
		for _, m := range []string{"window/logMessage", "window/showMessage"} {
			for _, n := range c.Notifications(m) {
				if strings.Contains(string(n.Params), ".ctxls.yaml") || strings.Contains(string(n.Params), "gpt-17") {
					return true
				}
			}
		}
		p, ok := c.LatestDiagnostics(configURI)
		return ok && len(p.Diagnostics) > 0
	}
	for !reported() {
		select {
		case <-ctx.Done():
			t.Fatalf("the broken .ctxls.yaml was not reported (log messages: %d)", len(c.Notifications("window/logMessage")))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// --- bad input -------------------------------------------------------------

func stdioBadInputGarbage(t *testing.T, ctx context.Context, c *Client, root string) {
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

// The end of input stops the server cleanly, whatever came before it.
func TestStdioEOF(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, c *Client, root string)
	}{
		{"after garbage", func(t *testing.T, c *Client, _ string) {
			if err := c.WriteRaw([]byte("\x00\xff\xfegarbage without any header\r\n\r\n{]")); err != nil {
				t.Fatal(err)
			}
		}},
		{"after initialize", func(t *testing.T, c *Client, root string) {
			if _, err := c.Initialize(stdioCtx(t), root, nil, nil); err != nil {
				t.Fatalf("initialize: %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := stdioWorkspace(t)
			c := stdioStart(t, root)
			tc.before(t, c, root)
			if err := c.CloseStdin(); err != nil {
				t.Fatal(err)
			}
			err := c.Wait(stdioCtx(t))
			if stdioSignaled(err) || (err != nil && !strings.Contains(err.Error(), "exit status")) {
				t.Fatalf("server did not exit cleanly on EOF: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
			}
		})
	}
}

func stdioBadInputInvalidJSON(t *testing.T, ctx context.Context, c *Client, root string) {
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
	// What came back for those must be JSON-RPC errors, never results; the
	// request with bad parameters is answered (after the others, which the
	// server answers as it reads them).
	check := func(m stdioMessage) {
		if m.Error == nil {
			t.Errorf("a malformed message got a non-error response: %+v", m)
		} else if m.Error.Code != -32700 && m.Error.Code != -32600 && m.Error.Code != -32602 {
			t.Errorf("a malformed message got error code %d (%s), want -32700, -32600 or -32602", m.Error.Code, m.Error.Message)
		}
	}
	m, err := c.WaitUnmatched(ctx, "97")
	if err != nil {
		t.Fatal(err)
	}
	check(m)
	for _, m := range c.Unmatched() {
		check(m)
	}
}

func stdioBadInputWrongContentLength(t *testing.T, ctx context.Context, c *Client, root string) {
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

func stdioBadInputUnknownMethod(t *testing.T, ctx context.Context, c *Client, root string) {
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

func stdioBadInputPositionsOutOfRange(t *testing.T, ctx context.Context, c *Client, root string) {
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

func stdioBadInputHugeDocument(t *testing.T, ctx context.Context, c *Client, root string) {
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
	t.Parallel()
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

// stdioRegistersFileWatchers checks that the server asks the client, which
// offers dynamic registration of file watchers as VS Code and Neovim do,
// to watch markdown files and its configuration.
func stdioRegistersFileWatchers(t *testing.T, ctx context.Context, c *Client, root string) {
	for {
		var reg json.RawMessage
		c.mu.Lock()
		for _, m := range c.serverReqs {
			if m.Method == "client/registerCapability" {
				reg = m.Params
			}
		}
		c.mu.Unlock()
		if reg != nil {
			var p struct {
				Registrations []struct {
					Method          string `json:"method"`
					RegisterOptions struct {
						Watchers []struct {
							GlobPattern string `json:"globPattern"`
						} `json:"watchers"`
					} `json:"registerOptions"`
				} `json:"registrations"`
			}
			if err := json.Unmarshal(reg, &p); err != nil || len(p.Registrations) != 1 {
				t.Fatalf("registration %s: %v", reg, err)
			}
			r := p.Registrations[0]
			var globs []string
			for _, w := range r.RegisterOptions.Watchers {
				globs = append(globs, w.GlobPattern)
			}
			if r.Method != "workspace/didChangeWatchedFiles" || !slices.Equal(globs, []string{"**/*.md", "**/.ctxls.yaml"}) {
				t.Errorf("registration = %s", reg)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no client/registerCapability; server requests: %v", c.ServerRequests())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
