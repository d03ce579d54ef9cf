package ops_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/ops"
)

// TestLoadContextReadsOneState holds a load_context request after it took
// its snapshot, moves the workspace on to one without a topic the request
// names and with other text in the other, and lets the request go on: it
// answers from the state it started with, whole, rather than from parts of
// two.
func TestLoadContextReadsOneState(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	loadLib := func(files map[string]string) *library.Snapshot {
		t.Helper()
		lib, err := library.Load(ctx, writeTree(t, files), nil, library.Options{})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		return lib.Snapshot()
	}
	before := loadLib(map[string]string{
		"context/web/api.md":  "# API\n\nThe text before.\n",
		"context/web/gone.md": "# Gone\n\nRemoved while the request ran.\n",
	})
	after := loadLib(map[string]string{
		"context/web/api.md": "# API\n\nThe text after.\n",
	})
	var cur atomic.Pointer[library.Snapshot]
	cur.Store(before)
	held, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	o := ops.New(ops.Options{
		Snapshot: func() ops.Snapshot { return ops.Static(cur.Load())() },
		// The request reads the agent files once, after its library: it
		// waits there while the workspace moves on.
		AgentFiles: func() *agentfiles.Set {
			if first.CompareAndSwap(false, true) {
				close(held)
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return nil
		},
	})
	type answer struct {
		res ops.LoadContextResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := o.LoadContext(ctx, ops.LoadContextRequest{Refs: []string{"web:api", "web:gone"}})
		done <- answer{res, err}
	}()
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("the request never read the agent files")
	}
	cur.Store(after)
	// Another request sees the new state.
	if _, err := o.LoadContext(ctx, ops.LoadContextRequest{Refs: []string{"web:gone"}}); err == nil {
		t.Error("web:gone loads from the new state, which has none")
	}
	close(release)
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		t.Fatal("the held request did not answer")
	}
	if a.err != nil {
		t.Fatalf("the held request failed: %v", a.err)
	}
	if len(a.res.Loaded) != 2 || !strings.Contains(a.res.Text, "The text before.") ||
		!strings.Contains(a.res.Text, "Removed while the request ran.") || strings.Contains(a.res.Text, "The text after.") {
		t.Errorf("the held request answered from more than one state: loaded %+v\n%s", a.res.Loaded, a.res.Text)
	}
}
