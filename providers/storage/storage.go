// Package storage opens the ctxls SQLite database and keeps its schema current.
//
// The database lives in <workspace>/.ctxls/ctxls.db and is shared by every
// ctxls process working on that workspace (one per editor window). It runs in
// WAL mode so readers never block the writer; every transaction begins
// IMMEDIATE so that writers queue on the busy timeout instead of failing with
// a lock upgrade deadlock; and commits are synchronous (FULL), so that a
// committed record survives a crash of the process, the OS or the machine.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DirName is the name of the directory, at the workspace root, that holds the
// database.
const DirName = ".ctxls"

// FileName is the name of the database file inside DirName.
const FileName = "ctxls.db"

// DefaultBusyTimeout is how long a statement waits for a lock held by another
// connection or process before it fails with SQLITE_BUSY.
const DefaultBusyTimeout = 5 * time.Second

// writeRetries is how many times Write runs a transaction again after it
// failed with SQLITE_BUSY, on top of the wait that busy_timeout already gives.
const writeRetries = 8

// DB is an open ctxls database.
type DB struct {
	sql  *sql.DB
	path string
}

// options are the knobs of open; Open uses the defaults, tests and benchmarks
// change them.
type options struct {
	busyTimeout time.Duration
	// synchronous is FULL: in WAL mode NORMAL does not sync the WAL at
	// commit, so the last transactions can be lost on power failure or an OS
	// crash. A step's result is meant to be durable once CompleteCommand
	// returns, which needs the WAL synced at every commit.
	synchronous string
}

func defaultOptions() options {
	return options{busyTimeout: DefaultBusyTimeout, synchronous: "FULL"}
}

// WorkspacePath returns the path of the database of the workspace rooted at
// root.
func WorkspacePath(root string) string {
	return filepath.Join(root, DirName, FileName)
}

// OpenWorkspace opens the database of the workspace rooted at root, creating
// the .ctxls directory with a .gitignore that keeps it out of version control.
func OpenWorkspace(ctx context.Context, root string) (*DB, error) {
	dir := filepath.Join(root, DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		// Best effort: the database works without it.
		_ = os.WriteFile(ignore, []byte("*\n"), 0o644)
	}
	return Open(ctx, filepath.Join(dir, FileName))
}

// Open opens (creating it if needed) the database at path, creates its
// directory, and applies pending schema migrations. A database written by a
// newer ctxls, with migrations this binary does not know, is refused with an
// error wrapping ErrSchemaTooNew.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, defaultOptions())
}

func open(ctx context.Context, path string, o options) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	sqlDB, err := sql.Open("sqlite", dsn(abs, o))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// Each connection holds its own page cache; a handful covers concurrent
	// readers, and writers queue on the database lock anyway.
	sqlDB.SetMaxOpenConns(8)
	sqlDB.SetMaxIdleConns(8)
	db := &DB{sql: sqlDB, path: abs}
	if err := db.migrate(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}

// dsn builds the connection string. The pragmas go through _pragma so that
// every connection of the pool gets them, not only the first; busy_timeout
// comes first so that switching to WAL waits for other processes too.
func dsn(abs string, o options) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+o.synchronous+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive letter: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// SQL returns the underlying connection pool, for reads. Writes should go
// through Write so that they retry on SQLITE_BUSY.
func (db *DB) SQL() *sql.DB { return db.sql }

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// Write runs fn in a write transaction (BEGIN IMMEDIATE) and commits it when
// fn returns nil. When the transaction fails because another connection or
// process holds the database lock beyond the busy timeout, Write rolls back
// and runs fn again in a fresh transaction, a few times, with a growing
// randomised pause; fn must therefore have no effects outside the
// transaction. Any other error from fn rolls the transaction back and is
// returned as is.
func (db *DB) Write(ctx context.Context, fn func(*sql.Tx) error) error {
	pause := 5 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := db.run(ctx, nil, fn)
		if err == nil || !IsBusy(err) || attempt == writeRetries {
			return err
		}
		t := time.NewTimer(pause/2 + rand.N(pause))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (after %v)", ctx.Err(), err)
		case <-t.C:
		}
		pause = min(2*pause, time.Second)
	}
}

// Read runs fn in a read-only transaction, which sees one consistent snapshot
// of the database and does not block writers.
func (db *DB) Read(ctx context.Context, fn func(*sql.Tx) error) error {
	return db.run(ctx, &sql.TxOptions{ReadOnly: true}, fn)
}

func (db *DB) run(ctx context.Context, opts *sql.TxOptions, fn func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED
// (including their extended codes): the database was locked by another
// connection for longer than the busy timeout.
func IsBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// IsConstraint reports whether err is a constraint violation (CHECK, UNIQUE,
// NOT NULL, FOREIGN KEY).
func IsConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
