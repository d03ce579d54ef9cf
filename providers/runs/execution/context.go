package execution

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CreateOption changes what Create does.
type CreateOption func(*createConfig)

type createConfig struct{ keepCurrent bool }

// KeepCurrent makes Create leave the current execution as it is; by default
// a new execution becomes the current one.
func KeepCurrent() CreateOption {
	return func(c *createConfig) { c.keepCurrent = true }
}

// Create starts a new execution for a project, with its conversation, and
// makes it the current execution unless KeepCurrent is given.
func (s *Store) Create(ctx context.Context, projectName, projectType string, opts ...CreateOption) (*ExecutionState, error) {
	var cfg createConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := requireName("project name", projectName); err != nil {
		return nil, err
	}
	if projectType == "" {
		projectType = s.detectProjectType(ctx)
	}
	return inTx(ctx, s.db.Write, "create execution", func(tx *sql.Tx) (*ExecutionState, error) {
		return s.create(ctx, tx, projectName, projectType, !cfg.keepCurrent)
	})
}

func (s *Store) create(ctx context.Context, tx *sql.Tx, projectName, projectType string, makeCurrent bool) (*ExecutionState, error) {
	id := newID()
	now := s.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO executions (session_id, project_name, project_type, started_at)
		VALUES (?, ?, ?, ?)`, id, projectName, projectType, ms(now)); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (conversation_id, session_id, created_at)
		VALUES (?1, ?1, ?2)`, id, ms(now)); err != nil {
		return nil, err
	}
	if makeCurrent {
		if err := setCurrent(ctx, tx, id); err != nil {
			return nil, err
		}
	}
	return &ExecutionState{
		SessionID:      id,
		StartedAt:      fromMS(ms(now)),
		ProjectName:    projectName,
		ProjectType:    projectType,
		LoadedContext:  map[string]string{},
		LoadedMemory:   map[string]string{},
		CommandHistory: []CommandExecution{},
		SharedData:     map[string]json.RawMessage{},
		State:          StateNew,
		IsCurrent:      makeCurrent,
		ConversationID: id,
	}, nil
}

// GetOrCreate returns the execution a command of projectName should continue:
// the current execution if it belongs to the project, else the project's most
// recent one, skipping executions whose chain plan is done (every planned
// command succeeded, as for ResumePoint); when there is none it creates one,
// which becomes current.
func (s *Store) GetOrCreate(ctx context.Context, projectName string) (*ExecutionState, error) {
	if err := requireName("project name", projectName); err != nil {
		return nil, err
	}
	// The project type is detected, outside the transaction, only when
	// there is no execution to continue; the second pass creates one
	// unless another process did meanwhile.
	st, err := s.getOrCreate(ctx, projectName, "", false)
	if err == nil && st == nil {
		st, err = s.getOrCreate(ctx, projectName, s.detectProjectType(ctx), true)
	}
	if err != nil {
		return nil, fmt.Errorf("get or create execution of %q: %w", projectName, err)
	}
	return st, nil
}

// getOrCreate is GetOrCreate in one transaction; without create it
// returns nil when there is no execution to continue.
func (s *Store) getOrCreate(ctx context.Context, projectName, projectType string, create bool) (*ExecutionState, error) {
	var st *ExecutionState
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		var id string
		err := tx.QueryRowContext(ctx, `SELECT session_id FROM executions e
			WHERE project_name = :project AND (plan IS NULL OR plan_done < json_array_length(plan) OR `+planHasPartial+`)
			ORDER BY session_id = coalesce((SELECT value FROM settings WHERE key = 'current_execution'), '') DESC,
				started_at DESC
			LIMIT 1`, sql.Named("project", projectName)).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows) && create:
			st, err = s.create(ctx, tx, projectName, projectType, true)
		case errors.Is(err, sql.ErrNoRows):
			err = nil
		case err == nil:
			st, err = s.load(ctx, tx, id)
		}
		return err
	})
	return st, err
}

// detectProjectType names the project type of a new execution through
// Options.DetectProjectType.
func (s *Store) detectProjectType(ctx context.Context) string {
	if s.opts.DetectProjectType == nil {
		return ""
	}
	return s.opts.DetectProjectType(ctx)
}

// CommandOption adds to what StartCommand and CompleteCommand record of an
// attempt.
type CommandOption func(*commandItems)

// commandItems are the memoryUpdated and skillsInvoked entries given to
// StartCommand or CompleteCommand.
type commandItems struct{ memory, skills []string }

// WithMemoryUpdated adds memory entries, each "layer:key", to the
// memoryUpdated list of the attempt.
func WithMemoryUpdated(entries ...string) CommandOption {
	return func(c *commandItems) { c.memory = append(c.memory, entries...) }
}

// WithSkillsInvoked adds skills to the skillsInvoked list of the attempt.
func WithSkillsInvoked(skills ...string) CommandOption {
	return func(c *commandItems) { c.skills = append(c.skills, skills...) }
}

// itemsOf applies opts and checks the entries they give.
func itemsOf(opts []CommandOption) (commandItems, error) {
	var c commandItems
	for _, o := range opts {
		o(&c)
	}
	for _, m := range c.memory {
		layer, key, ok := strings.Cut(m, ":")
		if !ok || strings.TrimSpace(layer) == "" || strings.TrimSpace(key) == "" {
			return c, fmt.Errorf("%w: memoryUpdated entry %q: want layer:key", ErrInvalidArgument, m)
		}
	}
	for _, sk := range c.skills {
		if err := requireName("skillsInvoked entry", sk); err != nil {
			return c, err
		}
	}
	return c, nil
}

// recordItems adds items to the lists of attempt ce.Attempts of step
// ce.Step, and to ce the entries it did not hold yet.
func recordItems(ctx context.Context, tx *sql.Tx, sessionID string, ce *CommandExecution, items commandItems) error {
	if len(items.memory) == 0 && len(items.skills) == 0 {
		return nil
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM commands WHERE session_id = ? AND step = ?`, sessionID, ce.Step).Scan(&id); err != nil {
		return err
	}
	for _, l := range []struct {
		kind  string
		items []string
		into  *[]string
	}{
		{"memory", items.memory, &ce.MemoryUpdated},
		{"skill", items.skills, &ce.SkillsInvoked},
	} {
		for _, it := range l.items {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO command_items (command_id, attempt, kind, item) VALUES (?, ?, ?, ?)`,
				id, ce.Attempts, l.kind, it)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n > 0 {
				*l.into = append(*l.into, it)
			}
		}
	}
	return nil
}

// StartCommand records the start of command in the execution and returns
// the new attempt. When the command's most recent step (within the current
// chain plan, if any) did not succeed, the start is a new attempt of that
// step; otherwise it is a new step. Starting a command that a live process
// is running fails with ErrConflict; one this process left running is
// recorded as interrupted and attempted again. Options add memory updated
// and skills invoked to the new attempt.
func (s *Store) StartCommand(ctx context.Context, sessionID, command string, inputs map[string]any, opts ...CommandOption) (*CommandExecution, error) {
	if err := requireName("command name", command); err != nil {
		return nil, err
	}
	return s.writeCommand(ctx, sessionID, "start", command, "inputs", inputs, opts,
		func(tx *sql.Tx, in string) (*CommandExecution, error) {
			return s.startCommand(ctx, tx, sessionID, command, in)
		})
}

// writeCommand encodes values, which are the command's field what, and in
// one write transaction runs step with them and records the items that
// opts add to the attempt step returns. verb names the step in errors.
func (s *Store) writeCommand(ctx context.Context, sessionID, verb, command, what string, values map[string]any, opts []CommandOption, step func(tx *sql.Tx, encoded string) (*CommandExecution, error)) (*CommandExecution, error) {
	encoded, err := marshalObject(what, values)
	if err != nil {
		return nil, err
	}
	items, err := itemsOf(opts)
	if err != nil {
		return nil, err
	}
	return inTx(ctx, s.db.Write, fmt.Sprintf("%s command %q", verb, command), func(tx *sql.Tx) (*CommandExecution, error) {
		ce, err := step(tx, encoded)
		if err != nil {
			return nil, err
		}
		return ce, recordItems(ctx, tx, sessionID, ce, items)
	})
}

func (s *Store) startCommand(ctx context.Context, tx *sql.Tx, sessionID, command, in string) (*CommandExecution, error) {
	now := s.now()
	if err := s.sweep(ctx, tx, now); err != nil {
		return nil, err
	}
	ex, err := s.writableRow(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	var (
		id             int64
		step, attempts int
		status, owner  string
		first          = ms(now)
	)
	err = tx.QueryRowContext(ctx, `SELECT id, step, attempts, status, owner_id, coalesce(first_started_at, started_at) FROM commands
		WHERE session_id = ? AND command = ? AND step >= ? ORDER BY step DESC LIMIT 1`,
		sessionID, command, ex.planBase).Scan(&id, &step, &attempts, &status, &owner, &first)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && Status(status) == StatusSuccess:
		first = ms(now)
		err = tx.QueryRowContext(ctx, `INSERT INTO commands (session_id, step, command, status, inputs, started_at, first_started_at, owner_id)
			VALUES (?1, (SELECT coalesce(max(step) + 1, 0) FROM commands WHERE session_id = ?1), ?2, 'running', ?3, ?4, ?4, ?5)
			RETURNING step`, sessionID, command, in, ms(now), s.owner).Scan(&step)
		attempts = 1
	case err == nil:
		if Status(status) == StatusRunning && owner != s.owner {
			// The sweep above left it running: its owner is alive.
			return nil, conflictf("command %q of execution %s is running in another process (%s)", command, sessionID, s.describeOwner(ctx, tx, owner))
		}
		attempts++
		err = retry(ctx, tx, id, in, now, s.owner)
	}
	if err != nil {
		return nil, err
	}
	return &CommandExecution{
		Command:        command,
		StartedAt:      fromMS(ms(now)),
		FirstAttemptAt: fromMS(first),
		LastAttemptAt:  fromMS(ms(now)),
		Status:         StatusRunning,
		Inputs:         rawObject(in),
		Outputs:        map[string]json.RawMessage{},
		ContextLoaded:  []string{},
		MemoryUpdated:  []string{},
		SkillsInvoked:  []string{},
		Attempts:       attempts,
		Step:           step,
	}, nil
}

// retry moves the latest attempt of step id to command_attempts (a running
// one as interrupted) and makes the step a new running attempt.
func retry(ctx context.Context, tx *sql.Tx, id int64, inputs string, now time.Time, owner string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO command_attempts (command_id, attempt, status, inputs, outputs, started_at, completed_at, owner_id)
		SELECT id, attempts, CASE status WHEN 'running' THEN 'interrupted' ELSE status END,
			inputs, outputs, started_at, coalesce(completed_at, ?2), owner_id
		FROM commands WHERE id = ?1`, id, ms(now))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE commands SET attempts = attempts + 1, status = 'running', inputs = ?2, outputs = '{}',
		started_at = ?3, completed_at = NULL, owner_id = ?4 WHERE id = ?1`, id, inputs, ms(now), owner)
	return err
}

// CompleteCommand records the end of the running attempt of command (its most
// recent step) with status success, partial or failed, and its outputs. The
// change is committed when CompleteCommand returns. An attempt of this
// process that was marked interrupted while the process was unresponsive can
// still be completed. Options add memory updated and skills invoked to the
// attempt, in the same transaction.
func (s *Store) CompleteCommand(ctx context.Context, sessionID, command string, status Status, outputs map[string]any, opts ...CommandOption) (*CommandExecution, error) {
	if err := requireName("command name", command); err != nil {
		return nil, err
	}
	switch status {
	case StatusSuccess, StatusPartial, StatusFailed:
	default:
		return nil, fmt.Errorf("%w: completion status %q: want success, partial or failed", ErrInvalidArgument, status)
	}
	return s.writeCommand(ctx, sessionID, "complete", command, "outputs", outputs, opts,
		func(tx *sql.Tx, out string) (*CommandExecution, error) {
			return s.completeCommand(ctx, tx, sessionID, command, status, out)
		})
}

func (s *Store) completeCommand(ctx context.Context, tx *sql.Tx, sessionID, command string, status Status, out string) (*CommandExecution, error) {
	if _, err := s.writableRow(ctx, tx, sessionID); err != nil {
		return nil, err
	}
	var (
		id         int64
		cur, owner string
		now        = s.now()
	)
	notRunning := fmt.Errorf("%w: %q in execution %s", ErrNoRunningCommand, command, sessionID)
	err := tx.QueryRowContext(ctx, `SELECT id, status, owner_id FROM commands WHERE session_id = ? AND command = ?
		ORDER BY step DESC LIMIT 1`, sessionID, command).Scan(&id, &cur, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notRunning
	} else if err != nil {
		return nil, err
	}
	if Status(cur) != StatusRunning && !(Status(cur) == StatusInterrupted && owner == s.owner) {
		return nil, fmt.Errorf("%w (its latest attempt is %s)", notRunning, cur)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE commands SET status = ?, outputs = ?, completed_at = ? WHERE id = ?`,
		string(status), out, ms(now), id); err != nil {
		return nil, err
	}
	live, err := s.liveSet(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	cmds, err := loadCommands(ctx, tx, live, selectCommands+`WHERE c.id = ?`, id)
	if err != nil {
		return nil, err
	}
	return &cmds[0], nil
}

// loadCache names a table that caches content under a two-part key a:b.
type loadCache struct {
	kind         string // the item list of the command: "context" or "memory"
	aName, bName string // the key parts, as errors name them
	upsert       string // stores (session_id, a, b, content, loaded_at)
	query        string // selects content by ?1 session_id, ?2 a, ?3 b
}

// newLoadCache returns the cache kept in table, whose key columns are a
// and b.
func newLoadCache(kind, aName, bName, table, a, b string) loadCache {
	return loadCache{
		kind: kind, aName: aName, bName: bName,
		upsert: fmt.Sprintf(`INSERT INTO %[1]s (session_id, %[2]s, %[3]s, content, loaded_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (session_id, %[2]s, %[3]s) DO UPDATE SET content = excluded.content, loaded_at = excluded.loaded_at`, table, a, b),
		query: fmt.Sprintf(`SELECT content FROM %s WHERE session_id = ?1 AND %s = ?2 AND %s = ?3`, table, a, b),
	}
}

var (
	contextLoads = newLoadCache("context", "domain", "topic", "context_loads", "domain", "topic")
	memoryLoads  = newLoadCache("memory", "memory layer", "memory key", "memory_loads", "layer", "key")
)

// RecordContextLoad caches the content of domain:topic in the execution and
// adds the key to the contextLoaded list of the running command, if any.
func (s *Store) RecordContextLoad(ctx context.Context, sessionID, domain, topic, content string) error {
	return s.cache(ctx, contextLoads, sessionID, domain, topic, content)
}

// GetCachedContext returns the content of domain:topic when a command of the
// execution recorded it; ok is false on a cache miss.
func (s *Store) GetCachedContext(ctx context.Context, sessionID, domain, topic string) (content string, ok bool, err error) {
	return s.cached(ctx, contextLoads, sessionID, domain, topic)
}

// RecordMemoryLoad caches memory content under layer:key in the execution
// and, as the seed interface does, adds layer:key to the memoryUpdated list
// of the running command, if any.
func (s *Store) RecordMemoryLoad(ctx context.Context, sessionID, layer, key, content string) error {
	return s.cache(ctx, memoryLoads, sessionID, layer, key, content)
}

// GetCachedMemory returns the memory content cached under layer:key; ok is
// false on a cache miss.
func (s *Store) GetCachedMemory(ctx context.Context, sessionID, layer, key string) (content string, ok bool, err error) {
	return s.cached(ctx, memoryLoads, sessionID, layer, key)
}

// cache stores content under a:b in the table of c and adds a:b to that
// list of the running command, if any.
func (s *Store) cache(ctx context.Context, c loadCache, sessionID, a, b, content string) error {
	if err := requireKey(c.aName, a, c.bName, b); err != nil {
		return err
	}
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.writableRow(ctx, tx, sessionID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, c.upsert, sessionID, a, b, []byte(content), ms(s.now())); err != nil {
			return err
		}
		return addItem(ctx, tx, sessionID, c.kind, a+":"+b)
	})
	if err != nil {
		return fmt.Errorf("record %s load %s:%s: %w", c.kind, a, b, err)
	}
	return nil
}

// cached returns the content stored under a:b in the table of c.
func (s *Store) cached(ctx context.Context, c loadCache, sessionID, a, b string) (content string, ok bool, err error) {
	err = s.db.Read(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		var v []byte
		err := tx.QueryRowContext(ctx, c.query, sessionID, a, b).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		content, ok = string(v), err == nil
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("get cached %s %s:%s: %w", c.kind, a, b, err)
	}
	return content, ok, nil
}

// addItem adds item to the list of kind of the most recently started running
// attempt of the execution, if there is one.
func addItem(ctx context.Context, tx *sql.Tx, sessionID, kind, item string) error {
	var id int64
	var attempt int
	err := tx.QueryRowContext(ctx, `SELECT id, attempts FROM commands WHERE session_id = ? AND status = 'running'
		ORDER BY started_at DESC, step DESC LIMIT 1`, sessionID).Scan(&id, &attempt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO command_items (command_id, attempt, kind, item) VALUES (?, ?, ?, ?)`,
		id, attempt, kind, item)
	return err
}

// maxSharedDataBytes is the largest shared value (as JSON) SetSharedData
// and mergeSharedData accept: the limit history puts on a message, so that
// one call cannot grow the database and every later read without bound.
const maxSharedDataBytes = 4 << 20

// SetSharedData stores value, which must be JSON-serialisable (a
// json.RawMessage must hold valid JSON), under key for later commands.
func (s *Store) SetSharedData(ctx context.Context, sessionID, key string, value any) error {
	return s.mergeSharedData(ctx, sessionID, map[string]any{key: value})
}

// mergeSharedData stores several shared values in one transaction: all of
// them or, on error, none.
func (s *Store) mergeSharedData(ctx context.Context, sessionID string, values map[string]any) error {
	encoded := make(map[string]string, len(values))
	for k, v := range values {
		if err := requireName("shared data key", k); err != nil {
			return err
		}
		b, err := marshalValue(v)
		if err != nil {
			return fmt.Errorf("%w: shared data %q: %v", ErrInvalidArgument, k, err)
		}
		if len(b) > maxSharedDataBytes {
			return fmt.Errorf("%w: shared data %q: %d bytes, the limit is %d", ErrInvalidArgument, k, len(b), maxSharedDataBytes)
		}
		encoded[k] = string(b)
	}
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.writableRow(ctx, tx, sessionID); err != nil {
			return err
		}
		return storeShared(ctx, tx, sessionID, encoded, ms(s.now()))
	})
	if err != nil {
		return fmt.Errorf("set shared data: %w", err)
	}
	return nil
}

// GetSharedData returns the JSON value stored under key; ok is false when
// there is none.
func (s *Store) GetSharedData(ctx context.Context, sessionID, key string) (value json.RawMessage, ok bool, err error) {
	err = s.db.Read(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM shared_data WHERE session_id = ? AND key = ?`, sessionID, key).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		value, ok = json.RawMessage(v), err == nil
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("get shared data %q: %w", key, err)
	}
	return value, ok, nil
}

// GetPreviousCommand returns the most recently finished command of the
// execution, or of the given command when command is not empty; nil when
// there is none. Running commands are not "previous".
func (s *Store) GetPreviousCommand(ctx context.Context, sessionID, command string) (*CommandExecution, error) {
	return inTx(ctx, s.db.Read, "get previous command", func(tx *sql.Tx) (*CommandExecution, error) {
		live, err := s.liveOf(ctx, tx, sessionID)
		if err != nil {
			return nil, err
		}
		cmds, err := loadCommands(ctx, tx, live, selectCommands+`WHERE c.session_id = ?1 AND (?2 = '' OR c.command = ?2) AND c.status <> 'running'
			ORDER BY coalesce(c.completed_at, c.started_at) DESC, c.step DESC LIMIT 1`, sessionID, command)
		if err != nil || len(cmds) == 0 {
			return nil, err
		}
		return &cmds[0], nil
	})
}

// Attempts returns every attempt of a step of the execution, oldest first.
func (s *Store) Attempts(ctx context.Context, sessionID string, step int) ([]CommandExecution, error) {
	return inTx(ctx, s.db.Read, "attempts", func(tx *sql.Tx) ([]CommandExecution, error) {
		live, err := s.liveOf(ctx, tx, sessionID)
		if err != nil {
			return nil, err
		}
		latest, err := loadCommands(ctx, tx, live, selectCommands+`WHERE c.session_id = ? AND c.step = ?`, sessionID, step)
		if err != nil {
			return nil, err
		}
		if len(latest) == 0 {
			return nil, fmt.Errorf("step %d of execution %s: %w", step, sessionID, ErrNotFound)
		}
		out, err := loadCommands(ctx, tx, live, `SELECT a.command_id, c.command, a.attempt, a.status, a.inputs, a.outputs,
				a.started_at, a.completed_at, c.step, a.owner_id, coalesce(c.first_started_at, c.started_at)
			FROM command_attempts a JOIN commands c ON c.id = a.command_id
			WHERE c.session_id = ? AND c.step = ? ORDER BY a.attempt`, sessionID, step)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i].LastAttemptAt = latest[0].StartedAt
		}
		return append(out, latest[0]), nil
	})
}

// execInfo is what the write paths need of an execution row.
type execInfo struct {
	planBase int
}

// execRow reads the execution, failing with ErrNotFound when it does not
// exist.
// liveOf checks that the execution exists and returns the owners whose
// heartbeat is fresh now, as liveSet does.
func (s *Store) liveOf(ctx context.Context, tx *sql.Tx, sessionID string) (map[string]bool, error) {
	if _, err := execRow(ctx, tx, sessionID); err != nil {
		return nil, err
	}
	return s.liveSet(ctx, tx, s.now())
}

// writableRow reads the execution as execRow does and fails unless the
// caller may write to it: no chain run elsewhere owns it.
func (s *Store) writableRow(ctx context.Context, tx *sql.Tx, sessionID string) (execInfo, error) {
	ex, err := execRow(ctx, tx, sessionID)
	if err != nil {
		return ex, err
	}
	return ex, s.requireNoChainElsewhere(ctx, tx, sessionID)
}

func execRow(ctx context.Context, tx *sql.Tx, sessionID string) (execInfo, error) {
	var e execInfo
	if sessionID == "" {
		return e, fmt.Errorf("%w: session id is empty", ErrInvalidArgument)
	}
	err := tx.QueryRowContext(ctx, `SELECT plan_base FROM executions WHERE session_id = ?`, sessionID).Scan(&e.planBase)
	if errors.Is(err, sql.ErrNoRows) {
		return e, fmt.Errorf("execution %q: %w", sessionID, ErrNotFound)
	}
	return e, err
}

// storeShared stores each of values, encoded JSON, under its key in the
// execution's shared data, replacing what was there.
func storeShared[V ~string | ~[]byte](ctx context.Context, tx *sql.Tx, sessionID string, values map[string]V, now int64) error {
	for k, v := range values {
		_, err := tx.ExecContext(ctx, `INSERT INTO shared_data (session_id, key, value, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			sessionID, k, string(v), now)
		if err != nil {
			return err
		}
	}
	return nil
}

// requireKey checks both parts of a two-part key a:b.
func requireKey(aName, a, bName, b string) error {
	if err := requireName(aName, a); err != nil {
		return err
	}
	return requireName(bName, b)
}

func requireName(what, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%w: %s is empty", ErrInvalidArgument, what)
	}
	return nil
}

// marshalValue encodes a shared value; a json.RawMessage must already be
// valid JSON.
func marshalValue(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, errors.New("not valid JSON")
		}
		return raw, nil
	}
	return json.Marshal(v)
}

// marshalObject encodes inputs or outputs; nil is the empty object.
func marshalObject(what string, m map[string]any) (string, error) {
	if m == nil {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidArgument, what, err)
	}
	return string(b), nil
}

func rawObject(s string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	// Stored objects were produced by marshalObject; a failure leaves m empty.
	_ = json.Unmarshal([]byte(s), &m)
	return m
}
