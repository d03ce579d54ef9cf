package execution

import (
	"context"
	"database/sql"
	"slices"
	"sync"
	"time"
)

// listCache keeps the last List result while the database has not changed.
// Editors list executions after every step of a running chain; with
// thousands of executions the query dominates, and most calls find nothing
// new.
//
// SQLite's data_version changes on a connection whenever another
// connection, of this process or another one, commits. The cache holds one
// connection of its own that never writes, so any commit anywhere shows.
// What depends on time alone (a process whose heartbeat went stale) is
// covered by the age limit: at most one heartbeat interval, during which
// live processes' heartbeats commit anyway.
type listCache struct {
	mu      sync.Mutex
	conn    *sql.Conn
	version int64
	at      time.Time
	items   []Summary
}

// dataVersion returns the database's data_version as seen by the cache's
// own connection.
func (c *listCache) dataVersion(ctx context.Context, db *sql.DB) (int64, error) {
	if c.conn == nil {
		conn, err := db.Conn(ctx)
		if err != nil {
			return 0, err
		}
		c.conn = conn
	}
	var v int64
	if err := c.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		c.conn.Close()
		c.conn = nil
		return 0, err
	}
	return v, nil
}

// list returns the cached summaries when the database has not changed
// since they were read and they are younger than maxAge, else reads them
// with load.
func (c *listCache) list(ctx context.Context, db *sql.DB, now time.Time, maxAge time.Duration,
	load func() ([]Summary, error)) ([]Summary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, err := c.dataVersion(ctx, db)
	if err == nil && c.items != nil && v == c.version && now.Sub(c.at) < maxAge && !now.Before(c.at) {
		return slices.Clone(c.items), nil
	}
	items, lerr := load()
	if lerr != nil {
		return nil, lerr
	}
	c.items = nil
	if err == nil {
		// The version was read before the query: a commit in between makes
		// the next call read again.
		c.version, c.at, c.items = v, now, slices.Clone(items)
	}
	return items, nil
}

func (c *listCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
	c.items = nil
}
