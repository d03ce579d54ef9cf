package storage

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

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
	if v, err := db.SchemaVersion(ctx); err != nil || v != len(ms) {
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
