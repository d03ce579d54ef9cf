package storage

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAppendMessage inserts into messages, one committed transaction per
// message ("durable": synchronous=FULL, the WAL is synced at every commit),
// and reports messages per second. The batch variants commit several messages
// per transaction, as a writer that groups concurrent appends would; the
// NORMAL variant shows the cost of the per-commit sync.
func BenchmarkAppendMessage(b *testing.B) {
	for _, c := range []struct {
		name        string
		synchronous string
		batch       int
	}{
		{"full/1", "FULL", 1},
		{"full/8", "FULL", 8},
		{"full/32", "FULL", 32},
		{"normal/1", "NORMAL", 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			o := defaultOptions()
			o.synchronous = c.synchronous
			db, err := open(ctx, filepath.Join(b.TempDir(), FileName), o)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO conversations (conversation_id, created_at) VALUES ('c', 0)`); err != nil {
				b.Fatal(err)
			}
			content := "a message of ordinary length, a sentence or two of a chat between a user and an agent."
			b.ResetTimer()
			for i := 0; i < b.N; i += c.batch {
				n := min(c.batch, b.N-i)
				err := db.Write(ctx, func(tx *sql.Tx) error {
					for range n {
						_, err := tx.ExecContext(ctx, `INSERT INTO messages (conversation_id, role, content, mode, created_at, tokens)
							VALUES ('c', 'user', ?, 'chat', ?, 20)`, content, time.Now().UnixMilli())
						if err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
