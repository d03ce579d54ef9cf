package lsp

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A document opened while the library is indexed gets its diagnostics
// from the preview, before the index ends; edits are diagnosed again; the
// index then ends with a progress report and its own diagnostics.
func TestPreviewDiagnosticsBeforeIndex(t *testing.T) {
	t.Parallel()
	c, release := previewStart(t)
	text := "# Try\n\nLoad python:no_such_topic here.\n"
	u := c.open("commands/preview_try.md", text)
	hasCode := func(code string, version int32) func(inprocDiagnostics) bool {
		return func(d inprocDiagnostics) bool { return diagVersion(version)(d) && diagHas(code)(d) }
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

	release()
	c.waitNote("$/progress", noteContains(`"end"`))
	c.waitDiagnostics(u, hasCode("unknown-section", 2))
}

// TestPreviewSkipsLargeDocuments checks that a document over
// maxPreviewDocument, opened while the library is indexed, gets no
// diagnostics from the preview (the index scans it at the same time), and
// gets the index's once it ends; a small document opened after it gets
// the preview's.
func TestPreviewSkipsLargeDocuments(t *testing.T) {
	t.Parallel()
	c, release := previewStart(t)
	line := "Load python:no_such_topic here.\n"
	large := c.open("commands/large.md", "# Large\n\n"+strings.Repeat(line, maxPreviewDocument/len(line)+1))
	small := c.open("commands/small.md", "# Small\n\n"+line)
	// The preview diagnoses the open documents in the order they opened:
	// once the small one's are out, the large one was passed over.
	c.waitDiagnostics(small, anyDiagnostics)
	if ended(c) {
		t.Fatal("the index ended before it was let through")
	}
	for _, n := range c.Notifications("textDocument/publishDiagnostics") {
		var d inprocDiagnostics
		if json.Unmarshal(n.Params, &d) == nil && d.URI == large {
			t.Fatalf("the preview published %d diagnostics of a document over %d bytes", len(d.Diagnostics), maxPreviewDocument)
		}
	}
	release()
	c.waitDiagnostics(large, anyDiagnostics)
}

// previewStart serves a copy of the example library, its index held
// until release lets it through (at the latest when the test ends, before
// the server stops).
func previewStart(t *testing.T) (c *inprocClient, release func()) {
	t.Helper()
	gate := make(chan struct{})
	release = sync.OnceFunc(func() { close(gate) })
	c = inprocStart(t, inprocCopyLibrary(t), inprocOptions{indexGate: gate})
	t.Cleanup(release)
	return c, release
}

// ended reports whether the client saw the end of a progress report.
func ended(c *inprocClient) bool {
	return slices.ContainsFunc(c.Progress(), func(p ClientProgress) bool { return p.Value.Kind == "end" })
}

// An agent file opened before the workspace is listed is checked against
// what it names at once, neither the library's preview nor the index
// having run; an edit is checked again, and the index's diagnostics
// follow once it ends.
func TestPreviewAgentFileBeforeListing(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{indexGate: gate, previewGate: gate})
	t.Cleanup(release)
	const head = "---\nname: early\ndescription: Checks a skill before the index.\n---\n\n"
	u := c.open(".claude/skills/early/SKILL.md", head+"See [the notes](notes.md).\n")
	d := c.waitDiagnostics(u, func(d inprocDiagnostics) bool { return diagVersion(1)(d) && diagHas("skill-link-broken")(d) })
	if ended(c) {
		t.Fatal("the index ended before it was let through")
	}
	if len(d.Diagnostics) != 1 {
		t.Errorf("diagnostics before the index: %+v; want the broken link alone", d.Diagnostics)
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": head + "No links.\n"}},
	})
	c.waitDiagnostics(u, func(d inprocDiagnostics) bool { return diagVersion(2)(d) && len(d.Diagnostics) == 0 })
	if ended(c) {
		t.Fatal("the index ended before it was let through")
	}
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 3},
		"contentChanges": []any{map[string]any{"text": head + "See [the guide](guide.md).\n"}},
	})
	release()
	c.waitNote("$/progress", noteContains(`"end"`))
	c.waitDiagnostics(u, func(d inprocDiagnostics) bool { return diagVersion(3)(d) && diagHas("skill-link-broken")(d) })
}
