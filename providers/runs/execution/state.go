package execution

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/providers/runs/storage"
)

// selectCommands selects the columns loadCommands scans, from commands c.
const selectCommands = `SELECT c.id, c.command, c.attempts, c.status, c.inputs, c.outputs,
	c.started_at, c.completed_at, c.step, c.owner_id, coalesce(c.first_started_at, c.started_at) FROM commands c `

// loadCommands runs query, which selects the columns of selectCommands, and
// loads the item lists of each attempt. A running attempt whose owner is not
// in live is reported as interrupted.
func loadCommands(ctx context.Context, tx *sql.Tx, live map[string]bool, query string, args ...any) ([]CommandExecution, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var (
		out []CommandExecution
		ids []int64
	)
	for rows.Next() {
		var (
			id                   int64
			ce                   CommandExecution
			status, in, o, owner string
			started, first       int64
			completed            sql.NullInt64
		)
		if err := rows.Scan(&id, &ce.Command, &ce.Attempts, &status, &in, &o, &started, &completed, &ce.Step, &owner, &first); err != nil {
			rows.Close()
			return nil, err
		}
		ce.Status = Status(status)
		if ce.Status == StatusRunning && !live[owner] {
			ce.Status = StatusInterrupted
		}
		ce.Inputs, ce.Outputs = rawObject(in), rawObject(o)
		ce.StartedAt = fromMS(started)
		ce.FirstAttemptAt, ce.LastAttemptAt = fromMS(first), ce.StartedAt
		if completed.Valid {
			t := fromMS(completed.Int64)
			ce.CompletedAt = &t
		}
		ce.ContextLoaded, ce.MemoryUpdated, ce.SkillsInvoked = []string{}, []string{}, []string{}
		out = append(out, ce)
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if err := loadItems(ctx, tx, &out[i], ids[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// loadItems fills the contextLoaded, memoryUpdated and skillsInvoked lists
// of attempt ce.Attempts of step id.
func loadItems(ctx context.Context, tx *sql.Tx, ce *CommandExecution, id int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT kind, item FROM command_items WHERE command_id = ? AND attempt = ? ORDER BY rowid`,
		id, ce.Attempts)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, item string
		if err := rows.Scan(&kind, &item); err != nil {
			return err
		}
		switch kind {
		case "context":
			ce.ContextLoaded = append(ce.ContextLoaded, item)
		case "memory":
			ce.MemoryUpdated = append(ce.MemoryUpdated, item)
		case "skill":
			ce.SkillsInvoked = append(ce.SkillsInvoked, item)
		}
	}
	return rows.Err()
}

// liveSet returns the owners whose heartbeat is fresh at now, this process
// included.
func (s *Store) liveSet(ctx context.Context, tx *sql.Tx, now time.Time) (map[string]bool, error) {
	args, err := s.liveArgs(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, liveOwners, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	live := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		live[id] = true
	}
	return live, rows.Err()
}

// load reads the whole state of an execution.
func (s *Store) load(ctx context.Context, tx *sql.Tx, sessionID string) (*ExecutionState, error) {
	now := s.now()
	sums, err := s.summaries(ctx, tx, now, `WHERE session_id = ?`, sessionID)
	if err != nil {
		return nil, err
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("execution %q: %w", sessionID, ErrNotFound)
	}
	sum := sums[0]
	st := &ExecutionState{
		SessionID:      sum.SessionID,
		StartedAt:      sum.Created,
		ProjectName:    sum.ProjectName,
		ProjectType:    sum.ProjectType,
		LoadedContext:  map[string]string{},
		LoadedMemory:   map[string]string{},
		SharedData:     map[string]json.RawMessage{},
		State:          sum.State,
		IsCurrent:      sum.IsCurrent,
		ConversationID: sessionID,
		Summary:        sum.Summary,
	}
	var plan sql.NullString
	var input string
	if err := tx.QueryRowContext(ctx, `SELECT plan, plan_input FROM executions WHERE session_id = ?`, sessionID).Scan(&plan, &input); err != nil {
		return nil, err
	}
	if plan.Valid {
		st.Plan = &Plan{Input: input}
		if err := json.Unmarshal([]byte(plan.String), &st.Plan.Commands); err != nil {
			return nil, fmt.Errorf("plan of execution %s: %w", sessionID, err)
		}
	}
	live, err := s.liveSet(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	st.CommandHistory, err = loadCommands(ctx, tx, live, selectCommands+`WHERE c.session_id = ? ORDER BY c.step`, sessionID)
	if err != nil {
		return nil, err
	}
	if st.CommandHistory == nil {
		st.CommandHistory = []CommandExecution{}
	}
	for _, q := range []struct {
		query string
		into  map[string]string
	}{
		{`SELECT domain || ':' || topic, content FROM context_loads WHERE session_id = ?`, st.LoadedContext},
		{`SELECT layer || ':' || key, content FROM memory_loads WHERE session_id = ?`, st.LoadedMemory},
	} {
		err := scanPairs(ctx, tx, q.query, sessionID, func(k string, v []byte) { q.into[k] = string(v) })
		if err != nil {
			return nil, err
		}
	}
	err = scanPairs(ctx, tx, `SELECT key, value FROM shared_data WHERE session_id = ?`, sessionID,
		func(k string, v []byte) { st.SharedData[k] = json.RawMessage(v) })
	if err != nil {
		return nil, err
	}
	return st, nil
}

func scanPairs(ctx context.Context, tx *sql.Tx, query, sessionID string, add func(string, []byte)) error {
	rows, err := tx.QueryContext(ctx, query, sessionID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		add(k, v)
	}
	return rows.Err()
}

// Summary describes one execution in a list.
type Summary struct {
	SessionID   string    `json:"sessionId"`
	ProjectName string    `json:"projectName"`
	ProjectType string    `json:"projectType"`
	State       State     `json:"state"`
	Created     time.Time `json:"created"`
	IsCurrent   bool      `json:"isCurrent"`
	Summary     Progress  `json:"summary"`
}

// Progress counts the commands of an execution.
type Progress struct {
	// CurrentCommand is the command of the latest step, running or not.
	CurrentCommand string `json:"currentCommand"`
	// CommandsCompleted counts steps whose latest attempt is success or
	// partial.
	CommandsCompleted int `json:"commandsCompleted"`
	// CommandsFailed counts steps whose latest attempt failed.
	CommandsFailed int `json:"commandsFailed"`
	// CommandsTotal counts the steps recorded, or planned when a chain plan
	// holds more.
	CommandsTotal int `json:"commandsTotal"`
	// CurrentPrompt is the user's input to the current work: the input of
	// the chain plan, else of the latest command (its first
	// currentPromptMax characters).
	CurrentPrompt string `json:"currentPrompt"`
	// TasksCompleted counts the steps whose latest attempt succeeded
	// (partial ones are not done).
	TasksCompleted int `json:"tasksCompleted"`
}

// currentPromptMax bounds Progress.CurrentPrompt, which every list entry
// carries; the triggers of storage migration 7 keep as much of the latest
// step's input.
const currentPromptMax = 200

// summaries returns the summaries of the executions that clause selects
// (a WHERE and ORDER BY clause of executions e), as they are at now.
func (s *Store) summaries(ctx context.Context, tx *sql.Tx, now time.Time, clause string, args ...any) ([]Summary, error) {
	live, err := s.liveState(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	out, err := recordedSummaries(ctx, tx, clause, args...)
	if err != nil {
		return nil, err
	}
	live.apply(out)
	return out, nil
}

// liveState reads the current execution and the running work at now.
func (s *Store) liveState(ctx context.Context, tx *sql.Tx, now time.Time) (liveState, error) {
	cur, err := current(ctx, tx)
	if err != nil {
		return liveState{}, err
	}
	work, err := s.runningWork(ctx, tx, now)
	if err != nil {
		return liveState{}, err
	}
	return liveState{current: cur, work: work}, nil
}

// liveState is what a list reads afresh on every call: the current
// execution and the running work.
type liveState struct {
	current string
	work    runningWork
}

// apply marks the current execution and sets the state of those with
// running work.
func (l liveState) apply(sums []Summary) {
	for i := range sums {
		sums[i].IsCurrent = sums[i].SessionID == l.current
	}
	l.work.apply(sums)
}

// runningWork maps the executions in which something is running to the
// state that running work gives them: running while a live process runs it,
// interrupted once the process that runs their current work is gone. It is
// the part of a summary that changes without a commit, when a heartbeat
// goes stale, so List reads it afresh on every call.
type runningWork map[string]State

// runningWork reads the running work at now: from the few running commands
// and chain runs and the small owners table.
func (s *Store) runningWork(ctx context.Context, tx *sql.Tx, now time.Time) (runningWork, error) {
	liveArgs, err := s.liveArgs(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `WITH live (owner_id) AS (`+liveOwners+`)
		SELECT c.session_id, c.owner_id IN live, c.step >= e.plan_base
			FROM commands c JOIN executions e ON e.session_id = c.session_id WHERE c.status = 'running'
		UNION ALL
		SELECT session_id, owner_id IN live, 1 FROM runs WHERE status = 'running'`, liveArgs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var work runningWork
	for rows.Next() {
		var id string
		var live, current bool
		if err := rows.Scan(&id, &live, &current); err != nil {
			return nil, err
		}
		if work == nil {
			work = runningWork{}
		}
		switch {
		case live:
			work[id] = StateRunning
		case current && work[id] != StateRunning:
			// Running in a process that is gone.
			work[id] = StateInterrupted
		}
	}
	return work, rows.Err()
}

// apply sets the state of the summaries whose execution has running work.
func (w runningWork) apply(sums []Summary) {
	if len(w) == 0 {
		return
	}
	for i := range sums {
		if st, ok := w[sums[i].SessionID]; ok {
			sums[i].State = st
		}
	}
}

// listOrder orders summaries as lists show them: newest first.
const listOrder = `ORDER BY started_at DESC, session_id`

// recordedSummaries returns the summaries of the executions that clause
// selects (a WHERE and ORDER BY clause of executions e), apart from their
// running work and current mark: what only a commit to the executions
// changes. The step counts come from the executions row, where triggers
// keep them.
//
// The state describes the execution's current work: the steps from its
// chain plan's first step on (every step when it never ran a chain), which
// takes in the commands started by hand after the chain. What an earlier
// chain left failed or interrupted is history, not the state of the
// execution.
func recordedSummaries(ctx context.Context, tx *sql.Tx, clause string, args ...any) ([]Summary, error) {
	// The state apart from running work is decided in SQL, which keeps the
	// columns crossing the driver few: listing 10,000 executions is bound by
	// the per-column cost of the driver. The counters cover every step; an
	// execution whose chain started after earlier steps (plan_base > 0)
	// counts the steps of its current work instead, through the index on
	// (session_id, step).
	rows, err := tx.QueryContext(ctx, `SELECT session_id, project_name, project_type, started_at,
			CASE
				WHEN CASE WHEN plan_base = 0 THEN steps_interrupted > 0
					ELSE EXISTS (SELECT 1 FROM commands c WHERE c.session_id = e.session_id
						AND c.step >= e.plan_base AND c.status = 'interrupted') END THEN 'interrupted'
				WHEN CASE WHEN plan_base = 0 THEN steps_failed > 0
					ELSE EXISTS (SELECT 1 FROM commands c WHERE c.session_id = e.session_id
						AND c.step >= e.plan_base AND c.status = 'failed') END THEN 'failed'
				-- A chain that stopped before its end with nothing failed.
				WHEN plan IS NOT NULL AND plan_done < json_array_length(plan) THEN 'interrupted'
				-- A chain with a command that only partly succeeded: resume
				-- runs it again.
				WHEN plan IS NOT NULL AND `+planHasPartial+` THEN 'interrupted'
				WHEN steps = 0 THEN 'new'
				-- Work whose last command only partly succeeded is not done.
				WHEN last_status = 'partial' THEN 'interrupted'
				ELSE 'completed'
			END,
			last_command, steps_done, steps_failed,
			CASE WHEN plan IS NULL THEN steps ELSE max(steps, plan_base + json_array_length(plan)) END,
			CASE WHEN plan IS NOT NULL THEN substr(plan_input, 1, `+strconv.Itoa(currentPromptMax)+`) ELSE last_input END,
			steps_succeeded
		FROM executions e `+clause, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var (
			sm      Summary
			started int64
		)
		err := rows.Scan(&sm.SessionID, &sm.ProjectName, &sm.ProjectType, &started, &sm.State,
			&sm.Summary.CurrentCommand, &sm.Summary.CommandsCompleted, &sm.Summary.CommandsFailed, &sm.Summary.CommandsTotal,
			&sm.Summary.CurrentPrompt, &sm.Summary.TasksCompleted)
		if err != nil {
			return nil, err
		}
		sm.Created = fromMS(started)
		out = append(out, sm)
	}
	return out, rows.Err()
}

// planHasPartial is an SQL condition on executions e: a command of its chain
// plan ended partial.
const planHasPartial = `EXISTS (SELECT 1 FROM commands c WHERE c.session_id = e.session_id
	AND c.step >= e.plan_base AND c.step < e.plan_base + json_array_length(e.plan) AND c.status = 'partial')`

// List returns every execution, newest first.
func (s *Store) List(ctx context.Context) ([]Summary, error) {
	return s.list(ctx, s.now())
}

// DefaultListLimit is how many executions a page holds when no limit is
// given; MaxListLimit is the most it holds.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// errBadCursor is returned for a cursor that no page of the list gave. It
// is an ErrInvalidArgument.
var errBadCursor = fmt.Errorf("%w: not a cursor of the execution list", ErrInvalidArgument)

// ListRequest selects a page of the executions, newest first.
type ListRequest struct {
	// Limit is the most executions the page holds; 0 means
	// DefaultListLimit, and it is capped at MaxListLimit.
	Limit int
	// Cursor is the Next of the page before, "" for the first page.
	Cursor string
}

// ListPage is a page of the executions, newest first.
type ListPage struct {
	Items []Summary
	// Current is the id of the current execution, on this page or not, ""
	// when there is none.
	Current string
	// Next is the cursor of the page after this one, "" when this is the
	// last.
	Next string
}

// ListPage returns a page of the executions.
func (s *Store) ListPage(ctx context.Context, req ListRequest) (ListPage, error) {
	return s.listPage(ctx, s.now(), req)
}

// listPage reads the page req asks for at now. A page is found through
// the index on (started_at DESC, session_id) from the cursor on, so each
// costs the same however deep in the list it is.
func (s *Store) listPage(ctx context.Context, now time.Time, req ListRequest) (ListPage, error) {
	if req.Limit < 0 {
		return ListPage{}, fmt.Errorf("list executions: %w: limit %d is below 0", ErrInvalidArgument, req.Limit)
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	limit = min(limit, MaxListLimit)
	clause, args := "", []any{}
	if req.Cursor != "" {
		started, id, err := parseCursor(req.Cursor)
		if err != nil {
			return ListPage{}, fmt.Errorf("list executions: cursor %q: %w", req.Cursor, err)
		}
		// Newest first, then by id: the rows after (started, id).
		clause, args = `WHERE started_at <= ? AND (started_at < ? OR session_id > ?) `, []any{started, started, id}
	}
	var page ListPage
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		live, err := s.liveState(ctx, tx, now)
		if err != nil {
			return err
		}
		items, err := recordedSummaries(ctx, tx, clause+listOrder+` LIMIT ?`, append(args, limit+1)...)
		if err != nil {
			return err
		}
		if len(items) > limit {
			items = items[:limit]
			page.Next = cursorOf(items[limit-1])
		}
		live.apply(items)
		page.Items, page.Current = items, live.current
		return nil
	})
	if err != nil {
		return ListPage{}, fmt.Errorf("list executions: %w", err)
	}
	return page, nil
}

// cursorOf returns the cursor of the page that follows sm: its start in
// milliseconds and its id.
func cursorOf(sm Summary) string {
	return strconv.FormatInt(ms(sm.Created), 10) + "/" + sm.SessionID
}

// parseCursor reads a cursor that cursorOf wrote.
func parseCursor(c string) (started int64, id string, err error) {
	n, id, ok := strings.Cut(c, "/")
	started, perr := strconv.ParseInt(n, 10, 64)
	if !ok || perr != nil || id == "" {
		return 0, "", errBadCursor
	}
	return started, id, nil
}

// list reads the summaries of every execution, newest first.
func (s *Store) list(ctx context.Context, now time.Time) ([]Summary, error) {
	return inTx(ctx, s.db.Read, "list executions", func(tx *sql.Tx) ([]Summary, error) {
		return s.summaries(ctx, tx, now, listOrder)
	})
}

// Reader reads the executions of a database without taking part in its
// work: it registers no owner, runs no heartbeat and writes nothing, so that
// looking at executions leaves the workspace as it was. It reports work the
// way a Store does: running while its process lives, interrupted once the
// process is gone (its heartbeat went stale, or it was on this machine and
// no longer exists), though only a Store records that.
type Reader struct{ s *Store }

// NewReader returns a Reader of db. It has nothing to close.
func NewReader(db *storage.DB) *Reader {
	host, _ := os.Hostname()
	s := &Store{db: db, host: host, opts: Options{}.withDefaults()}
	s.setNow(time.Now)
	return &Reader{s: s}
}

// List returns every execution, newest first.
func (r *Reader) List(ctx context.Context) ([]Summary, error) {
	out, err := r.s.list(ctx, r.s.now())
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []Summary{}
	}
	return out, nil
}

// ListPage returns a page of the executions.
func (r *Reader) ListPage(ctx context.Context, req ListRequest) (ListPage, error) {
	return r.s.listPage(ctx, r.s.now(), req)
}

// Get returns the state of an execution; the current one when sessionID is
// empty.
func (r *Reader) Get(ctx context.Context, sessionID string) (*ExecutionState, error) {
	return r.s.Get(ctx, sessionID)
}

// Get returns the state of an execution; the current one when sessionID is
// empty.
func (s *Store) Get(ctx context.Context, sessionID string) (*ExecutionState, error) {
	return inTx(ctx, s.db.Read, "get execution", func(tx *sql.Tx) (*ExecutionState, error) {
		id := sessionID
		if id == "" {
			var err error
			if id, err = current(ctx, tx); err != nil {
				return nil, err
			}
			if id == "" {
				return nil, fmt.Errorf("no current execution: %w", ErrNotFound)
			}
		}
		return s.load(ctx, tx, id)
	})
}

// Current returns the id of the current execution, "" when there is none.
func (s *Store) Current(ctx context.Context) (string, error) {
	return inTx(ctx, s.db.Read, "current execution", func(tx *sql.Tx) (string, error) {
		return current(ctx, tx)
	})
}

func current(ctx context.Context, tx *sql.Tx) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'current_execution'`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// SetCurrent makes an execution the current one, for every process on the
// workspace.
func (s *Store) SetCurrent(ctx context.Context, sessionID string) error {
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		return setCurrent(ctx, tx, sessionID)
	})
	if err != nil {
		return fmt.Errorf("set current execution: %w", err)
	}
	return nil
}

func setCurrent(ctx context.Context, tx *sql.Tx, sessionID string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('current_execution', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, sessionID)
	return err
}
