//go:build unix

package lsp

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

// chainFillExecutions records n executions of three completed steps each,
// straight into the workspace database in one transaction (the triggers
// keep the list counters as the store's own writes do).
func chainFillExecutions(b *testing.B, dir string, n int) {
	b.Helper()
	ctx := context.Background()
	db, err := storage.OpenWorkspace(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UnixMilli()
	err = db.Write(ctx, func(tx *sql.Tx) error {
		for i := range n {
			id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO executions (session_id, project_name, project_type, started_at, plan, plan_input)
				VALUES (?, ?, 'python', ?, '["brainstorm","implement","test"]', 'input')`, id, fmt.Sprintf("project-%d", i%50), now-int64(i)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (conversation_id, session_id, created_at) VALUES (?1, ?1, ?2)`, id, now); err != nil {
				return err
			}
			for step, cmd := range []string{"brainstorm", "implement", "test"} {
				status := "success"
				if i%7 == 0 && step == 2 {
					status = "failed"
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO commands (session_id, step, command, status, started_at, completed_at, owner_id)
					VALUES (?, ?, ?, ?, ?, ?, 'fixture')`, id, step, cmd, status, now, now); err != nil {
					return err
				}
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('current_execution', ?)`, fmt.Sprintf("00000000-0000-4000-8000-%012d", 0))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChainExecutionList10000 is ctxls/execution/list over stdio with
// 10,000 recorded executions and no change between calls: the store's
// query of the first page, the JSON encoding and the transfer through the
// pipe, and the client's own decoding of the response, which
// client-decode-ms/op reports apart.
func BenchmarkChainExecutionList10000(b *testing.B) {
	const n = 10000
	dir, _ := chainWorkspace(b, "")
	chainFillExecutions(b, dir, n)
	c := chainStart(b, dir)
	chainListed(b, c, n) // opens the store
	ctx := context.Background()
	cpu0, ok := chainProcessCPU(c.cmd.Process.Pid)
	b.ResetTimer()
	for b.Loop() {
		if err := c.call(ctx, "ctxls/execution/list", map[string]any{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// The server's CPU time per call does not depend on how busy the
	// machine is, unlike the wall time.
	if cpu1, ok1 := chainProcessCPU(c.cmd.Process.Pid); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "server-cpu-ms/op")
	}
	chainReportDecode(b, c)
}

// BenchmarkChainExecutionListAfterStep10000 is ctxls/execution/list over
// stdio with 10,000 recorded executions after each step recorded in one of
// them, as when an editor refreshes the list after every step of a chain.
// Only the list calls are timed.
func BenchmarkChainExecutionListAfterStep10000(b *testing.B) {
	const n = 10000
	dir, _ := chainWorkspace(b, "")
	chainFillExecutions(b, dir, n)
	c := chainStart(b, dir)
	id := chainListed(b, c, n)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c.must("ctxls/execution/startCommand", map[string]any{"sessionId": id, "command": fmt.Sprint("step-", i)}, nil)
		b.StartTimer()
		if err := c.call(ctx, "ctxls/execution/list", map[string]any{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// chainListed lists the first page of the executions, checks that it is
// full and that more follow when there are n, and returns the id of the
// newest.
func chainListed(b *testing.B, c *chainClient, n int) string {
	b.Helper()
	var list struct {
		Items []struct {
			SessionID string `json:"sessionId"`
		} `json:"items"`
		Next string `json:"next"`
	}
	c.must("ctxls/execution/list", map[string]any{}, &list)
	if want := min(n, execution.DefaultListLimit); len(list.Items) != want || (n > want) != (list.Next != "") {
		b.Fatalf("listed %d executions (next %q), want a page of %d of %d", len(list.Items), list.Next, want, n)
	}
	return list.Items[0].SessionID
}

// chainReportDecode reports how long the benchmark's client takes to
// decode one ctxls/execution/list response (as chainClient reads every
// message): that much of the wall time per call is the client's.
func chainReportDecode(b *testing.B, c *chainClient) {
	var raw json.RawMessage
	c.must("ctxls/execution/list", map[string]any{}, &raw)
	body := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), raw...), '}')
	const rounds = 10
	start := time.Now()
	for range rounds {
		var m stdioMessage
		if err := decodeMessage(body, &m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/rounds, "client-decode-ms/op")
}

// chainProcessCPU returns the user and system CPU time of a process, from
// /proc (Linux only).
func chainProcessCPU(pid int) (time.Duration, bool) {
	f, ok := chaintest.ProcStat(pid)
	if !ok || len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	// Clock ticks are 1/100 s on Linux.
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
