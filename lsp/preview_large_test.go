package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPreviewSkipsLargeDocuments checks that a document over
// maxPreviewDocument, opened while the library is indexed, gets no
// diagnostics from the preview (the index scans it at the same time), and
// gets the index's once it ends; a small document opened after it gets
// the preview's.
func TestPreviewSkipsLargeDocuments(t *testing.T) {
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
	line := "Load python:no_such_topic here.\n"
	large := c.open("commands/large.md", "# Large\n\n"+strings.Repeat(line, maxPreviewDocument/len(line)+1))
	small := c.open("commands/small.md", "# Small\n\n"+line)
	// The preview diagnoses the open documents in the order they opened:
	// once the small one's are out, the large one was passed over.
	c.waitDiagnostics(small, func(d inprocDiagnostics) bool { return len(d.Diagnostics) > 0 })
	if ended(c) {
		t.Fatal("the index ended before it was let through")
	}
	for _, n := range c.Notifications("textDocument/publishDiagnostics") {
		var d inprocDiagnostics
		if json.Unmarshal(n.Params, &d) == nil && d.URI == large {
			t.Fatalf("the preview published %d diagnostics of a document over %d bytes", len(d.Diagnostics), maxPreviewDocument)
		}
	}
	close(gate)
	c.waitDiagnostics(large, func(d inprocDiagnostics) bool { return len(d.Diagnostics) > 0 })
}
