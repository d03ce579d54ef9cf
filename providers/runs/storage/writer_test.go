package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const insertSetting = `INSERT INTO settings (key, value) VALUES (?, ?)`

// countSettings returns the number of rows of settings, read through db's
// pool.
func countSettings(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRowContext(context.Background(), `SELECT count(*) FROM settings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// wantSettings fails the test unless settings holds n rows.
func wantSettings(t *testing.T, db *DB, n int) {
	t.Helper()
	if got := countSettings(t, db); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
}

// writeSetting stores key=value through w's prepared statement.
func writeSetting(ctx context.Context, w *Writer, key, value string) error {
	return w.Write(ctx, func(tx *WriteTx) error {
		_, err := tx.Stmt(0).ExecContext(ctx, key, value)
		return err
	})
}

// writeThen stores key through w's prepared statement and then ends the
// transaction as then does: with its error, or its panic.
func writeThen(ctx context.Context, w *Writer, key string, then func(tx *WriteTx) error) error {
	return w.Write(ctx, func(tx *WriteTx) error {
		if _, err := tx.Stmt(0).ExecContext(ctx, key, "v"); err != nil {
			return err
		}
		return then(tx)
	})
}

// mustWrite stores key=v through w, failing the test if it cannot.
func mustWrite(t *testing.T, w *Writer, key string) {
	t.Helper()
	if err := writeSetting(context.Background(), w, key, "v"); err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
}

// The writer's connection comes from the pool, so it has the pragmas of the
// DSN, synchronous=FULL above all; and its transactions hold the write lock
// from their start, as DB.Write's do.
func TestWriterPragmasAndImmediate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := openPair(t, defaultBusyTimeout, 10*time.Millisecond)
	w := db.Writer(insertSetting)
	err := w.Write(ctx, func(tx *WriteTx) error {
		if err := checkPragmas(t, "writer connection", tx); err != nil {
			return err
		}
		// Nothing written yet; a DEFERRED transaction would hold no lock.
		_, err := other.SQL().ExecContext(ctx, insertSetting, "other", "v")
		if !isBusy(err) {
			t.Errorf("write while the writer's transaction is open: got %v, want SQLITE_BUSY", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.SQL().ExecContext(ctx, insertSetting, "other", "v"); err != nil {
		t.Fatalf("write after the writer's transaction: %v", err)
	}
}

// Each Write commits, durably, through the statement prepared once, and a
// failed one leaves nothing behind and the connection usable.
func TestWriterCommitsAndRollsBack(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	w := db.Writer(insertSetting)
	for i := range 3 {
		mustWrite(t, w, fmt.Sprint("k", i))
	}
	boom := errors.New("boom")
	err := writeThen(ctx, w, "lost", func(*WriteTx) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Write error = %v, want %v", err, boom)
	}
	// A constraint error inside the transaction rolls back what fn wrote
	// before it.
	err = writeThen(ctx, w, "lost too", func(tx *WriteTx) error {
		_, err := tx.Stmt(0).ExecContext(ctx, "k0", "duplicate")
		return err
	})
	if !isConstraint(err) {
		t.Fatalf("duplicate key: %v, want a constraint error", err)
	}
	mustWrite(t, w, "k3")
	wantSettings(t, db, 4)
}

// A function that panics leaves no transaction open: the lock is free for
// others, what it wrote is gone, and the writer goes on.
func TestWriterPanicRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := openPair(t, defaultBusyTimeout, 10*time.Millisecond)
	w := db.Writer(insertSetting)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		writeThen(ctx, w, "lost", func(*WriteTx) error { panic("boom") })
	}()
	if _, err := other.SQL().ExecContext(ctx, insertSetting, "other", "v"); err != nil {
		t.Fatalf("write after the panic: %v", err)
	}
	mustWrite(t, w, "next")
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM settings WHERE key = 'lost'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the panicking transaction's row: %d, %v", n, err)
	}
}

// TestWriterRetriesWhileLocked: as DB.Write, a writer waits out a lock held
// for longer than the busy timeout.
func TestWriterRetriesWhileLocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, holder := openPair(t, 20*time.Millisecond, defaultBusyTimeout)
	released := holdWriteLock(t, holder, 150*time.Millisecond)
	err := writeSetting(ctx, db.Writer(insertSetting), "a", "b")
	<-released
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	wantSettings(t, db, 1)
}

// A context that ends while the writer waits for the lock fails that Write,
// and leaves the writer's connection outside any transaction.
func TestWriterContextEndsWhileWaiting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, holder := openPair(t, defaultBusyTimeout, defaultBusyTimeout)
	w := db.Writer(insertSetting)
	mustWrite(t, w, "first")
	tx, err := holder.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = writeSetting(short, w, "late", "v")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Write with an ended context: %v, want context.DeadlineExceeded", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, w, "second")
	if _, err := holder.SQL().ExecContext(ctx, insertSetting, "holder", "v"); err != nil {
		t.Fatalf("another handle cannot write after the writer: %v", err)
	}
	wantSettings(t, db, 3)
}

// Once fn has returned nil the transaction commits, even if the context
// ended meanwhile, and Write says so: a commit is never reported failed
// after it took effect.
func TestWriterCommitAfterContextEnds(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := writeThen(ctx, db.Writer(insertSetting), "k", func(*WriteTx) error {
		cancel()
		return nil
	})
	if n := countSettings(t, db); (err == nil) != (n == 1) {
		t.Fatalf("Write returned %v with %d rows stored", err, n)
	}
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// Prepared statements survive a schema change made by another connection:
// SQLite compiles them again.
func TestWriterAfterSchemaChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := openPair(t, defaultBusyTimeout, defaultBusyTimeout)
	w := db.Writer(insertSetting)
	mustWrite(t, w, "before")
	if _, err := other.SQL().ExecContext(ctx, `CREATE INDEX settings_value ON settings (value)`); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, w, "after")
	wantSettings(t, other, 2)
}

// Users of the same queries share one writer, hence one connection of the
// pool, and the writers close with the database: its last connection gone,
// SQLite checkpoints the WAL and removes it.
func TestWritersSharedAndClosedWithDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db := openPath(t, path, defaultBusyTimeout)
	w := db.Writer(insertSetting)
	if db.Writer(insertSetting) != w {
		t.Error("two writers for the same queries")
	}
	if db.Writer(insertSetting, `SELECT 1`) == w {
		t.Error("one writer for different queries")
	}
	mustWrite(t, w, "k")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := writeSetting(ctx, w, "late", "v"); !errors.Is(err, errWriterClosed) {
		t.Errorf("Write after Close: %v, want errWriterClosed", err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WAL left after Close (a connection is still open): %v", err)
	}
}

// The writer's kept connection pins no snapshot between its transactions:
// its commits checkpoint the WAL, which then starts over from its beginning
// instead of growing with every commit.
func TestWriterLetsTheWALRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db := openPath(t, path, defaultBusyTimeout)
	w := db.Writer(insertSetting)
	err := w.Write(ctx, func(tx *WriteTx) error {
		// A connection setting, so that a few commits are enough. SQLite
		// answers with the new value.
		var pages int
		if err := tx.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint = 10`).Scan(&pages); err != nil {
			return err
		}
		if pages != 10 {
			return fmt.Errorf("wal_autocheckpoint = %d, want 10", pages)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const commits = 300
	for i := range commits {
		mustWrite(t, w, fmt.Sprint("k", i))
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	// Each commit appends at least one 4 KiB page to the WAL.
	if fi.Size() >= commits*4096/2 {
		t.Fatalf("WAL is %d bytes after %d commits: it was not restarted", fi.Size(), commits)
	}
}
