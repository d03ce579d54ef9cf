package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fillFast writes n messages of conversation c in large transactions, as a
// long history would have been written over time, with the same token and
// line measurements as Append.
func fillFast(b *testing.B, s *Store, c string, n int, maxLines int) {
	b.Helper()
	ctx := context.Background()
	if _, err := s.Append(ctx, Message{ConversationID: c, Role: RoleSystem, Content: "start"}); err != nil {
		b.Fatal(err)
	}
	contents := make([]string, 64)
	toks := make([]int, len(contents))
	lines := make([]int, len(contents))
	body := make([]int, len(contents))
	short := make([]any, len(contents))
	for i := range contents {
		var sb strings.Builder
		for j := range 1 + i%maxLines {
			fmt.Fprintf(&sb, "step %d output line %d: the build passed and the tests ran\n", i, j)
		}
		contents[i] = sb.String()
		toks[i] = s.counter().Count(contents[i])
		ls := contentLines(contents[i])
		lines[i], body[i] = len(ls), s.counter().Count(strings.Join(ls, "\n")+"\n")
		if len(ls) > defaultMaxOutputLines {
			short[i] = s.counter().Count(defaultFormatter.body(ls))
		}
	}
	roles := []string{RoleUser, RoleAssistant, RoleTool}
	const batch = 5000
	for i := 1; i < n; i += batch {
		err := s.db.Write(ctx, func(tx *sql.Tx) error {
			st, err := tx.PrepareContext(ctx, `INSERT INTO messages (conversation_id, role, content, mode, command, created_at, tokens, lines, body_tokens, short_tokens, encoding)
				VALUES (?, ?, ?, 'run', 'implement', ?, ?, ?, ?, ?, ?)`)
			if err != nil {
				return err
			}
			defer st.Close()
			for j := i; j < min(i+batch, n); j++ {
				k := j % len(contents)
				if _, err := st.ExecContext(ctx, c, roles[j%3], contents[k], time.Now().UnixMilli(), toks[k], lines[k], body[k], short[k], s.counter().Name()); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildContext builds the history of a 100,000-message
// conversation within a 32k-token budget (target: under 30 ms).
func BenchmarkBuildContext(b *testing.B) {
	s, _, _ := openStore(b)
	// "big": 1 to 30 lines a message, a third of them shortened by the
	// formatter; "short": one line each, so 32k tokens hold ~1,800.
	fillFast(b, s, "big", 100000, 30)
	fillFast(b, s, "short", 100000, 1)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		conv  string
		strat Strategy
	}{
		{"tokenBudget32k", "big", tokenBudget{Tokens: 32000}},
		{"tokenBudget32k/short", "short", tokenBudget{Tokens: 32000}},
		{"recent200", "big", recent{N: 200}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var h Context
			for b.Loop() {
				var err error
				h, err = s.buildContext(ctx, c.conv, buildRequest{Strategy: c.strat})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(h.Selected), "msgs")
			b.ReportMetric(float64(h.Tokens), "tokens")
		})
	}
}

// BenchmarkAppend measures Append with durable commits (one synced
// transaction per message): sequentially, and from 8 goroutines at once.
// Besides wall time it reports the process's CPU time per message.
func BenchmarkAppend(b *testing.B) {
	content := "a message of ordinary length, a sentence or two of a chat between a user and an agent."
	b.Run("sequential", func(b *testing.B) {
		s, _, _ := openStore(b)
		ctx := context.Background()
		cpu := startCPU()
		for b.Loop() {
			if _, err := s.Append(ctx, Message{ConversationID: "c", Role: RoleUser, Content: content}); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b, b.N)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	b.Run("batch2", func(b *testing.B) {
		// A chain step appends its prompt and its result together.
		s, _, _ := openStore(b)
		ctx := context.Background()
		cpu := startCPU()
		for b.Loop() {
			if _, err := s.AppendAll(ctx, []Message{
				{ConversationID: "c", Role: RoleUser, Content: content},
				{ConversationID: "c", Role: RoleAssistant, Content: content},
			}); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b, 2*b.N)
		b.ReportMetric(float64(2*b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
	b.Run("parallel8", func(b *testing.B) {
		s, _, _ := openStore(b)
		ctx := context.Background()
		b.SetParallelism(8)
		var once sync.Once
		cpu := startCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Append(ctx, Message{ConversationID: "c", Role: RoleUser, Content: content}); err != nil {
					once.Do(func() { b.Error(err) })
					return
				}
			}
		})
		cpu.report(b, b.N)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}

// cpuMeter measures the process's CPU time from startCPU to report.
type cpuMeter struct {
	user, sys time.Duration
	ok        bool
}

func startCPU() cpuMeter {
	user, sys, ok := processCPU()
	return cpuMeter{user: user, sys: sys, ok: ok}
}

// report adds the CPU time per message, in microseconds, to b's results: in
// user space (SQLite, database/sql, tokenizer) and in the kernel (mostly the
// writes and syncs of the WAL).
func (m cpuMeter) report(b *testing.B, msgs int) {
	user, sys, ok := processCPU()
	if !m.ok || !ok || msgs == 0 {
		return
	}
	b.ReportMetric(float64((user-m.user).Microseconds())/float64(msgs), "user-µs/msg")
	b.ReportMetric(float64((sys-m.sys).Microseconds())/float64(msgs), "sys-µs/msg")
}
