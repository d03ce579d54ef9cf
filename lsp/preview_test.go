package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

// A document opened while the library is indexed gets its diagnostics
// from the preview, before the index ends; edits are diagnosed again; the
// index then ends with a progress report and its own diagnostics.
func TestPreviewDiagnosticsBeforeIndex(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	gate := make(chan struct{})
	c := inprocStart(t, dir, inprocOptions{indexGate: gate})
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()
	text := "# Try\n\nLoad python:no_such_topic here.\n"
	u := c.open("commands/preview_try.md", text)
	hasCode := func(code string, version int32) func(inprocDiagnostics) bool {
		return func(d inprocDiagnostics) bool {
			if d.Version == nil || *d.Version != version {
				return false
			}
			for _, x := range d.Diagnostics {
				if x.Code == code {
					return true
				}
			}
			return false
		}
	}
	c.waitDiagnostics(u, hasCode("unresolved-reference", 1))
	if ended(c) {
		t.Fatal("the index ended before it was let through")
	}

	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": "# Try\n\nLoad python:fastapi_patterns#No Such Section here.\n"}},
	})
	c.waitDiagnostics(u, hasCode("unknown-section", 2))
	if ended(c) {
		t.Fatal("the index ended before it was let through")
	}

	close(gate)
	c.waitNote("$/progress", func(raw json.RawMessage) bool { return strings.Contains(string(raw), `"end"`) })
	c.waitDiagnostics(u, hasCode("unknown-section", 2))
}

// ended reports whether the client saw the end of a progress report.
func ended(c *inprocClient) bool {
	for _, n := range c.Notifications("$/progress") {
		if strings.Contains(string(n.Params), `"end"`) {
			return true
		}
	}
	return false
}
