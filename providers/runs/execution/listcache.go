package execution

import (
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// listCache keeps the list of executions between calls. Editors list
// executions after every step of a running chain; with thousands of
// executions, reading and encoding them all would dominate every call,
// though at most a few changed.
//
// What a list records of each execution changes only with a commit to the
// execution or its commands. The triggers of list_version stamp each such
// change, whichever process makes it, with a new version on the
// execution's row, so the cache reads again only the executions stamped
// since its version, and drops those deleted since, which list_deletions
// names; when that log no longer goes back far enough, it reads them all.
// Heartbeats stamp
// nothing, so a process's own heartbeat, every two seconds, does not throw
// the list away. What changes without a commit to the executions (running
// work whose process's heartbeat goes stale) and the current execution come
// from a few rows read on every call, in the same transaction as the
// versions.
type listCache struct {
	// mu is held across the read transaction, so that each call sees a
	// snapshot at least as new as the cached one.
	mu sync.Mutex
	// valid is set once recorded holds the executions at version and
	// deletions, newest first, without their running work or current mark.
	valid     bool
	version   int64
	deletions int64
	recorded  []Summary
	// last is recorded with lastLive applied, as the last call returned it.
	lastLive liveState
	last     *listing
	// encoded is the listing encoded last.
	encoded *listing
	// loads and updates count the reads of all the executions and of the
	// changed ones, for tests.
	loads, updates int
}

// liveState is what a list shows that the cache does not keep.
type liveState struct {
	current string
	work    runningWork
}

func (l liveState) equal(o liveState) bool {
	return l.current == o.current && maps.Equal(l.work, o.work)
}

// apply marks the current execution and sets the state of those with
// running work.
func (l liveState) apply(sums []Summary) {
	for i := range sums {
		sums[i].IsCurrent = sums[i].SessionID == l.current
	}
	l.work.apply(sums)
}

// listing is one list of executions. It is shared by the calls that find
// the same executions, and read-only once returned.
type listing struct {
	items []Summary
	// json is the ctxls/execution/list result, once encoded; spans[i] is
	// where items[i] is in it.
	json  []byte
	spans []span
}

// span is a range of bytes.
type span struct{ start, end int32 }

// get returns the list of executions as tx sees them, with the live state
// that readLive returns, and its encoding when encode is set. The caller
// holds c.mu.
func (c *listCache) get(ctx context.Context, tx *sql.Tx, readLive func(*sql.Tx) (liveState, error), encode bool) (*listing, error) {
	var version, deletions int64
	if err := tx.QueryRowContext(ctx, `SELECT version, deletions FROM list_version`).Scan(&version, &deletions); err != nil {
		return nil, err
	}
	live, err := readLive(tx)
	if err != nil {
		return nil, err
	}
	var deleted []string
	if c.valid && c.deletions < deletions {
		if deleted, err = deletedSince(ctx, tx, c.version); err != nil {
			return nil, err
		}
	}
	switch {
	case c.valid && c.version == version && c.deletions == deletions:
		if live.equal(c.lastLive) {
			c.encode(encode)
			return c.last, nil
		}
	case c.valid && c.version < version && int64(len(deleted)) == deletions-c.deletions:
		// Unordered, so that the index on list_version finds the few.
		changed, err := recordedSummaries(ctx, tx, `WHERE list_version > ?`, c.version)
		if err != nil {
			return nil, err
		}
		c.updates++
		c.recorded = merge(remove(c.recorded, deleted), changed)
		c.version, c.deletions = version, deletions
	default:
		// The first list, or deletions that list_deletions no longer holds.
		// Dropped first: a failed read must not leave the old summaries
		// standing for the new version.
		c.valid, c.recorded, c.last = false, nil, nil
		recorded, err := recordedSummaries(ctx, tx, listOrder)
		if err != nil {
			return nil, err
		}
		c.loads++
		c.valid, c.version, c.deletions, c.recorded = true, version, deletions, recorded
	}
	items := slices.Clone(c.recorded)
	live.apply(items)
	c.lastLive, c.last = live, &listing{items: items}
	c.encode(encode)
	return c.last, nil
}

// encode encodes the last listing if it is wanted and not done yet, with
// the encodings of its items that did not change since the listing
// encoded before.
func (c *listCache) encode(wanted bool) {
	if !wanted || c.last.json != nil {
		return
	}
	c.last.json, c.last.spans = appendListJSON(nil, c.last.items, c.encoded)
	c.encoded = c.last
}

// deletedSince returns the ids of the executions deleted after version.
func deletedSince(ctx context.Context, tx *sql.Tx, version int64) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT session_id FROM list_deletions WHERE version > ?`, version)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// remove returns sums without the summaries of the executions ids.
func remove(sums []Summary, ids []string) []Summary {
	if len(ids) == 0 {
		return sums
	}
	gone := make(map[string]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	return slices.DeleteFunc(sums, func(sm Summary) bool { return gone[sm.SessionID] })
}

// newer reports whether a comes before b in a list: newest first, then by
// id.
func newer(a, b Summary) int {
	if c := b.Created.Compare(a.Created); c != 0 {
		return c
	}
	return strings.Compare(a.SessionID, b.SessionID)
}

// merge returns sums, in list order, with the summaries of changed in
// place of the ones with the same id and the others added.
func merge(sums, changed []Summary) []Summary {
	out := sums
	n := len(out)
	for _, sm := range changed {
		// A summary keeps its place: what orders the list never changes.
		// The added ones, at the end until sorted, are not searched.
		if i, found := slices.BinarySearchFunc(out[:n], sm, newer); found {
			out[i] = sm
			continue
		}
		out = append(out, sm)
	}
	if len(out) > n {
		slices.SortFunc(out, newer)
	}
	return out
}

func (c *listCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid, c.recorded, c.lastLive, c.last, c.encoded = false, nil, liveState{}, nil, nil
}

// appendListJSON appends the ctxls/execution/list result of items as
// encoding/json would write it, several times faster: with 10,000
// executions the encoding would otherwise cost as much as the query. The
// current execution is the one marked so among items. The encodings of
// the items that prev, when not nil, holds unchanged are copied from it.
// It returns where each item is in b.
func appendListJSON(b []byte, items []Summary, prev *listing) ([]byte, []span) {
	size := 64 + len(items)*300
	if prev != nil {
		size = len(prev.json) + len(items)*2
	}
	b = slices.Grow(b, size)
	b = append(b, `{"items":[`...)
	spans := make([]span, len(items))
	current := ""
	j := 0 // the first item of prev not before items[i] in the list
	for i, it := range items {
		if it.IsCurrent {
			current = it.SessionID
		}
		if i > 0 {
			b = append(b, ',')
		}
		spans[i].start = int32(len(b))
		if prev != nil {
			// Mostly the same executions in the same order: the id settles it.
			for j < len(prev.items) && prev.items[j].SessionID != it.SessionID && newer(prev.items[j], it) < 0 {
				j++
			}
		}
		if prev != nil && j < len(prev.items) && sameSummary(prev.items[j], it) {
			b = append(b, prev.json[prev.spans[j].start:prev.spans[j].end]...)
		} else {
			b = appendSummaryJSON(b, it)
		}
		spans[i].end = int32(len(b))
	}
	b = append(b, `],"current":`...)
	b = appendJSONString(b, current)
	b = append(b, `,"warnings":[]}`...)
	return b, spans
}

// sameSummary reports whether a and b encode the same.
func sameSummary(a, b Summary) bool {
	return a.SessionID == b.SessionID && a.ProjectName == b.ProjectName && a.ProjectType == b.ProjectType &&
		a.State == b.State && a.Created.Equal(b.Created) && a.IsCurrent == b.IsCurrent && a.Summary == b.Summary
}

// appendSummaryJSON appends one item of the list as encoding/json would
// write it.
func appendSummaryJSON(b []byte, it Summary) []byte {
	b = append(b, `{"sessionId":`...)
	b = appendJSONString(b, it.SessionID)
	b = append(b, `,"projectName":`...)
	b = appendJSONString(b, it.ProjectName)
	b = append(b, `,"projectType":`...)
	b = appendJSONString(b, it.ProjectType)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, string(it.State))
	b = append(b, `,"created":"`...)
	b = it.Created.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","isCurrent":`...)
	b = strconv.AppendBool(b, it.IsCurrent)
	b = append(b, `,"summary":{"currentCommand":`...)
	b = appendJSONString(b, it.Summary.CurrentCommand)
	b = append(b, `,"commandsCompleted":`...)
	b = strconv.AppendInt(b, int64(it.Summary.CommandsCompleted), 10)
	b = append(b, `,"commandsFailed":`...)
	b = strconv.AppendInt(b, int64(it.Summary.CommandsFailed), 10)
	b = append(b, `,"commandsTotal":`...)
	b = strconv.AppendInt(b, int64(it.Summary.CommandsTotal), 10)
	b = append(b, `,"currentPrompt":`...)
	b = appendJSONString(b, it.Summary.CurrentPrompt)
	b = append(b, `,"tasksCompleted":`...)
	b = strconv.AppendInt(b, int64(it.Summary.TasksCompleted), 10)
	return append(b, `}}`...)
}

// appendJSONString appends s as a JSON string; anything but plain
// printable ASCII goes through encoding/json for its escaping rules.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
