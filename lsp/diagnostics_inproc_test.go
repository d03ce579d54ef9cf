package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// holdingClient holds the first publication whose message contains hold
// until release is closed, and tells on entered when any other publication
// of the same file starts while that one is held.
type holdingClient struct {
	protocol.Client
	hold    string
	held    chan struct{} // closed when the held publication arrives
	entered chan struct{} // closed when another one starts while it is held
	release chan struct{}

	mu      sync.Mutex
	holding bool
	once    sync.Once
}

func (h *holdingClient) PublishDiagnostics(ctx context.Context, p *protocol.PublishDiagnosticsParams) error {
	// A suggestion of the full name is not the held text.
	raw, _ := json.Marshal(p.Diagnostics)
	mine := strings.Contains(strings.ReplaceAll(string(raw), h.hold+"terns", ""), h.hold)
	h.mu.Lock()
	switch {
	case mine && h.held != nil && !h.holding:
		h.holding = true
		close(h.held)
		h.held = nil
		h.mu.Unlock()
		<-h.release
		h.mu.Lock()
		h.holding = false
	case h.holding && strings.HasSuffix(string(p.URI), "implement.md"):
		h.once.Do(func() { close(h.entered) })
	}
	h.mu.Unlock()
	return h.Client.PublishDiagnostics(ctx, p)
}

// A publication computed from an older text that is slow to reach the
// client must not land after the publication of a newer text: the last
// list the client holds is the one of the last text.
func TestInprocSlowPublicationDoesNotOvertakeNewer(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	held := make(chan struct{})
	h := &holdingClient{hold: "fastapi_pat", held: held, entered: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(h.release) }) }
	t.Cleanup(release)
	c := inprocStart(t, dir, inprocOptions{wrapClient: func(pc protocol.Client) protocol.Client {
		h.Client = pc
		return h
	}})
	c.mustCall("ctxls/commands", map[string]any{}, nil) // the index is ready
	u := c.open("commands/implement.md")
	text := stdioRead(t, stdioURIPath(u))
	line, col, _ := stdioFind(t, text, "python:fastapi`", 0)
	c.waitDiagnostics(u, anyDiagnostics)

	at := col + len("python:fastapi")
	edit := func(version int, ch int, insert string) {
		c.notify("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": u, "version": version},
			"contentChanges": []any{map[string]any{
				"range": ClientRange{Start: ClientPosition{line, ch}, End: ClientPosition{line, ch}},
				"text":  insert,
			}},
		})
	}
	// The first edit leaves the reference broken (python:fastapi_pat); its
	// publication is held on its way to the client.
	edit(2, at, "_pat")
	libtest.Receive(t, held, "the diagnostics of the first edit")
	mark := len(c.Notifications("textDocument/publishDiagnostics"))
	// The second edit fixes it. Its publication must wait for the held
	// one; a server that publishes them side by side shows it here,
	// within the second that a flush takes at most on a loaded machine.
	edit(3, at+4, "terns")
	select {
	case <-h.entered:
	case <-time.After(time.Second):
	}
	release()

	// Both publications arrive; the last one is the fixed text's.
	var got []inprocDiagnostics
	deadline := time.After(30 * time.Second)
	for len(got) < 2 {
		got = got[:0]
		for _, n := range c.Notifications("textDocument/publishDiagnostics")[mark:] {
			var d inprocDiagnostics
			if json.Unmarshal(n.Params, &d) == nil && d.URI == u {
				got = append(got, d)
			}
		}
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%d publications of %s after the fix, want 2", len(got), u)
		}
	}
	if last := got[len(got)-1]; len(last.Diagnostics) != 0 {
		raw, _ := json.Marshal(last)
		t.Fatalf("the last publication is of the older text: %s", raw)
	}
}

// TestInprocDiagnosticsBounded checks that a file with more problems than
// maxFileDiagnostics publishes that many, the most severe first, and one
// more that says how many there are; and that a file under the bound
// publishes all of its own.
func TestInprocDiagnosticsBounded(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	var b strings.Builder
	b.WriteString("# Many\n\n")
	n := maxFileDiagnostics + 300
	for i := range n {
		fmt.Fprintf(&b, "python:fastapi_patterns#Nope%d\n", i)
	}
	for i := range 5 {
		fmt.Fprintf(&b, "python:missing_%d\n", i)
	}
	u := c.open("commands/many.md", b.String())
	d := c.waitDiagnostics(u, anyDiagnostics)
	if len(d.Diagnostics) != maxFileDiagnostics+1 {
		t.Fatalf("%d diagnostics published, want %d and a note", len(d.Diagnostics), maxFileDiagnostics)
	}
	last := d.Diagnostics[len(d.Diagnostics)-1]
	if want := fmt.Sprintf("ctxls shows %d of the %d problems", maxFileDiagnostics, n+5); !strings.Contains(last.Message, want) {
		t.Errorf("last diagnostic %q; want a note containing %q", last.Message, want)
	}
	for i, dg := range d.Diagnostics[1:maxFileDiagnostics] {
		if dg.Severity < d.Diagnostics[i].Severity {
			t.Fatalf("diagnostic %d (severity %d) follows a less severe one (%d)", i+1, dg.Severity, d.Diagnostics[i].Severity)
		}
	}
	small := c.open("commands/few.md", "# Few\n\npython:missing_a python:missing_b\n")
	d = c.waitDiagnostics(small, anyDiagnostics)
	if len(d.Diagnostics) != 2 {
		t.Errorf("a file of 2 problems published %d diagnostics: %+v", len(d.Diagnostics), d.Diagnostics)
	}
}

// TestBoundDiagnostics checks which diagnostics of a file over the bound
// are kept: the most severe, in order of position within a severity.
func TestBoundDiagnostics(t *testing.T) {
	t.Parallel()
	var ds []diag.Diagnostic
	for i := range maxFileDiagnostics + 10 {
		ds = append(ds, diag.Diagnostic{Severity: diag.Hint, Message: fmt.Sprintf("hint %d", i)})
	}
	ds = append(ds, diag.Diagnostic{Severity: diag.Warning, Message: "warning"})
	ds = append(ds, diag.Diagnostic{Severity: diag.Error, Message: "error"})
	got := boundDiagnostics(ds)
	if len(got) != maxFileDiagnostics {
		t.Fatalf("%d kept, want %d", len(got), maxFileDiagnostics)
	}
	if got[0].Message != "error" || got[1].Message != "warning" || got[2].Message != "hint 0" || got[len(got)-1].Message != fmt.Sprintf("hint %d", maxFileDiagnostics-3) {
		t.Errorf("kept %q, %q, %q ... %q; want the error, the warning, then the first hints", got[0].Message, got[1].Message, got[2].Message, got[len(got)-1].Message)
	}
	if ds[0].Message != "hint 0" {
		t.Error("boundDiagnostics reordered its argument")
	}
	few := ds[:3]
	if got := boundDiagnostics(few); len(got) != 3 || &got[0] != &few[0] {
		t.Error("diagnostics under the bound are not returned as they are")
	}
}
