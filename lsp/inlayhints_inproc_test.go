package lsp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/refcost"
)

// TestInlayCache checks that the marks of a document are computed once per
// key however many requests ask at once, again for another key, after a
// drop, and after a computation its caller gave up.
func TestInlayCache(t *testing.T) {
	t.Parallel()
	c := newInlayCache()
	var runs atomic.Int32
	release := make(chan struct{})
	compute := func(ctx context.Context) (*document.Doc, []refcost.Mark, error) {
		runs.Add(1)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &document.Doc{}, []refcost.Mark{{End: 3, Tokens: 7, Counted: true}}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	k1 := inlayKey{version: 1}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, marks, err := c.get(ctx, "/w/a.md", k1, compute)
			if err == nil && (len(marks) != 1 || marks[0].Tokens != 7) {
				err = fmt.Errorf("marks = %+v", marks)
			}
			errs <- err
		})
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("get: %v", err)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("8 concurrent requests of one version computed %d times, want 1", n)
	}
	steps := []struct {
		name string
		do   func()
		key  inlayKey
		want int32
	}{
		{"same version", func() {}, k1, 1},
		{"next version", func() {}, inlayKey{version: 2}, 2},
		{"after a drop", func() { c.drop("/w/a.md") }, inlayKey{version: 2}, 3},
	}
	for _, s := range steps {
		s.do()
		if _, _, err := c.get(ctx, "/w/a.md", s.key, compute); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if n := runs.Load(); n != s.want {
			t.Errorf("%s: %d computations in all, want %d", s.name, n, s.want)
		}
	}

	gone, stop := context.WithCancel(ctx)
	stop()
	if _, _, err := c.get(gone, "/w/b.md", k1, compute); err == nil {
		t.Fatal("get with a cancelled context succeeded")
	}
	before := runs.Load()
	if _, _, err := c.get(ctx, "/w/b.md", k1, compute); err != nil {
		t.Fatalf("get after a cancelled computation: %v", err)
	}
	if runs.Load() != before+1 {
		t.Error("a computation its caller gave up was kept instead of run again")
	}
}

// TestInprocInlayHintRanges checks that inlay hints answer only the
// requested range, follow the document's edits, and are bounded in number
// whatever the range.
func TestInprocInlayHintRanges(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	lines := maxInlayHints + 500
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "line %d loads python:fastapi_patterns\n", i)
	}
	u := c.open("notes.md", b.String())
	type hint struct {
		Label    string `json:"label"`
		Position struct{ Line, Character int }
	}
	hintsIn := func(from, to int) []hint {
		t.Helper()
		var hs []hint
		c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": u},
			"range": map[string]any{"start": map[string]any{"line": from, "character": 0}, "end": map[string]any{"line": to, "character": 0}}}, &hs)
		return hs
	}
	hs := hintsIn(10, 13)
	if len(hs) != 3 {
		t.Fatalf("hints of lines 10 to 12: %d, want 3: %+v", len(hs), hs)
	}
	for i, h := range hs {
		if h.Position.Line != 10+i || h.Position.Character != len(fmt.Sprintf("line %d loads python:fastapi_patterns", 10+i)) {
			t.Errorf("hint %d at %+v, want the end of the reference of line %d", i, h.Position, 10+i)
		}
		if h.Label != "990 tok (already counted)" {
			t.Errorf("hint %d label %q, want a repeat of the first reference", i, h.Label)
		}
	}
	if hs := hintsIn(0, 1); len(hs) != 1 || hs[0].Label != "990 tok" {
		t.Errorf("hints of line 0 = %+v; want the first reference counted", hs)
	}
	if hs := hintsIn(0, lines+1); len(hs) != maxInlayHints {
		t.Errorf("hints of the whole document: %d, want the bound of %d", len(hs), maxInlayHints)
	}

	// Line 10 loses its reference: version 2 must be priced again.
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 10, "character": len("line 10 loads ")}, "end": map[string]any{"line": 10, "character": len("line 10 loads python:fastapi_patterns")}},
			"text":  "nothing"}},
	})
	if hs := hintsIn(10, 13); len(hs) != 2 || hs[0].Position.Line != 11 {
		t.Errorf("hints of lines 10 to 12 after the edit = %+v; want those of lines 11 and 12", hs)
	}
}
