package history

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/runs/storage"
	"github.com/ctxls/ctxls/providers/tokens"
)

// openStore opens a store on a fresh database file with the real tokenizer.
func openStore(t testing.TB) (*Store, *storage.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), storage.FileName)
	s, db := openPath(t, path)
	return s, db, path
}

// openPath opens the database file at path, closed when the test ends,
// and a store over it.
func openPath(t testing.TB, path string) (*Store, *storage.DB) {
	t.Helper()
	db, err := storage.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return Open(db, counter(t)), db
}

// loggedStore opens a store on a fresh database file that logs, as text,
// to the returned buffer.
func loggedStore(t testing.TB) (*Store, *strings.Builder) {
	t.Helper()
	_, db, _ := openStore(t)
	var log strings.Builder
	return New(db, fixed(counter(t)), Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}), &log
}

func counter(t testing.TB) tokens.Counter {
	t.Helper()
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fixed returns a counter source that always gives c.
func fixed(c tokens.Counter) func() tokens.Counter {
	return func() tokens.Counter { return c }
}

func mustAppend(t testing.TB, s *Store, m Message) Message {
	t.Helper()
	out, err := s.Append(context.Background(), m)
	if err != nil {
		t.Fatalf("append %+v: %v", m, err)
	}
	return out
}
