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

	"github.com/ctxls/ctxls/providers/config"
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
// limits.fileDiagnostics publishes that many, the most severe in order of
// position, and one more that says how many are left out, as ctxls check
// does; and that a file under the bound publishes all of its own.
func TestInprocDiagnosticsBounded(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	var b strings.Builder
	b.WriteString("# Many\n\n")
	limit := config.DefaultFileDiagnostics
	n := limit + 300
	for i := range n {
		fmt.Fprintf(&b, "python:fastapi_patterns#Nope%d\n", i)
	}
	for i := range 5 {
		fmt.Fprintf(&b, "python:missing_%d\n", i)
	}
	u := c.open("commands/many.md", b.String())
	d := c.waitDiagnostics(u, anyDiagnostics)
	if len(d.Diagnostics) != limit+1 {
		t.Fatalf("%d diagnostics published, want %d and a note", len(d.Diagnostics), limit)
	}
	last := d.Diagnostics[len(d.Diagnostics)-1]
	if want := diag.LeftOutMessage(n+5-limit, limit); last.Code != diag.DiagnosticsLeftOut || last.Message != want {
		t.Errorf("last diagnostic %s %q; want %s %q", last.Code, last.Message, diag.DiagnosticsLeftOut, want)
	}
	// Every problem is an error: those kept are the first, one a line
	// from the third.
	for i, dg := range d.Diagnostics[:limit] {
		if dg.Severity != int(diag.Error) || dg.Range.Start.Line != uint32(i+2) {
			t.Fatalf("diagnostic %d: severity %d at line %d, want an error at line %d", i, dg.Severity, dg.Range.Start.Line, i+2)
		}
	}
	small := c.open("commands/few.md", "# Few\n\npython:missing_a python:missing_b\n")
	d = c.waitDiagnostics(small, anyDiagnostics)
	if len(d.Diagnostics) != 2 {
		t.Errorf("a file of 2 problems published %d diagnostics: %+v", len(d.Diagnostics), d.Diagnostics)
	}
}
