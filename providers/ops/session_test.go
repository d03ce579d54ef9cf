package ops_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// countingSnapshot is a snapshot of a library and the agent files read for
// it, which counts how often an operation asks for them.
type countingSnapshot struct {
	lib    *library.Snapshot
	agents *agentfiles.Set
	asked  atomic.Int32
}

func (s *countingSnapshot) Library() *library.Snapshot                         { return s.lib }
func (*countingSnapshot) Overlay(string) (text string, version int32, ok bool) { return "", 0, false }
func (s *countingSnapshot) AgentFiles(context.Context) (*agentfiles.Set, error) {
	s.asked.Add(1)
	return s.agents, nil
}

// TestSessionCostOncePerSnapshot asks for the same session costs from many
// requests at once: each agent's cost of a snapshot is computed once, and
// shared; the next snapshot, with a skill more, is costed again and says
// so.
func TestSessionCostOncePerSnapshot(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := libtest.WriteTree(t, map[string]string{
		"CLAUDE.md":          "# Project\n\nUse the tests.\n",
		"context/web/api.md": "# API\n",
	})
	snapshot := func() *countingSnapshot {
		t.Helper()
		lib, err := library.Load(ctx, dir, nil, library.Options{})
		if err != nil {
			t.Fatal(err)
		}
		set, err := agentfiles.Load(ctx, dir, lib.Snapshot().Config())
		if err != nil {
			t.Fatal(err)
		}
		return &countingSnapshot{lib: lib.Snapshot(), agents: set}
	}
	var cur atomic.Pointer[countingSnapshot]
	first := snapshot()
	cur.Store(first)
	o := ops.New(ops.Options{Snapshot: func() ops.Snapshot { return cur.Load() }})
	defer o.Close()

	costs := func(agents ...string) map[string]*agentload.Cost {
		t.Helper()
		var mu sync.Mutex
		out := map[string]*agentload.Cost{}
		var wg sync.WaitGroup
		for range 8 {
			for _, agent := range agents {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := o.SessionCost(ctx, ops.SessionCostRequest{Agent: agent})
					if err != nil {
						t.Errorf("SessionCost(%s): %v", agent, err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					if prev, ok := out[agent]; ok && prev != c {
						t.Errorf("SessionCost(%s) was computed more than once for one snapshot", agent)
					}
					out[agent] = c
				}()
			}
		}
		wg.Wait()
		return out
	}
	before := costs(agentload.Claude, agentload.Codex)
	if n := first.asked.Load(); n != 2 {
		t.Errorf("16 requests for 2 agents read the snapshot's agent files %d times, want 2", n)
	}

	testtree.WriteFiles(t, dir, map[string]string{
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship the service to production when the user asks to deploy.\n---\n# Deploy\n\nRun the pipeline.\n",
	})
	next := snapshot()
	cur.Store(next)
	after := costs(agentload.Claude)
	if next.asked.Load() != 1 {
		t.Errorf("the next snapshot's agent files were read %d times, want 1", next.asked.Load())
	}
	if b, a := before[agentload.Claude], after[agentload.Claude]; a == b || a.TotalAlwaysLoaded <= b.TotalAlwaysLoaded {
		t.Errorf("after a skill was created the session cost is %d tokens, before it %d: want more", a.TotalAlwaysLoaded, b.TotalAlwaysLoaded)
	}
}
