package execution

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/runs/storage"
)

// checkListed reads the list of s page by page, with pages of several
// sizes, checks that each reading gives the executions as read in one
// query, and returns them; what names the moment.
func checkListed(t *testing.T, what string, s *Store) []Summary {
	t.Helper()
	ctx := context.Background()
	want := must[[]Summary](t)(s.list(ctx, s.now()))
	current := ""
	for _, sm := range want {
		if sm.IsCurrent {
			current = sm.SessionID
		}
	}
	for _, limit := range []int{1, 2, 0} {
		var got []Summary
		req := ListRequest{Limit: limit}
		for pages := 0; ; pages++ {
			if pages > len(want)+1 {
				t.Fatalf("%s: pages of %d do not end", what, limit)
			}
			p := must[ListPage](t)(s.ListPage(ctx, req))
			if p.Current != current {
				t.Fatalf("%s: page %d of %d gives current %q, want %q", what, pages, limit, p.Current, current)
			}
			got = append(got, p.Items...)
			if p.Next == "" {
				break
			}
			if len(p.Items) != limit {
				t.Fatalf("%s: page %d of %d holds %d executions and has a next page", what, pages, limit, len(p.Items))
			}
			req.Cursor = p.Next
		}
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("%s: pages of %d gave\n%+v\nthe list in one query\n%+v", what, limit, got, want)
		}
	}
	return want
}

// TestListPages follows, change by change, what the pages of the list of
// one process hold while another process (a database handle of its own)
// works: they always match the database, with the running work and the
// current execution as they are at the call.
func TestListPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	// Heartbeats are driven by hand.
	a := newStore(t, db, Options{HeartbeatInterval: time.Hour})
	other, err := storage.Open(ctx, db.Path())
	check(t, err)
	t.Cleanup(func() { other.Close() })
	b := newStore(t, other, Options{HeartbeatInterval: time.Hour})

	var first, second, token string
	var run *Run
	for _, c := range []struct {
		name string
		// change is made before the list is read again.
		change func()
		// check looks at the list after the change.
		check func([]Summary) bool
	}{
		{"empty database", func() {}, func(l []Summary) bool { return len(l) == 0 }},
		{"nothing changed", func() {}, nil},
		{"another process creates one", func() {
			first = must[*ExecutionState](t)(b.Create(ctx, "p", "")).SessionID
		}, func(l []Summary) bool { return len(l) == 1 && l[0].IsCurrent && l[0].State == StateNew }},
		{"this process's heartbeat", func() { check(t, a.beat(ctx)) }, nil},
		{"the other process's heartbeat", func() { check(t, b.beat(ctx)) }, nil},
		{"another process starts a command", func() {
			must[*CommandExecution](t)(b.StartCommand(ctx, first, "build", nil))
		}, func(l []Summary) bool { return l[0].State == StateRunning && l[0].Summary.CurrentCommand == "build" }},
		{"a context load", func() { check(t, b.RecordContextLoad(ctx, first, "d", "t", "content")) }, nil},
		{"shared data", func() { check(t, b.SetSharedData(ctx, first, "k", 1)) }, nil},
		{"the command completes", func() {
			must[*CommandExecution](t)(b.CompleteCommand(ctx, first, "build", StatusSuccess, nil))
		}, func(l []Summary) bool { return l[0].State == StateCompleted && l[0].Summary.CommandsCompleted == 1 }},
		{"this process creates one", func() {
			second = must[*ExecutionState](t)(a.Create(ctx, "q", "")).SessionID
		}, func(l []Summary) bool {
			return len(l) == 2 && l[0].SessionID == second && l[0].IsCurrent && !l[1].IsCurrent
		}},
		{"another process changes the current one", func() { check(t, b.SetCurrent(ctx, first)) }, func(l []Summary) bool { return !l[0].IsCurrent && l[1].IsCurrent }},
		{"another process sets a plan", func() { check(t, b.SetPlan(ctx, second, []string{"x", "y"}, "in")) }, func(l []Summary) bool { return l[0].State == StateInterrupted && l[0].Summary.CommandsTotal == 2 }},
		{"another process starts a chain run", func() {
			run = must[*Run](t)(b.StartRun(ctx, second, RunKindResume))
		}, func(l []Summary) bool { return l[0].State == StateRunning }},
		{"the run finishes", func() { check(t, b.FinishRun(ctx, run.RunID)) }, func(l []Summary) bool { return l[0].State == StateInterrupted }},
		{"another process asks to delete one", func() {
			token, _ = must2(t)(b.RequestDelete(ctx, second))
		}, nil},
		{"another process deletes it", func() { check(t, b.ConfirmDelete(ctx, second, token)) }, func(l []Summary) bool { return len(l) == 1 && l[0].SessionID == first }},
		{"another process starts a command again", func() {
			must[*CommandExecution](t)(b.StartCommand(ctx, first, "test", nil))
		}, func(l []Summary) bool { return l[0].State == StateRunning }},
		{"the other process dies: running until its heartbeat is stale", func() { crash(b) }, func(l []Summary) bool { return l[0].State == StateRunning }},
		{"its heartbeat goes stale without any commit", func() {
			later := time.Now().Add(10 * time.Hour)
			a.setNow(func() time.Time { return later })
		}, func(l []Summary) bool { return l[0].State == StateInterrupted }},
		{"this process's heartbeat records the interruption", func() { check(t, a.beat(ctx)) }, func(l []Summary) bool { return l[0].State == StateInterrupted }},
	} {
		c.change()
		l := checkListed(t, c.name, a)
		if c.check != nil && !c.check(l) {
			t.Errorf("%s: listed %+v", c.name, l)
		}
	}
}

// TestListPagesOrder: pages follow one another without a gap or a repeat,
// also among executions created in the same millisecond, which the list
// orders by id.
func TestListPagesOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{HeartbeatInterval: time.Hour})
	at := time.Now()
	s.setNow(func() time.Time { return at })
	var ids []string
	create := func() {
		ids = append(ids, must[*ExecutionState](t)(s.Create(ctx, "p", "", KeepCurrent())).SessionID)
	}
	for range 5 {
		create()
	}
	checkListed(t, "five executions", s)
	for i, c := range []struct {
		name   string
		change func()
	}{
		{"one in the middle changes", func() { step(t, s, ids[2], "build", StatusFailed) }},
		{"another one is created in the same millisecond", create},
		{"the first and the last change", func() {
			step(t, s, ids[0], "build", StatusSuccess)
			step(t, s, ids[len(ids)-1], "build", StatusRunning)
		}},
		{"a newer one is created", func() {
			at = at.Add(time.Second)
			create()
		}},
		{"an older one is created", func() {
			at = at.Add(-time.Hour)
			create()
		}},
		{"newer ones are created and the oldest changes", func() {
			oldest := ids[len(ids)-1]
			for range 3 {
				at = at.Add(time.Hour)
				create()
			}
			step(t, s, oldest, "build", StatusSuccess)
		}},
	} {
		c.change()
		l := checkListed(t, c.name, s)
		if i == 0 && l[slices.IndexFunc(l, func(sm Summary) bool { return sm.SessionID == ids[2] })].State != StateFailed {
			t.Fatalf("%s: listed %+v", c.name, l)
		}
	}
}

// TestListPageRequests: limits are kept within bounds, a cursor is
// checked, and a page goes on from its cursor when the execution the
// cursor names is gone.
func TestListPageRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{HeartbeatInterval: time.Hour})
	var ids []string
	for range 4 {
		ids = append(ids, must[*ExecutionState](t)(s.Create(ctx, "p", "", KeepCurrent())).SessionID)
	}
	all := must[[]Summary](t)(s.List(ctx))
	for _, c := range []string{"x", "12", "/id", "a/b"} {
		if _, err := s.ListPage(ctx, ListRequest{Cursor: c}); !errors.Is(err, errBadCursor) {
			t.Errorf("cursor %q: error %v, want errBadCursor", c, err)
		}
	}
	if _, err := s.ListPage(ctx, ListRequest{Limit: -1}); err == nil {
		t.Error("a limit below 0 was taken")
	}
	if p := must[ListPage](t)(s.ListPage(ctx, ListRequest{Limit: MaxListLimit + 1})); len(p.Items) != 4 || p.Next != "" {
		t.Errorf("a limit above the most: %d items, next %q", len(p.Items), p.Next)
	}
	p := must[ListPage](t)(s.ListPage(ctx, ListRequest{Limit: 2}))
	if len(p.Items) != 2 || p.Next == "" {
		t.Fatalf("first page of 2: %+v", p)
	}
	tok, _ := must2(t)(s.RequestDelete(ctx, p.Items[1].SessionID))
	check(t, s.ConfirmDelete(ctx, p.Items[1].SessionID, tok))
	rest := must[ListPage](t)(s.ListPage(ctx, ListRequest{Limit: 2, Cursor: p.Next}))
	if len(rest.Items) != 2 || rest.Items[0].SessionID != all[2].SessionID || rest.Items[1].SessionID != all[3].SessionID || rest.Next != "" {
		t.Errorf("the page after a deleted cursor: %+v, want %s and %s", rest, all[2].SessionID, all[3].SessionID)
	}
}

func must2(t testing.TB) func(string, time.Time, error) (string, time.Time) {
	return func(s string, tm time.Time, err error) (string, time.Time) {
		t.Helper()
		check(t, err)
		return s, tm
	}
}
