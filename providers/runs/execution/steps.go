package execution

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ContextKey names a cached context entry: a domain and a topic, where the
// topic may carry a "#Section" suffix for a section loaded on its own.
type ContextKey struct {
	Domain string `json:"domain"`
	Topic  string `json:"topic"`
}

// String returns the "domain:topic" form used in contextLoaded.
func (k ContextKey) String() string { return k.Domain + ":" + k.Topic }

// ContextLoad is one context load that StartStep records.
type ContextLoad struct {
	ContextKey
	// Content is the text loaded.
	Content string
	// Cached says the content came from the execution's cache: only the
	// running command's contextLoaded list is updated, the cache is kept.
	Cached bool
}

// CachedContexts returns the cached content of each key the execution has
// loaded before; keys it never loaded are absent from the map. It is the
// batch form of GetCachedContext, read in one snapshot.
func (s *Store) CachedContexts(ctx context.Context, sessionID string, keys []ContextKey) (map[ContextKey]string, error) {
	out := make(map[ContextKey]string, len(keys))
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `SELECT content FROM context_loads WHERE session_id = ? AND domain = ? AND topic = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, k := range keys {
			var c []byte
			err := stmt.QueryRowContext(ctx, sessionID, k.Domain, k.Topic).Scan(&c)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			} else if err != nil {
				return err
			}
			out[k] = string(c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("get cached context: %w", err)
	}
	return out, nil
}

// StartStep starts command like StartCommand and records the context it
// loads, in one transaction: a chain step begins with one durable commit.
// Every key is added to the new attempt's contextLoaded list; the content
// of loads not marked Cached is stored in the execution's cache.
func (s *Store) StartStep(ctx context.Context, sessionID, command string, inputs map[string]any, loads []ContextLoad) (*CommandExecution, error) {
	if err := requireName("command name", command); err != nil {
		return nil, err
	}
	for _, l := range loads {
		if err := requireKey("domain", l.Domain, "topic", l.Topic); err != nil {
			return nil, err
		}
	}
	return s.writeCommand(ctx, sessionID, "start", command, "inputs", inputs, nil,
		func(tx *sql.Tx, in string) (*CommandExecution, error) {
			ce, err := s.startCommand(ctx, tx, sessionID, command, in)
			if err != nil {
				return nil, err
			}
			items, err := s.recordLoads(ctx, tx, sessionID, loads)
			ce.ContextLoaded = append(ce.ContextLoaded, items...)
			return ce, err
		})
}

// recordLoads stores the content of loads not marked Cached and adds every
// key to the running command's contextLoaded list, which it returns.
func (s *Store) recordLoads(ctx context.Context, tx *sql.Tx, sessionID string, loads []ContextLoad) ([]string, error) {
	now := ms(s.now())
	var items []string
	for _, l := range loads {
		if !l.Cached {
			_, err := tx.ExecContext(ctx, contextLoads.upsert, sessionID, l.Domain, l.Topic, []byte(l.Content), now)
			if err != nil {
				return nil, err
			}
		}
		key := l.String()
		// The database lists a key once (addItem ignores a repeat), and the
		// returned command must read as Get will read it back.
		if slices.Contains(items, key) {
			continue
		}
		if err := addItem(ctx, tx, sessionID, "context", key); err != nil {
			return nil, err
		}
		items = append(items, key)
	}
	return items, nil
}

// AllSharedData returns every shared value of the execution.
func (s *Store) AllSharedData(ctx context.Context, sessionID string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		return scanPairs(ctx, tx, `SELECT key, value FROM shared_data WHERE session_id = ?`, sessionID,
			func(k string, v []byte) { out[k] = json.RawMessage(v) })
	})
	if err != nil {
		return nil, fmt.Errorf("get shared data: %w", err)
	}
	return out, nil
}

// CompleteStep records the end of the running attempt of command like
// CompleteCommand and, in the same transaction, merges shared into the
// execution's shared data: a step's result and what it passes on are
// committed together or not at all. Status may also be interrupted, for a
// step that was cancelled.
func (s *Store) CompleteStep(ctx context.Context, sessionID, command string, status Status, outputs map[string]any, shared map[string]json.RawMessage) (*CommandExecution, error) {
	if err := requireName("command name", command); err != nil {
		return nil, err
	}
	switch status {
	case StatusSuccess, StatusPartial, StatusFailed, StatusInterrupted:
	default:
		return nil, fmt.Errorf("%w: completion status %q: want success, partial, failed or interrupted", ErrInvalidArgument, status)
	}
	out, err := marshalObject("outputs", outputs)
	if err != nil {
		return nil, err
	}
	for k, v := range shared {
		if err := requireName("shared data key", k); err != nil {
			return nil, err
		}
		if !json.Valid(v) {
			return nil, fmt.Errorf("%w: shared data %q is not valid JSON", ErrInvalidArgument, k)
		}
	}
	return inTx(ctx, s.db.Write, fmt.Sprintf("complete command %q", command), func(tx *sql.Tx) (*CommandExecution, error) {
		ce, err := s.completeCommand(ctx, tx, sessionID, command, status, out)
		if err != nil {
			return nil, err
		}
		return ce, storeShared(ctx, tx, sessionID, shared, ms(s.now()))
	})
}

// Summary returns the list entry of one execution.
func (s *Store) Summary(ctx context.Context, sessionID string) (*Summary, error) {
	out, err := inTx(ctx, s.db.Read, "execution summary", func(tx *sql.Tx) ([]Summary, error) {
		return s.summaries(ctx, tx, s.now(), `WHERE session_id = ?`, sessionID)
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("execution %q: %w", sessionID, ErrNotFound)
	}
	return &out[0], nil
}

// MemoryLoad is one memory entry of an execution: the content of
// layer:key.
type MemoryLoad struct {
	Layer   string `json:"layer"`
	Key     string `json:"key"`
	Content string `json:"content"`
}

// MemoryLayer returns the entries of one memory layer the execution has
// loaded, in the order they were first recorded; none when it loaded
// none.
func (s *Store) MemoryLayer(ctx context.Context, sessionID, layer string) ([]MemoryLoad, error) {
	return inTx(ctx, s.db.Read, "get memory layer "+layer, func(tx *sql.Tx) ([]MemoryLoad, error) {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return nil, err
		}
		rows, err := tx.QueryContext(ctx, `SELECT key, content FROM memory_loads WHERE session_id = ? AND layer = ? ORDER BY rowid`, sessionID, layer)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []MemoryLoad
		for rows.Next() {
			m := MemoryLoad{Layer: layer}
			var c []byte
			if err := rows.Scan(&m.Key, &c); err != nil {
				return nil, err
			}
			m.Content = string(c)
			out = append(out, m)
		}
		return out, rows.Err()
	})
}

// RecordMemoryLoads caches several memory entries in one transaction, in
// order. Unlike RecordMemoryLoad it adds them to no command's lists: it is
// what an execution loads for all its commands.
func (s *Store) RecordMemoryLoads(ctx context.Context, sessionID string, loads []MemoryLoad) error {
	for _, l := range loads {
		if err := requireKey("memory layer", l.Layer, "memory key", l.Key); err != nil {
			return err
		}
	}
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		now := ms(s.now())
		for _, l := range loads {
			_, err := tx.ExecContext(ctx, memoryLoads.upsert, sessionID, l.Layer, l.Key, []byte(l.Content), now)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record memory loads: %w", err)
	}
	return nil
}
