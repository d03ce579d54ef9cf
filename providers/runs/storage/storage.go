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
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctxls/ctxls/providers/atomicfile"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DirName is the name of the directory, at the workspace root, that holds the
// database.
const DirName = ".ctxls"

// FileName is the name of the database file inside DirName.
const FileName = "ctxls.db"

// defaultBusyTimeout is how long a statement waits for a lock held by another
// connection or process before it fails with SQLITE_BUSY.
const defaultBusyTimeout = 5 * time.Second

// writeRetries is how many times Write runs a transaction again after it
// failed with SQLITE_BUSY, on top of the wait that busy_timeout already gives.
const writeRetries = 8

// DB is an open ctxls database.
type DB struct {
	sql  *sql.DB
	path string

	// The writers of the database, by their queries, closed with it: each
	// holds a connection that the pool would not close on its own.
	wmu     sync.Mutex
	writers map[string]*Writer
	closed  bool
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
	return options{busyTimeout: defaultBusyTimeout, synchronous: "FULL"}
}

// WorkspacePath returns the path of the database of the workspace rooted at
// root.
func WorkspacePath(root string) string {
	return filepath.Join(root, DirName, FileName)
}

// errLink is wrapped by the errors of OpenWorkspace when the state
// directory, or a file in it, is a symbolic link or not the kind of file it
// should be: a repository that ships .ctxls/ctxls.db as a link to a file
// elsewhere would otherwise have ctxls write its database, or its
// .gitignore, outside the workspace.
var errLink = errors.New("ctxls keeps its state only in a real directory and regular files inside the workspace")

// refuse is the error for a state path whose file info fi is not what
// ctxls would have created there.
func refuse(path string, fi os.FileInfo) error {
	kind := "not a regular file"
	switch m := fi.Mode(); {
	case m&os.ModeSymlink != 0:
		kind = "a symbolic link"
	case m.IsRegular():
		kind = "a file, not a directory"
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	}
	return fmt.Errorf("refusing %s: it is %s; %w", path, kind, errLink)
}

// OpenWorkspace opens the database of the workspace rooted at root, creating
// the .ctxls directory with a .gitignore that keeps it out of version control.
// Neither the directory nor its files are followed when they are symbolic
// links: such a link is refused with an error that names it.
func OpenWorkspace(ctx context.Context, root string) (*DB, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", root, err)
	}
	dir := filepath.Join(root, DirName)
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	if err := ensureFile(filepath.Join(dir, ".gitignore"), "*\n"); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	if err := checkStateFiles(path); err != nil {
		return nil, err
	}
	if err := ensureFile(path, ""); err != nil {
		return nil, err
	}
	return Open(ctx, path)
}

// OpenExistingWorkspace opens the database of the workspace rooted at root
// when there is one, with the same checks as OpenWorkspace, and creates
// nothing: without a database it returns an error wrapping os.ErrNotExist.
func OpenExistingWorkspace(ctx context.Context, root string) (*DB, error) {
	dir := filepath.Join(root, DirName)
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("open the database of %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, refuse(dir, fi)
	}
	path := filepath.Join(dir, FileName)
	if err := checkStateFiles(path); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); err != nil {
		return nil, fmt.Errorf("open the database of %s: %w", root, err)
	}
	return Open(ctx, path)
}

// ensureDir creates dir unless it exists, and refuses it when it is not a
// real directory. Mkdir does not follow a link in the last element, so a
// link created between the check and Mkdir makes it fail rather than
// create the directory elsewhere.
func ensureDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create %s: %w", dir, err)
		}
		// Another process may have created it, or something else, meanwhile.
		return ensureDir(dir)
	case err != nil:
		return fmt.Errorf("open %s: %w", dir, err)
	case !fi.IsDir():
		return refuse(dir, fi)
	}
	return nil
}

// ensureFile creates the file at path with content unless it exists, and
// refuses it when it is not a regular file. The creation fails on any
// existing name, a dangling link included, so nothing is ever written
// through a link, and the name appears only with its whole content.
func ensureFile(path, content string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		err := atomicfile.Create(path, []byte(content), 0o644)
		if errors.Is(err, os.ErrExist) {
			return ensureFile(path, content)
		}
		if err != nil {
			return err
		}
		return nil
	case err != nil:
		return fmt.Errorf("open %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return refuse(path, fi)
	}
	return nil
}

// checkStateFiles refuses the database at path when it, or one of the
// files SQLite keeps beside it, exists and is not a regular file. SQLite
// resolves a link named as the database and then writes the database, its
// journal and its WAL next to the link's target.
func checkStateFiles(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return refuse(p, fi)
		}
	}
	return nil
}

// Open opens (creating it if needed) the database at path, creates its
// directory, and applies pending schema migrations. A database written by a
// newer ctxls, with migrations this binary does not know, is refused.
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
// through Write, or a Writer, so that they retry on SQLITE_BUSY.
func (db *DB) SQL() *sql.DB { return db.sql }

// Close closes the database and its writers.
func (db *DB) Close() error {
	db.wmu.Lock()
	db.closed = true
	ws := db.writers
	db.writers = nil
	db.wmu.Unlock()
	var errs []error
	for _, w := range ws {
		errs = append(errs, w.close())
	}
	return errors.Join(append(errs, db.sql.Close())...)
}

// Write runs fn in a write transaction (BEGIN IMMEDIATE) and commits it when
// fn returns nil. When the transaction fails because another connection or
// process holds the database lock beyond the busy timeout, Write rolls back
// and runs fn again in a fresh transaction, a few times, with a growing
// randomised pause; fn must therefore have no effects outside the
// transaction. Any other error from fn rolls the transaction back and is
// returned as is.
func (db *DB) Write(ctx context.Context, fn func(*sql.Tx) error) error {
	return retryBusy(ctx, func() error { return db.run(ctx, nil, fn) })
}

// retryBusy runs attempt until it succeeds, fails with an error other than
// SQLITE_BUSY, or has been retried writeRetries times, pausing a growing,
// randomised time between attempts.
func retryBusy(ctx context.Context, attempt func() error) error {
	pause := 5 * time.Millisecond
	for n := 0; ; n++ {
		err := attempt()
		if err == nil || !isBusy(err) || n == writeRetries {
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
		return txErr(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", txErr(ctx, err))
	}
	return nil
}

// txErr is err, naming the end of ctx when ctx has ended: the sql package
// rolls back the transaction of a context that ended, and what is called
// on it next says only that the transaction is done (or the driver that
// it was interrupted).
func txErr(ctx context.Context, err error) error {
	c := ctx.Err()
	switch {
	case c == nil || errors.Is(err, c):
		return err
	case errors.Is(err, sql.ErrTxDone):
		return c
	default:
		return fmt.Errorf("%w (%w)", err, c)
	}
}

// errWriterClosed is returned by Writer.Write once its database is closed.
var errWriterClosed = errors.New("database writer is closed")

// Writer runs write transactions on a connection of its own, with the
// statements it was made for prepared once on that connection. It serves a
// writer that commits often: compiling its statements for every transaction,
// and database/sql's per-transaction work, would cost more than running them.
// Its transactions behave as those of DB.Write: they begin IMMEDIATE, get
// the pragmas of every connection, and are retried on SQLITE_BUSY. A Writer
// is safe for concurrent use; its transactions run one at a time.
//
// DB.Writer returns the same Writer for the same queries, so that every user
// of those queries in the process shares one connection, however many
// there are.
type Writer struct {
	db      *DB
	queries []string

	mu     sync.Mutex
	conn   *sql.Conn
	begin  *sql.Stmt
	commit *sql.Stmt
	undo   *sql.Stmt
	stmts  []*sql.Stmt
	closed bool
}

// Writer returns the writer of db whose transactions run queries as
// prepared statements (WriteTx.Stmt), creating it on first use. It takes a
// connection from the pool at its first Write and keeps it until db is
// closed.
func (db *DB) Writer(queries ...string) *Writer {
	key := strings.Join(queries, "\x00")
	db.wmu.Lock()
	defer db.wmu.Unlock()
	if w, ok := db.writers[key]; ok {
		return w
	}
	w := &Writer{db: db, queries: queries, closed: db.closed}
	if db.closed {
		return w
	}
	if db.writers == nil {
		db.writers = map[string]*Writer{}
	}
	db.writers[key] = w
	return w
}

// WriteTx is a transaction of a Writer. It is valid only during the
// function given to Writer.Write.
type WriteTx struct {
	w *Writer
}

// Stmt returns the prepared statement of the i-th query given to DB.Writer.
func (t *WriteTx) Stmt(i int) *sql.Stmt { return t.w.stmts[i] }

// QueryRowContext runs a query that is not one of the writer's prepared
// ones.
func (t *WriteTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.w.conn.QueryRowContext(ctx, query, args...)
}

// Write runs fn in a write transaction (BEGIN IMMEDIATE) on w's connection
// and commits it when fn returns nil, retrying on SQLITE_BUSY as DB.Write
// does; fn must therefore have no effects outside the transaction. Any other
// error from fn rolls the transaction back and is returned as is.
func (w *Writer) Write(ctx context.Context, fn func(*WriteTx) error) error {
	return retryBusy(ctx, func() error { return w.run(ctx, fn) })
}

func (w *Writer) run(ctx context.Context, fn func(*WriteTx) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errWriterClosed
	}
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			return err
		}
	}
	if _, err := w.begin.ExecContext(ctx); err != nil {
		// A BEGIN that failed with SQLITE_BUSY did not start a
		// transaction. After any other failure, such as the end of ctx
		// during the wait for the lock, the connection may be left inside
		// one: it is discarded, which rolls it back.
		if !isBusy(err) {
			w.drop()
		}
		return fmt.Errorf("begin transaction: %w", err)
	}
	finished := false
	defer func() {
		if !finished {
			// fn panicked and left the transaction open.
			w.drop()
		}
	}()
	err := fn(&WriteTx{w: w})
	finished = true
	if err == nil {
		// COMMIT waits for nothing (the transaction holds the write lock),
		// and run with ctx it could be reported as failed after it took
		// effect, once ctx ended.
		if _, err = w.commit.ExecContext(context.WithoutCancel(ctx)); err == nil {
			return nil
		}
		err = fmt.Errorf("commit: %w", err)
	}
	if _, rerr := w.undo.ExecContext(context.WithoutCancel(ctx)); rerr != nil {
		// The transaction may be over already (SQLite ends it on some
		// errors) or the connection broken: either way, a fresh
		// connection is certain not to be inside a transaction.
		w.drop()
	}
	return err
}

// connect takes a connection from the pool and prepares w's statements on
// it.
func (w *Writer) connect(ctx context.Context) error {
	conn, err := w.db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("writer connection: %w", err)
	}
	w.conn = conn
	queries := append([]string{"BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"}, w.queries...)
	stmts := make([]*sql.Stmt, 0, len(queries))
	for _, q := range queries {
		st, err := conn.PrepareContext(ctx, q)
		if err != nil {
			w.stmts = stmts
			w.drop()
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		stmts = append(stmts, st)
	}
	w.begin, w.commit, w.undo, w.stmts = stmts[0], stmts[1], stmts[2], stmts[3:]
	return nil
}

// closeStmts closes w's statements. database/sql leaves those of a
// connection taken out of the pool to their user, and SQLite closes no
// connection that has statements left.
func (w *Writer) closeStmts() {
	for _, st := range append([]*sql.Stmt{w.begin, w.commit, w.undo}, w.stmts...) {
		if st != nil {
			st.Close()
		}
	}
	w.begin, w.commit, w.undo, w.stmts = nil, nil, nil, nil
}

// drop discards w's connection, which may be broken or inside a
// transaction: the pool closes it, which rolls the transaction back, rather
// than hand it out again. The next Write takes a new one.
func (w *Writer) drop() {
	if w.conn == nil {
		return
	}
	w.closeStmts()
	w.conn.Raw(func(any) error { return driver.ErrBadConn })
	w.conn.Close()
	w.conn = nil
}

// close closes w, once its running transaction is over, and gives its
// connection back to the pool.
func (w *Writer) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.conn == nil {
		return nil
	}
	w.closeStmts()
	err := w.conn.Close()
	w.conn = nil
	if err != nil {
		return fmt.Errorf("close database writer: %w", err)
	}
	return nil
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED
// (including their extended codes): the database was locked by another
// connection for longer than the busy timeout.
func isBusy(err error) bool {
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

// isConstraint reports whether err is a constraint violation (CHECK, UNIQUE,
// NOT NULL, FOREIGN KEY).
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
