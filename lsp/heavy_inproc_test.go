package lsp

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestInprocHeavyRequestsQueue takes both places of the heavy requests
// and checks that every heavy request waits for one, that a light request
// is answered meanwhile, that $/cancelRequest ends a waiting request with
// RequestCancelled, and that the others are answered once places are free.
func TestInprocHeavyRequestsQueue(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := c.open("commands/implement.md")
	release1, release2 := heavyTakePlaces(t, c)
	td := map[string]any{"uri": u}
	pos := map[string]any{"line": 0, "character": 0}
	whole := map[string]any{"start": pos, "end": map[string]any{"line": 100, "character": 0}}
	heavy := []struct {
		method string
		params any
	}{
		{"textDocument/references", map[string]any{"textDocument": td, "position": pos, "context": map[string]any{"includeDeclaration": true}}},
		{"textDocument/prepareRename", map[string]any{"textDocument": td, "position": pos}},
		{"workspace/symbol", map[string]any{"query": "fastapi"}},
		{"textDocument/documentSymbol", map[string]any{"textDocument": td}},
		{"textDocument/documentLink", map[string]any{"textDocument": td}},
		{"textDocument/inlayHint", map[string]any{"textDocument": td, "range": whole}},
		{"textDocument/codeLens", map[string]any{"textDocument": td}},
		{"ctxls/catalog", map[string]any{}},
		{"ctxls/search", map[string]any{"query": "fastapi"}},
		{"ctxls/sessionCost", map[string]any{}},
		{"ctxls/commands", map[string]any{}},
		{"ctxls/history/conversations", map[string]any{}},
	}
	type sent struct {
		method string
		id     json.RawMessage
		resp   <-chan stdioMessage
	}
	var queued []sent
	for _, h := range heavy {
		id, ch, err := c.Send(h.method, h.params)
		if err != nil {
			t.Fatalf("send %s: %v", h.method, err)
		}
		queued = append(queued, sent{h.method, id, ch})
	}
	// A light request sent after them is answered while they wait.
	if _, err := c.CallRaw(ctx, "textDocument/hover", map[string]any{"textDocument": td, "position": pos}); err != nil {
		t.Fatalf("hover while the heavy places are taken: %v", err)
	}
	for _, q := range queued {
		select {
		case msg := <-q.resp:
			t.Errorf("%s was answered while every heavy place was taken: %+v", q.method, msg)
		default:
		}
	}
	first := queued[0]
	if err := c.Notify("$/cancelRequest", map[string]any{"id": first.id}); err != nil {
		t.Fatal(err)
	}
	select {
	case msg, ok := <-first.resp:
		if !ok || msg.Error == nil || msg.Error.Code != -32800 {
			t.Errorf("%s cancelled while waiting: %+v, want the error RequestCancelled (-32800)", first.method, msg)
		}
	case <-ctx.Done():
		t.Fatalf("%s cancelled while waiting: no answer", first.method)
	}
	release1()
	release2()
	for _, q := range queued[1:] {
		select {
		case msg, ok := <-q.resp:
			if !ok {
				t.Fatalf("%s: the connection ended", q.method)
			}
			if msg.Error != nil && msg.Error.Code == -32800 {
				t.Errorf("%s was cancelled, though only %s was", q.method, first.method)
			}
		case <-ctx.Done():
			t.Fatalf("%s: no answer once the heavy places were free", q.method)
		}
	}
}

// TestInprocHeavyRequestEndsOnDisconnect checks that a heavy request
// waiting for a place gives up when the client goes away: its context is
// the connection's. It is not parallel, so that the goroutines it counts
// are its own.
func TestInprocHeavyRequestEndsOnDisconnect(t *testing.T) {
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	release1, release2 := heavyTakePlaces(t, c)
	defer release1()
	defer release2()
	if _, _, err := c.Send("ctxls/catalog", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func(int) bool) {
		t.Helper()
		for {
			if n := waitingForPlace(); ok(n) {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: still %d requests waiting for a heavy place", what, waitingForPlace())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	waitFor("the catalog request never waited for a place", func(n int) bool { return n == 1 })
	c.CloseStdin() // the client goes away
	select {
	case <-c.done:
	case <-ctx.Done():
		t.Fatal("the server did not stop when the client went away")
	}
	waitFor("after the client went away", func(n int) bool { return n == 0 })
}

// heavyTakePlaces takes both places of the heavy requests of c's server.
func heavyTakePlaces(t *testing.T, c *inprocClient) (release1, release2 func()) {
	t.Helper()
	o, err := c.srv.operations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, release := range []*func(){&release1, &release2} {
		if _, *release, err = o.Heavy(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return release1, release2
}

// waitingForPlace counts the goroutines waiting for a place among the
// heavy requests.
func waitingForPlace() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "ops.(*Ops).heavy(") && strings.Contains(g, "[select") {
			count++
		}
	}
	return count
}
