package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInprocDocumentOutsideWorkspace checks that the server reads no file
// outside the workspace for a URI the client names: requests on such a
// document that is not open answer with an error or an empty result and
// nothing of the file's text, and once the client opens it, they answer
// from the text the client gave.
func TestInprocDocumentOutsideWorkspace(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("# Secret\n\n## Secret Heading\n\nSee python:fastapi_patterns and [x](/etc/hostname).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := inprocStart(t, dir, inprocOptions{})
	u := string(uriOf(secret))
	doc := map[string]any{"uri": u}
	whole := map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 10, "character": 0}}
	at := map[string]any{"line": 4, "character": 8}
	requests := []struct {
		method string
		params any
	}{
		{"textDocument/documentSymbol", map[string]any{"textDocument": doc}},
		{"textDocument/hover", map[string]any{"textDocument": doc, "position": at}},
		{"textDocument/definition", map[string]any{"textDocument": doc, "position": at}},
		{"textDocument/inlayHint", map[string]any{"textDocument": doc, "range": whole}},
		{"textDocument/codeLens", map[string]any{"textDocument": doc}},
		{"textDocument/documentLink", map[string]any{"textDocument": doc}},
		{"textDocument/completion", map[string]any{"textDocument": doc, "position": at}},
		{"ctxls/documentCost", map[string]any{"uri": u}},
	}
	for _, r := range requests {
		var res json.RawMessage
		err := c.call(r.method, r.params, &res)
		if err == nil && (strings.Contains(string(res), "Secret") || strings.Contains(string(res), "fastapi")) {
			t.Errorf("%s on a closed document outside the workspace read the file: %s", r.method, res)
		}
		if err != nil && !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("%s on a closed document outside the workspace: error %q does not say why", r.method, err)
		}
		if r.method == "ctxls/documentCost" && !strings.Contains(string(res), "outside the workspace") {
			t.Errorf("ctxls/documentCost of a closed document outside the workspace = %s; want a warning saying why", res)
		}
	}

	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "markdown", "version": 1, "text": "# Opened\n\n## Opened Heading\n\nSee python:fastapi_patterns here.\n"}})
	var symbols []struct {
		Name string `json:"name"`
	}
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": doc}, &symbols)
	if len(symbols) != 1 || symbols[0].Name != "Opened Heading" {
		t.Errorf("documentSymbol of the opened document = %+v; want the heading of the text the client gave", symbols)
	}
	var hints []json.RawMessage
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": doc, "range": whole}, &hints)
	if len(hints) != 1 {
		t.Errorf("inlayHint of the opened document = %d hints; want 1 for its one reference", len(hints))
	}
}
