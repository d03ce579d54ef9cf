package execution

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/runs/storage"
)

// listResult is the ctxls/execution/list result as encoding/json writes it.
type listResult struct {
	Items    []Summary  `json:"items"`
	Current  string     `json:"current"`
	Warnings []struct{} `json:"warnings"`
}

// checkListed compares List and ListJSON of s with the executions read
// without the cache, and returns them; what names the moment.
func checkListed(t *testing.T, what string, s *Store) []Summary {
	t.Helper()
	ctx := context.Background()
	fresh := must[[]Summary](t)(s.list(ctx, s.now()))
	if fresh == nil {
		fresh = []Summary{}
	}
	got := must[[]Summary](t)(s.List(ctx))
	if !reflect.DeepEqual(got, fresh) {
		t.Fatalf("%s: List returned\n%+v\nread without the cache\n%+v", what, got, fresh)
	}
	want := listResult{Items: fresh, Warnings: []struct{}{}}
	for _, sm := range fresh {
		if sm.IsCurrent {
			want.Current = sm.SessionID
		}
	}
	wb, err := json.Marshal(want)
	check(t, err)
	if gb := must[json.RawMessage](t)(s.ListJSON(ctx)); string(gb) != string(wb) {
		t.Fatalf("%s: ListJSON returned\n%s\nwant\n%s", what, gb, wb)
	}
	return got
}

// What a List call read of the executions.
// listAfter runs change, then lists s as checkListed does, and returns the
// list and how much of the executions listing it read.
func listAfter(t *testing.T, what string, s *Store, change func()) ([]Summary, int) {
	t.Helper()
	loads, updates := s.lists.loads, s.lists.updates
	change()
	l := checkListed(t, what, s)
	switch {
	case s.lists.loads != loads:
		return l, readAll
	case s.lists.updates != updates:
		return l, readChanged
	}
	return l, readNone
}

const (
	readNone    = iota // nothing: the cached summaries were up to date
	readChanged        // the executions changed since the cached ones
	readAll            // every execution
)

// TestListCache follows, change by change, what List and ListJSON of one
// process return while another process (a database handle of its own)
// works: they always match the database, and executions are read again only
// after a commit changed them. Heartbeats, chain runs, owners going stale
// and the choice of the current execution change at most which work is
// running and which execution is current, which every call reads afresh.
func TestListCache(t *testing.T) {
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
		// read is what List reads of the executions after the change.
		read int
		// check looks at the list after the change.
		check func([]Summary) bool
	}{
		{"empty database", func() {}, readAll, func(l []Summary) bool { return len(l) == 0 }},
		{"nothing changed", func() {}, readNone, nil},
		{"another process creates one", func() {
			first = must[*ExecutionState](t)(b.Create(ctx, "p", "")).SessionID
		}, readChanged, func(l []Summary) bool { return len(l) == 1 && l[0].IsCurrent && l[0].State == StateNew }},
		{"this process's heartbeat", func() { check(t, a.beat(ctx)) }, readNone, nil},
		{"the other process's heartbeat", func() { check(t, b.beat(ctx)) }, readNone, nil},
		{"another process starts a command", func() {
			must[*CommandExecution](t)(b.StartCommand(ctx, first, "build", nil))
		}, readChanged, func(l []Summary) bool { return l[0].State == StateRunning && l[0].Summary.CurrentCommand == "build" }},
		{"a context load", func() { check(t, b.RecordContextLoad(ctx, first, "d", "t", "content")) }, readNone, nil},
		{"shared data", func() { check(t, b.SetSharedData(ctx, first, "k", 1)) }, readNone, nil},
		{"the command completes", func() {
			must[*CommandExecution](t)(b.CompleteCommand(ctx, first, "build", StatusSuccess, nil))
		}, readChanged, func(l []Summary) bool { return l[0].State == StateCompleted && l[0].Summary.CommandsCompleted == 1 }},
		{"this process creates one", func() {
			second = must[*ExecutionState](t)(a.Create(ctx, "q", "")).SessionID
		}, readChanged, func(l []Summary) bool {
			return len(l) == 2 && l[0].SessionID == second && l[0].IsCurrent && !l[1].IsCurrent
		}},
		{"another process changes the current one", func() { check(t, b.SetCurrent(ctx, first)) },
			readNone, func(l []Summary) bool { return !l[0].IsCurrent && l[1].IsCurrent }},
		{"another process sets a plan", func() { check(t, b.SetPlan(ctx, second, []string{"x", "y"}, "in")) },
			readChanged, func(l []Summary) bool { return l[0].State == StateInterrupted && l[0].Summary.CommandsTotal == 2 }},
		{"another process starts a chain run", func() {
			run = must[*Run](t)(b.StartRun(ctx, second, RunKindResume))
		}, readNone, func(l []Summary) bool { return l[0].State == StateRunning }},
		{"the run finishes", func() { check(t, b.FinishRun(ctx, run.RunID)) },
			readNone, func(l []Summary) bool { return l[0].State == StateInterrupted }},
		{"another process asks to delete one", func() {
			token, _ = must2(t)(b.RequestDelete(ctx, second))
		}, readNone, nil},
		{"another process deletes it", func() { check(t, b.ConfirmDelete(ctx, second, token)) },
			readChanged, func(l []Summary) bool { return len(l) == 1 && l[0].SessionID == first }},
		{"another process starts a command again", func() {
			must[*CommandExecution](t)(b.StartCommand(ctx, first, "test", nil))
		}, readChanged, func(l []Summary) bool { return l[0].State == StateRunning }},
		{"the other process dies: running until its heartbeat is stale", func() { crash(b) },
			readNone, func(l []Summary) bool { return l[0].State == StateRunning }},
		{"its heartbeat goes stale without any commit", func() {
			later := time.Now().Add(10 * time.Hour)
			a.now = func() time.Time { return later }
		}, readNone, func(l []Summary) bool { return l[0].State == StateInterrupted }},
		{"this process's heartbeat records the interruption", func() { check(t, a.beat(ctx)) },
			readChanged, func(l []Summary) bool { return l[0].State == StateInterrupted }},
	} {
		l, read := listAfter(t, c.name, a, c.change)
		if read != c.read {
			t.Errorf("%s: read %d of the executions, want %d (0 none, 1 the changed ones, 2 all)", c.name, read, c.read)
		}
		if c.check != nil && !c.check(l) {
			t.Errorf("%s: listed %+v", c.name, l)
		}
	}
}

// TestListCacheOrder: executions that changed keep their place in the
// cached list and new ones take theirs, also among executions created in
// the same millisecond, which the list orders by id.
func TestListCacheOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{HeartbeatInterval: time.Hour})
	at := time.Now()
	s.now = func() time.Time { return at }
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

// TestListCacheDeletions: the cache drops the executions deleted since it
// read them, and reads them all when the log of deletions, which keeps the
// last 1,000, no longer goes back to its version.
func TestListCacheDeletions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{HeartbeatInterval: time.Hour})
	var ids []string
	for range 4 {
		ids = append(ids, must[*ExecutionState](t)(s.Create(ctx, "p", "", KeepCurrent())).SessionID)
	}
	del := func(id string) {
		t.Helper()
		tok, _ := must2(t)(s.RequestDelete(ctx, id))
		check(t, s.ConfirmDelete(ctx, id, tok))
	}
	for _, c := range []struct {
		name   string
		change func()
		read   int
	}{
		{"four executions", func() {}, readAll},
		{"two deleted", func() { del(ids[0]); del(ids[2]) }, readChanged},
		{"one deleted, one created", func() {
			del(ids[1])
			must[*ExecutionState](t)(s.Create(ctx, "q", "", KeepCurrent()))
		}, readChanged},
		{"one deleted beyond the log", func() {
			del(ids[3])
			_, err := db.SQL().ExecContext(ctx, `DELETE FROM list_deletions`)
			check(t, err)
		}, readAll},
	} {
		_, read := listAfter(t, c.name, s, c.change)
		if read != c.read {
			t.Errorf("%s: read %d of the executions, want %d", c.name, read, c.read)
		}
	}

	// 1,005 executions created and deleted in one transaction leave the
	// last 1,000 deletions in the log.
	err := db.Write(ctx, func(tx *sql.Tx) error {
		for i := range 1005 {
			id := fmt.Sprint("bulk-", i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO executions (session_id, project_name, started_at) VALUES (?, 'bulk', 0)`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM executions WHERE session_id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	check(t, err)
	var n int
	check(t, db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM list_deletions`).Scan(&n))
	if n != 1000 {
		t.Errorf("list_deletions holds %d deletions, want the last 1000", n)
	}
	var oldest string
	check(t, db.SQL().QueryRowContext(ctx, `SELECT session_id FROM list_deletions ORDER BY version LIMIT 1`).Scan(&oldest))
	if oldest != "bulk-5" {
		t.Errorf("the oldest deletion kept is %s, want bulk-5", oldest)
	}
	checkListed(t, "after the bulk deletions", s)
}

func must2(t testing.TB) func(string, time.Time, error) (string, time.Time) {
	return func(s string, tm time.Time, err error) (string, time.Time) {
		t.Helper()
		check(t, err)
		return s, tm
	}
}

// TestListCopies: a caller's change to what List returned does not reach
// the cache.
func TestListCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{HeartbeatInterval: time.Hour})
	must[*ExecutionState](t)(s.Create(ctx, "p", ""))
	l := must[[]Summary](t)(s.List(ctx))
	l[0].ProjectName = "changed by the caller"
	if l := must[[]Summary](t)(s.List(ctx)); l[0].ProjectName != "p" {
		t.Fatal("a caller's change leaked into the cache")
	}
}

// TestListJSONEscapes checks the hand-written encoder of the list against
// encoding/json, including strings that need escaping.
func TestListJSONEscapes(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 5, 1, 12, 30, 45, 123000000, time.UTC)
	for _, items := range [][]Summary{
		{},
		{{SessionID: "a", ProjectName: "shop", State: StateCompleted, Created: created, IsCurrent: true,
			Summary: Progress{CurrentCommand: "test", CommandsCompleted: 3, CommandsTotal: 3}}},
		{
			{SessionID: "b", ProjectName: "quote \" back\\slash <tag> & ünïcode \u2028 \x01", ProjectType: "tab\there",
				State: StateFailed, Created: created.Add(time.Second), Summary: Progress{CurrentCommand: "ä", CommandsFailed: 1, CommandsTotal: 2}},
			{SessionID: "c", ProjectName: "invalid \xff utf8", State: StateRunning, Created: time.UnixMilli(0).UTC(), IsCurrent: true},
		},
	} {
		want := listResult{Items: items, Warnings: []struct{}{}}
		for _, it := range items {
			if it.IsCurrent {
				want.Current = it.SessionID
			}
		}
		wb, err := json.Marshal(want)
		check(t, err)
		if got, _ := appendListJSON(nil, items, nil); string(got) != string(wb) {
			t.Errorf("encoded\n%s\nwant\n%s", got, wb)
		}
	}
}

// BenchmarkList10000Uncached is List's query without the cache: what a
// List costs after a commit that changed an execution.
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
