package execution

import (
	"context"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/storage"
)

// TestListSeesOtherWriters: List's cache never hides a commit, whether it
// comes from this process or another connection (another ctxls process).
func TestListSeesOtherWriters(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	a := newStore(t, db, Options{HeartbeatInterval: time.Hour})
	// b works through a database handle of its own, as another process does.
	other, err := storage.Open(ctx, db.Path())
	check(t, err)
	t.Cleanup(func() { other.Close() })
	b := newStore(t, other, Options{HeartbeatInterval: time.Hour})

	first := must[*ExecutionState](t)(a.Create(ctx, "p", "")).SessionID
	if l := must[[]Summary](t)(a.List(ctx)); len(l) != 1 || !l[0].IsCurrent {
		t.Fatalf("list: %+v", l)
	}
	l := must[[]Summary](t)(a.List(ctx)) // served from the cache
	l[0].ProjectName = "changed by the caller"
	if l := must[[]Summary](t)(a.List(ctx)); l[0].ProjectName != "p" {
		t.Fatal("a caller's change leaked into the cache")
	}
	second := must[*ExecutionState](t)(b.Create(ctx, "q", "")).SessionID
	l = must[[]Summary](t)(a.List(ctx))
	if len(l) != 2 || l[0].SessionID != second || !l[0].IsCurrent || l[1].IsCurrent {
		t.Fatalf("after another process created one: %+v", l)
	}
	check(t, b.SetCurrent(ctx, first))
	if l := must[[]Summary](t)(a.List(ctx)); !l[1].IsCurrent || l[0].IsCurrent {
		t.Fatalf("after another process changed the current one: %+v", l)
	}
	must[*CommandExecution](t)(b.StartCommand(ctx, first, "build", nil))
	if l := must[[]Summary](t)(a.List(ctx)); l[1].State != StateRunning || l[1].Summary.CurrentCommand != "build" {
		t.Fatalf("after another process started a command: %+v", l[1])
	}
	// Time alone can change a state (a process goes stale): the cache
	// expires after one heartbeat interval.
	crash(b)
	a.now = func() time.Time { return time.Now().Add(10 * time.Hour) }
	if l := must[[]Summary](t)(a.List(ctx)); l[1].State != StateInterrupted {
		t.Fatalf("after the other process went stale: %+v", l[1])
	}
}

// BenchmarkList10000Uncached is List's query without the cache: what a
// List costs after any commit.
func BenchmarkList10000Uncached(b *testing.B) {
	const n = 10000
	s := newStore(b, openDB(b), Options{})
	fillExecutions(b, s, n)
	ctx := context.Background()
	for b.Loop() {
		s.lists.close() // forget the cached result
		l, err := s.List(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(l) != n {
			b.Fatalf("listed %d executions, want %d", len(l), n)
		}
	}
}
