package ops_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// TestRequestsReadOneState holds each request that reads the library and
// the agent files after it took its snapshot, moves the workspace on to
// one without a topic the request finds and with other text in the
// other, and lets the request go on: it answers from the state it
// started with, whole, rather than from parts of two. Another request
// meanwhile sees the new state.
func TestRequestsReadOneState(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel) // after the parallel subtests
	type state struct {
		lib    *library.Snapshot
		agents *agentfiles.Set
	}
	load := func(files map[string]string) state {
		t.Helper()
		lib, err := library.Load(ctx, libtest.WriteTree(t, files), nil, library.Options{})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		set, err := agentfiles.Load(ctx, lib.Snapshot().Dir(), lib.Snapshot().Config())
		if err != nil {
			t.Fatalf("agentfiles.Load: %v", err)
		}
		return state{lib.Snapshot(), set}
	}
	before := load(map[string]string{
		"context/web/api.md":  "# API\n\nThe text before. See [the guide](guide.md).\n",
		"context/web/gone.md": "---\ntags: [vanishing]\n---\n# Gone\n\nRemoved while the request ran.\n",
		"CLAUDE.md":           "# Before\n",
	})
	after := load(map[string]string{
		"context/web/api.md": "# API\n\nThe text after.\n",
		"CLAUDE.md":          "# After\n\n" + strings.Repeat("A longer memory file. ", 40) + "\n",
	})

	// Each request answers with the references it found and any text.
	tests := []struct {
		name string
		run  func(context.Context, *ops.Ops) ([]string, string, error)
		// before says whether an answer is the state before the change.
		before func(refs []string, text string) bool
	}{
		{"load context", func(ctx context.Context, o *ops.Ops) ([]string, string, error) {
			res, err := o.LoadContext(ctx, ops.LoadContextRequest{Refs: []string{"web:api", "web:gone"}})
			var refs []string
			for _, l := range res.Loaded {
				refs = append(refs, l.Ref)
			}
			return refs, res.Text, err
		}, func(refs []string, text string) bool {
			return len(refs) == 2 && strings.Contains(text, "The text before.") &&
				strings.Contains(text, "Removed while the request ran.") && !strings.Contains(text, "The text after.")
		}},
		{"inventory", func(ctx context.Context, o *ops.Ops) ([]string, string, error) {
			res, err := o.Inventory(ctx, ops.InventoryRequest{})
			var refs []string
			for _, e := range res.Entries {
				refs = append(refs, e.Reference)
			}
			return refs, "", err
		}, func(refs []string, _ string) bool { return slices.Equal(refs, []string{"web:api", "web:gone"}) }},
		{"inventory search", func(ctx context.Context, o *ops.Ops) ([]string, string, error) {
			res, err := o.SearchInventory(ctx, ops.InventorySearchRequest{Query: "vanishing"})
			var refs []string
			for _, e := range res.Items {
				refs = append(refs, e.Reference)
			}
			return refs, "", err
		}, func(refs []string, _ string) bool { return slices.Equal(refs, []string{"web:gone"}) }},
		{"symbols", func(ctx context.Context, o *ops.Ops) ([]string, string, error) {
			res, err := o.Symbols(ctx, ops.SymbolsRequest{Query: "gone"})
			var refs []string
			for _, e := range res.Items {
				refs = append(refs, e.Reference)
			}
			return refs, "", err
		}, func(refs []string, _ string) bool { return slices.Equal(refs, []string{"web:gone"}) }},
		{"check", func(ctx context.Context, o *ops.Ops) ([]string, string, error) {
			res, err := o.Check(ctx, ops.CheckRequest{})
			var files []string
			for _, d := range res.Items {
				files = append(files, d.File+" "+d.Code)
			}
			return files, "", err
		}, func(files []string, _ string) bool {
			return slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, "context/web/api.md ") })
		}},
		{"session cost", func(ctx context.Context, o *ops.Ops) ([]string, string, error) {
			res, err := o.SessionCost(ctx, ops.SessionCostRequest{})
			if err != nil {
				return nil, "", err
			}
			var files []string
			for _, e := range res.AlwaysLoaded {
				files = append(files, e.File)
				if e.File == "CLAUDE.md" {
					return files, strconv.Itoa(e.Tokens), nil
				}
			}
			return files, "", nil
		}, func(_ []string, tokens string) bool {
			// CLAUDE.md before the change is a heading alone.
			n, err := strconv.Atoi(tokens)
			return err == nil && n < 20
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			held, release := make(chan struct{}), make(chan struct{})
			var first atomic.Bool
			// The request reads the agent files of its snapshot once,
			// after its library: it waits there while the workspace moves
			// on.
			hold := func() {
				if first.CompareAndSwap(false, true) {
					close(held)
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
			}
			var cur atomic.Pointer[heldSnapshot]
			cur.Store(&heldSnapshot{lib: before.lib, agents: before.agents, hold: hold})
			o := ops.New(ops.Options{Snapshot: func() ops.Snapshot { return cur.Load() }})
			type answer struct {
				refs []string
				text string
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				refs, text, err := tt.run(ctx, o)
				done <- answer{refs, text, err}
			}()
			select {
			case <-held:
			case <-ctx.Done():
				t.Fatal("the request never read the agent files")
			}
			cur.Store(&heldSnapshot{lib: after.lib, agents: after.agents, hold: func() {}})
			if refs, text, err := tt.run(ctx, o); err == nil && tt.before(refs, text) {
				t.Errorf("a request made after the change answers from the state before it: %v", refs)
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
			if !tt.before(a.refs, a.text) {
				t.Errorf("the held request answered from more than one state: %v\n%s", a.refs, a.text)
			}
		})
	}
}

// heldSnapshot is a snapshot whose agent files are read through hold,
// which may wait.
type heldSnapshot struct {
	lib    *library.Snapshot
	agents *agentfiles.Set
	hold   func()
}

func (s *heldSnapshot) Library() *library.Snapshot                         { return s.lib }
func (*heldSnapshot) Overlay(string) (text string, version int32, ok bool) { return "", 0, false }
func (s *heldSnapshot) AgentFiles(context.Context) (*agentfiles.Set, error) {
	s.hold()
	return s.agents, nil
}
