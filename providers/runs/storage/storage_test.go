package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openPath opens the database at path with the given busy timeout, closed
// when the test ends.
func openPath(t testing.TB, path string, busy time.Duration) *DB {
	t.Helper()
	o := defaultOptions()
	o.busyTimeout = busy
	db, err := open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openPair opens two handles on one new database file, with the busy
// timeouts busy and otherBusy.
func openPair(t testing.TB, busy, otherBusy time.Duration) (db, other *DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	return openPath(t, path, busy), openPath(t, path, otherBusy)
}

// openTemp opens a new database, as Open does, in directories it has to
// make; it is closed when the test ends.
func openTemp(t testing.TB) *DB {
	t.Helper()
	return openPath(t, filepath.Join(t.TempDir(), "nested", "dir", FileName), defaultBusyTimeout)
}

// TestPragmasOnEveryConnection holds several pool connections at once and
// checks that each got the pragmas of the DSN, not only the first one.
func TestPragmasOnEveryConnection(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	var conns []*sql.Conn
	for range 4 {
		c, err := db.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i, c := range conns {
		if err := checkPragmas(t, fmt.Sprintf("connection %d", i), c); err != nil {
			t.Fatal(err)
		}
	}
}

// checkPragmas checks the pragmas that every connection of the DSN has,
// as q, the connection called what, reports them. It returns the error of
// a query that failed.
func checkPragmas(t *testing.T, what string, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) error {
	t.Helper()
	for _, p := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", fmt.Sprint(defaultBusyTimeout.Milliseconds())},
		{"synchronous", "2"}, // FULL
	} {
		var got string
		if err := q.QueryRowContext(context.Background(), "PRAGMA "+p.pragma).Scan(&got); err != nil {
			return err
		}
		if got != p.want {
			t.Errorf("%s: PRAGMA %s = %q, want %q", what, p.pragma, got, p.want)
		}
	}
	return nil
}

// TestTransactionsBeginImmediate checks that an open transaction holds the
// write lock before it writes anything: another handle cannot write.
func TestTransactionsBeginImmediate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := openPair(t, defaultBusyTimeout, 10*time.Millisecond)

	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Read only; a DEFERRED transaction would hold no write lock now.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	_, err = other.SQL().ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('k', 'v')`)
	if !isBusy(err) {
		t.Fatalf("write while another transaction is open: got %v, want SQLITE_BUSY", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.SQL().ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('k', 'v')`); err != nil {
		t.Fatalf("write after the transaction ended: %v", err)
	}
}

// TestReadDoesNotBlockWriters: Read transactions are not IMMEDIATE.
func TestReadDoesNotBlockWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := openPair(t, defaultBusyTimeout, 10*time.Millisecond)
	err := db.Read(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
			return err
		}
		if _, err := other.SQL().ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('k', 'v')`); err != nil {
			return fmt.Errorf("write during a read transaction: %w", err)
		}
		// The read transaction keeps its snapshot.
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
			return err
		}
		if n != 0 {
			return fmt.Errorf("read transaction sees %d rows written after it began", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWriteRetriesWhileLocked holds the write lock in another handle for
// longer than the busy timeout; Write must get through once it is released.
func TestWriteRetriesWhileLocked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, holder := openPair(t, 20*time.Millisecond, defaultBusyTimeout)
	released := holdWriteLock(t, holder, 150*time.Millisecond)
	calls := 0
	err := db.Write(ctx, func(tx *sql.Tx) error {
		calls++
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('a', 'b')`)
		return err
	})
	<-released
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	var v string
	if err := db.SQL().QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'a'`).Scan(&v); err != nil || v != "b" {
		t.Fatalf("value after Write = %q, %v", v, err)
	}
	if calls != 1 {
		// BEGIN IMMEDIATE fails before fn runs, so fn runs once.
		t.Errorf("fn ran %d times, want 1", calls)
	}
}

// holdWriteLock takes the write lock through holder and releases it after
// d; the returned channel is closed once it is released.
func holdWriteLock(t *testing.T, holder *DB, d time.Duration) <-chan struct{} {
	t.Helper()
	tx, err := holder.SQL().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(d)
		tx.Rollback()
		close(released)
	}()
	return released
}

func TestWriteRollsBackOnError(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	boom := errors.New("boom")
	err := db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('x', 'y')`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write error = %v, want %v", err, boom)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d rows after a failed transaction, want 0", n)
	}
}

func TestMigrations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	v, err := db.schemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != len(ms) || v < 1 {
		t.Fatalf("schema version %d, want %d", v, len(ms))
	}
	for _, table := range []string{"executions", "commands", "command_attempts", "command_items", "context_loads",
		"memory_loads", "shared_data", "runs", "owners", "settings", "conversations", "messages"} {
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
	db.Close()

	// Reopening applies nothing twice.
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	var rows int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != len(ms) {
		t.Errorf("schema_migrations has %d rows, want %d", rows, len(ms))
	}

	// A database migrated by a newer binary is refused, untouched.
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 0)`, len(ms)+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	if !errors.Is(err, errSchemaTooNew) {
		t.Fatalf("open of a newer database: %v, want errSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("version %d", len(ms)+1)) {
		t.Errorf("error does not name the database version: %v", err)
	}
}

// olderDatabase creates a database as a ctxls that knew only the first n
// migrations left it, and returns a function running a statement on it
// and one that closes it and opens it as this ctxls does, until the test
// ends.
func olderDatabase(t *testing.T, n int) (exec func(q string, args ...any), upgrade func() *DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	exec = func(q string, args ...any) {
		t.Helper()
		if _, err := raw.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
	for _, m := range ms[:n] {
		exec(m.sql)
		exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)`, m.version, m.name)
	}
	return exec, func() *DB {
		t.Helper()
		raw.Close()
		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
}

// Migration 7 gives the commands recorded before it the start of their
// first attempt (the earliest one command_attempts holds, else their own)
// and their executions the progress a list shows.
func TestMigrationFirstAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	exec, upgrade := olderDatabase(t, 6)
	exec(`INSERT INTO executions (session_id, project_name, started_at) VALUES ('s', 'p', 1)`)
	exec(`INSERT INTO commands (id, session_id, step, command, attempts, status, started_at, owner_id) VALUES (1, 's', 0, 'retried', 3, 'success', 300, 'o')`)
	exec(`INSERT INTO command_attempts (command_id, attempt, status, started_at, owner_id) VALUES (1, 1, 'failed', 100, 'o'), (1, 2, 'failed', 200, 'o')`)
	exec(`INSERT INTO commands (id, session_id, step, command, status, inputs, started_at, owner_id) VALUES (2, 's', 1, 'once', 'partial', '{"input":"go on"}', 400, 'o')`)
	db := upgrade()
	var succeeded int
	var status, input string
	if err := db.SQL().QueryRowContext(ctx, `SELECT steps_succeeded, last_status, last_input FROM executions`).Scan(&succeeded, &status, &input); err != nil {
		t.Fatal(err)
	}
	if succeeded != 1 || status != "partial" || input != "go on" {
		t.Errorf("execution: %d succeeded, last status %q, last input %q; want 1, partial, go on", succeeded, status, input)
	}
	for id, want := range map[int]int64{1: 100, 2: 400} {
		var got int64
		if err := db.SQL().QueryRowContext(ctx, `SELECT first_started_at FROM commands WHERE id = ?`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("command %d: first_started_at %d, want %d", id, got, want)
		}
	}
}

// Migration 8 drops the list versions of migration 6 from a database an
// older ctxls created, keeping its executions and the progress triggers of
// migration 7.
func TestMigrationDropsListVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	exec, upgrade := olderDatabase(t, 7)
	exec(`INSERT INTO executions (session_id, project_name, started_at) VALUES ('s', 'p', 1)`)
	exec(`INSERT INTO commands (id, session_id, step, command, status, inputs, started_at, owner_id) VALUES (1, 's', 0, 'a', 'success', '{"input":"x"}', 2, 'o')`)
	db := upgrade()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := db.schemaVersion(ctx); err != nil || v != len(ms) {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(ms))
	}
	var left int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name LIKE '%list_version%' OR name = 'list_deletions'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d tables, indexes or triggers of the list versions are left", left)
	}
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('executions') WHERE name = 'list_version'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("executions.list_version is left (%v)", err)
	}
	// The execution is kept, and the progress triggers still follow its
	// commands.
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO commands (id, session_id, step, command, status, started_at, owner_id) VALUES (2, 's', 1, 'b', 'success', 3, 'o')`); err != nil {
		t.Fatal(err)
	}
	var succeeded int
	if err := db.SQL().QueryRowContext(ctx, `SELECT steps_succeeded FROM executions WHERE session_id = 's'`).Scan(&succeeded); err != nil {
		t.Fatal(err)
	}
	if succeeded != 2 {
		t.Errorf("steps_succeeded = %d after a second successful step, want 2", succeeded)
	}
}

// TestConcurrentOpen opens a fresh database from several goroutines at once,
// each with its own pool: the switch to WAL and the migrations must be
// applied once, without errors.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	ctx := context.Background()
	errs := make(chan error, 4)
	dbs := make(chan *DB, 4)
	for range 4 {
		go func() {
			db, err := Open(ctx, path)
			errs <- err
			dbs <- db
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
		if db := <-dbs; db != nil {
			db.Close()
		}
	}
}

func TestMessagesAppendOnlyAndCascade(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	err := db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO executions (session_id, project_name, started_at) VALUES ('s1', 'p', 1)`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (conversation_id, session_id, created_at) VALUES ('s1', 's1', 1)`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO messages (conversation_id, role, content, created_at) VALUES ('s1', 'user', 'hi', 1)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SQL().ExecContext(ctx, `UPDATE messages SET content = 'changed'`)
	if err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("update of a message: %v, want append-only error", err)
	}
	_, err = db.SQL().ExecContext(ctx, `INSERT INTO messages (conversation_id, role, content, created_at) VALUES ('nope', 'user', 'x', 1)`)
	if !isConstraint(err) {
		t.Fatalf("message in a missing conversation: %v, want constraint error", err)
	}
	if _, err := db.SQL().ExecContext(ctx, `DELETE FROM executions WHERE session_id = 's1'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM conversations)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d conversation rows left after deleting the execution", n)
	}
}

// TestBinaryContentRoundTrip stores bytes that are not UTF-8 and hold NULs.
func TestBinaryContentRoundTrip(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	content := []byte("a\x00b\xff\xfe\x00\x01end")
	err := db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO executions (session_id, project_name, started_at) VALUES ('s', 'p', 1)`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO context_loads (session_id, domain, topic, content, loaded_at) VALUES ('s', 'd', 't', ?, 1)`, content)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	if err := db.SQL().QueryRowContext(ctx, `SELECT content FROM context_loads`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(content) {
		t.Fatalf("content = %q, want %q", got, content)
	}
}

// TestWriteEndedContext checks that a write whose context ends while its
// transaction is open fails with the context's error, not with the sql
// package's "transaction has already been committed or rolled back".
func TestWriteEndedContext(t *testing.T) {
	t.Parallel()
	db := openPath(t, filepath.Join(t.TempDir(), "ctxls.db"), time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := db.Write(ctx, func(tx *sql.Tx) error {
		cancel()
		// Wait until the sql package has rolled the transaction back.
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := tx.ExecContext(context.Background(), `SELECT 1`)
			if errors.Is(err, sql.ErrTxDone) {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the transaction of an ended context was not rolled back in 30 s (last: %v)", err)
			}
			time.Sleep(time.Millisecond)
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write with a context that ended = %v, want context.Canceled", err)
	}
}
