package execution

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"
)

// filledStore returns a store on a new database holding n executions, as
// fillExecutions records them.
func filledStore(b testing.TB, n int) *Store {
	s := newStore(b, openDB(b), Options{})
	fillExecutions(b, s, n)
	return s
}

// fillExecutions records n executions of three completed commands each,
// through the same code as the public methods, in one transaction so that
// the fixture takes seconds rather than minutes of per-commit syncs.
func fillExecutions(b testing.TB, s *Store, n int) {
	ctx := context.Background()
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		for i := range n {
			st, err := s.create(ctx, tx, fmt.Sprintf("project-%d", i%50), "go", i == n-1)
			if err != nil {
				return err
			}
			for j, cmd := range []string{"brainstorm", "implement", "test"} {
				if _, err := s.startCommand(ctx, tx, st.SessionID, cmd, `{"input":"x"}`); err != nil {
					return err
				}
				status := StatusSuccess
				if i%7 == 0 && j == 2 {
					status = StatusFailed
				}
				if _, err := s.completeCommand(ctx, tx, st.SessionID, cmd, status, `{"ok":true}`); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkList10000 lists 10,000 executions of three commands each.
func BenchmarkList10000(b *testing.B) {
	const n = 10000
	s := filledStore(b, n)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		l, err := s.List(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(l) != n {
			b.Fatalf("listed %d executions, want %d", len(l), n)
		}
	}
}

// BenchmarkStartComplete is one step round trip: StartCommand then
// CompleteCommand, two durable commits.
func BenchmarkStartComplete(b *testing.B) {
	ctx := context.Background()
	s := newStore(b, openDB(b), Options{})
	st := must[*ExecutionState](b)(s.Create(ctx, "p", "go"))
	in := map[string]any{"input": "add a login page"}
	out := map[string]any{"summary": "done", "files": []string{"a.go", "b.go"}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.StartCommand(ctx, st.SessionID, "implement", in); err != nil {
			b.Fatal(err)
		}
		if _, err := s.CompleteCommand(ctx, st.SessionID, "implement", StatusSuccess, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet reads the whole state of an execution of ten steps.
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	s := newStore(b, openDB(b), Options{})
	st := must[*ExecutionState](b)(s.Create(ctx, "p", "go"))
	for i := range 10 {
		cmd := fmt.Sprintf("c%d", i)
		if _, err := s.StartCommand(ctx, st.SessionID, cmd, nil); err != nil {
			b.Fatal(err)
		}
		if err := s.RecordContextLoad(ctx, st.SessionID, "d", cmd, "# content"); err != nil {
			b.Fatal(err)
		}
		if _, err := s.CompleteCommand(ctx, st.SessionID, cmd, StatusSuccess, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Get(ctx, st.SessionID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPage10000 is ctxls/execution/list's work in the server
// with 10,000 executions: a page of DefaultListLimit, the first one and
// one from the middle of the list, as an editor's first view and its
// paging read them. It reports the median and 99th percentile of a call.
func BenchmarkListPage10000(b *testing.B) {
	const n = 10000
	s := filledStore(b, n)
	ctx := context.Background()
	all, err := s.List(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		cursor string
	}{
		{"first", ""},
		{"middle", cursorOf(all[n/2-1])},
	} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				p, err := s.ListPage(ctx, ListRequest{Cursor: c.cursor})
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Items) != DefaultListLimit || p.Next == "" {
					b.Fatalf("a page of %d executions, next %q", len(p.Items), p.Next)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}
