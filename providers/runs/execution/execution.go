// Package execution is the persistent ExecutionContext of ctxls: sessions
// ("executions") in which chained commands share loaded context, memory,
// shared data and results, plus their management (list, current, delete).
//
// Everything lives in the workspace database (package storage), so two ctxls
// processes on one workspace see the same executions. Each process is an
// owner with a heartbeat; a command left running by an owner whose heartbeat
// went stale (the process died) is reported, and on the next write recorded,
// as interrupted, and can be started again as a new attempt.
package execution

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/runs/internal/confirm"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

// Errors returned by the Store; test for them with errors.Is.
var (
	// ErrNotFound: the execution, step or run does not exist.
	ErrNotFound = errkind.New(errkind.NotFound, "not found")
	// ErrInvalidArgument: a parameter is empty, out of range or not
	// serialisable.
	ErrInvalidArgument = errkind.New(errkind.Invalid, "invalid argument")
	// ErrNoRunningCommand: CompleteCommand or CompleteStep found no running
	// attempt of the command.
	ErrNoRunningCommand = errkind.New(errkind.Invalid, "no running command")
	// ErrConflict: the command, chain or execution is busy with work that a
	// live process runs. The errors that match it name that process by its
	// pid and host.
	ErrConflict = errkind.New(errkind.Conflict, "command is running in another process")
	// ErrIsCurrent: the current execution cannot be deleted.
	ErrIsCurrent = errkind.New(errkind.Invalid, "the current execution cannot be deleted")
	// ErrInvalidToken: a delete confirmation token that this process did not
	// issue for this execution, was used already, or expired.
	ErrInvalidToken = confirm.ErrInvalidToken
	// ErrNoPlan: the execution has no chain plan to resume.
	ErrNoPlan = errkind.New(errkind.Invalid, "execution has no chain plan")
	// ErrUnfinishedChain: a new chain cannot start in an execution whose
	// chain has a command that did not succeed; that chain is resumed
	// instead.
	ErrUnfinishedChain = errkind.New(errkind.Invalid, "unfinished chain")
)

// Status is the status of one attempt of a command.
type Status string

// Command statuses. Running is the only one that is not final; a running
// command whose process is gone is Interrupted.
const (
	StatusRunning     Status = "running"
	StatusSuccess     Status = "success"
	StatusPartial     Status = "partial"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
)

// State is the state of an execution as a whole.
type State string

// Execution states. An execution's state is that of its current work: its
// chain plan's steps and the commands started since (every step when it
// never ran a chain). Besides the four states of a run (running, completed,
// failed, interrupted), a fresh execution is new: nothing has run in it to
// complete, fail or interrupt.
const (
	// StateNew: no command started yet.
	StateNew State = "new"
	// StateRunning: a live process is running one of its commands or its chain.
	StateRunning State = "running"
	// StateCompleted: every command of the current work finished (success
	// or partial), its last command and every command of the chain plan,
	// if any, succeeded.
	StateCompleted State = "completed"
	// StateFailed: a command's latest attempt failed.
	StateFailed State = "failed"
	// StateInterrupted: a command or chain was cut off (its process died or
	// stopped), or the last command or a command of the chain only partly
	// succeeded; resuming the chain runs it again from there.
	StateInterrupted State = "interrupted"
)

// ExecutionState is the state shared by the commands of one execution. The
// first eight fields are those of the seed interface.
type ExecutionState struct {
	SessionID   string    `json:"sessionId"`
	StartedAt   time.Time `json:"startedAt"`
	ProjectName string    `json:"projectName"`
	ProjectType string    `json:"projectType"`
	// LoadedContext maps "domain:topic" to the content loaded.
	LoadedContext map[string]string `json:"loadedContext"`
	// LoadedMemory maps "layer:key" to the content loaded.
	LoadedMemory map[string]string `json:"loadedMemory"`
	// CommandHistory holds one entry per step, in step order, each the
	// latest attempt of that step.
	CommandHistory []CommandExecution `json:"commandHistory"`
	// SharedData holds JSON values passed between commands.
	SharedData map[string]json.RawMessage `json:"sharedData"`

	State          State    `json:"state"`
	IsCurrent      bool     `json:"isCurrent"`
	ConversationID string   `json:"conversationId"`
	Summary        Progress `json:"summary"`
	// Plan is the chain running in this execution, if any.
	Plan *Plan `json:"plan,omitempty"`
}

// CommandExecution records one attempt of a command. The fields up to
// SkillsInvoked are those of the seed interface.
type CommandExecution struct {
	Command string `json:"command"`
	// StartedAt is when this attempt started.
	StartedAt   time.Time                  `json:"startedAt"`
	CompletedAt *time.Time                 `json:"completedAt"`
	Status      Status                     `json:"status"`
	Inputs      map[string]json.RawMessage `json:"inputs"`
	Outputs     map[string]json.RawMessage `json:"outputs"`
	// ContextLoaded lists the "domain:topic" keys recorded while it ran.
	ContextLoaded []string `json:"contextLoaded"`
	// MemoryUpdated lists the "layer:key" memory entries it updated.
	MemoryUpdated []string `json:"memoryUpdated"`
	SkillsInvoked []string `json:"skillsInvoked"`
	// Attempts is this attempt's number, 1 for the first; for the entries
	// of CommandHistory that is the number of attempts made of the step.
	Attempts int `json:"attempts"`
	// Step is the 0-based position of the command in the execution.
	Step int `json:"step"`
	// FirstAttemptAt is when the step's first attempt started,
	// LastAttemptAt when its latest one did (StartedAt of that attempt):
	// retries keep the first.
	FirstAttemptAt time.Time `json:"firstAttemptAt"`
	LastAttemptAt  time.Time `json:"lastAttemptAt"`
}

// Plan is the chain of commands an execution runs.
type Plan struct {
	Commands []string `json:"commands"`
	Input    string   `json:"input"`
}

// Options configure a Store. Zero values take the defaults.
type Options struct {
	// HeartbeatInterval is how often the process records that it is alive
	// (default 2s).
	HeartbeatInterval time.Duration
	// StaleAfter is how old this process's heartbeat may get before others
	// consider it gone (default 5 × HeartbeatInterval, at least twice it).
	StaleAfter time.Duration
	// DeleteTokenTTL is how long a delete confirmation token stays valid
	// (default 5 minutes).
	DeleteTokenTTL time.Duration
	// OnError, when set, receives errors of the background heartbeat, which
	// has no caller to return them to.
	OnError func(error)
	// DetectProjectType, when set, names the project type of an execution
	// created without one ("" when it cannot tell). It runs outside any
	// transaction, since it may scan the workspace.
	DetectProjectType func(ctx context.Context) string
}

func (o Options) withDefaults() Options {
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = 2 * time.Second
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 5 * o.HeartbeatInterval
	}
	o.StaleAfter = max(o.StaleAfter, 2*o.HeartbeatInterval)
	if o.DeleteTokenTTL <= 0 {
		o.DeleteTokenTTL = 5 * time.Minute
	}
	return o
}

// Store implements the ExecutionContext and execution management over a
// database. It is safe for concurrent use. Delete confirmation tokens live in
// the Store's memory: a token is valid only in the process that issued it.
type Store struct {
	db    *storage.DB
	owner string
	// host is this machine's name, as the owner rows record it.
	host string
	opts Options
	// clock gives the time; tests move it forward while the heartbeat
	// reads it, hence atomic.
	clock atomic.Pointer[func() time.Time]

	tokens *confirm.Tokens

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// New registers this process as an owner in db and starts its heartbeat.
// Close the Store before closing db.
func New(ctx context.Context, db *storage.DB, opts Options) (*Store, error) {
	host, _ := os.Hostname()
	s := &Store{
		db:    db,
		owner: newID(),
		host:  host,
		opts:  opts.withDefaults(),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	s.setNow(time.Now)
	// Through s.now, which tests move forward.
	s.tokens = confirm.New(s.opts.DeleteTokenTTL, s.now)
	if err := s.beat(ctx); err != nil {
		return nil, fmt.Errorf("register process: %w", err)
	}
	go s.heartbeat()
	return s, nil
}

// Close stops the heartbeat, marks the commands and chain runs this process
// was running as interrupted and removes its owner record. It does not
// close the database.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.closeErr = s.db.Write(ctx, func(tx *sql.Tx) error {
			now := ms(s.now())
			if _, err := tx.ExecContext(ctx, `UPDATE commands SET status = 'interrupted', completed_at = ?
				WHERE status = 'running' AND owner_id = ?`, now, s.owner); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'interrupted', finished_at = ?
				WHERE status = 'running' AND owner_id = ?`, now, s.owner); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `DELETE FROM owners WHERE owner_id = ?`, s.owner)
			return err
		})
		if s.closeErr != nil {
			s.closeErr = fmt.Errorf("unregister process: %w", s.closeErr)
		}
	})
	return s.closeErr
}

func (s *Store) heartbeat() {
	defer close(s.done)
	t := time.NewTicker(s.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.StaleAfter)
			err := s.beat(ctx)
			cancel()
			if err != nil && s.opts.OnError != nil {
				s.opts.OnError(fmt.Errorf("heartbeat: %w", err))
			}
		}
	}
}

// now returns the time of the Store's clock.
func (s *Store) now() time.Time { return (*s.clock.Load())() }

// setNow sets the Store's clock.
func (s *Store) setNow(now func() time.Time) { s.clock.Store(&now) }

// beat records that this process is alive and marks what dead processes
// left running as interrupted.
func (s *Store) beat(ctx context.Context) error {
	host := s.host
	return s.db.Write(ctx, func(tx *sql.Tx) error {
		now := s.now()
		_, err := tx.ExecContext(ctx, `INSERT INTO owners (owner_id, pid, host, started_at, heartbeat_at, stale_ms)
			VALUES (?1, ?2, ?3, ?4, ?4, ?5)
			ON CONFLICT (owner_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
			s.owner, os.Getpid(), host, ms(now), s.opts.StaleAfter.Milliseconds())
		if err != nil {
			return err
		}
		return s.sweep(ctx, tx, now)
	})
}

// liveOwners is a subquery of the live owners: those whose heartbeat is
// fresh and which are not among the owners of this machine whose process is
// gone, with this process always among them. It takes the named arguments
// that liveArgs returns.
const liveOwners = `SELECT owner_id FROM owners WHERE heartbeat_at > :now - stale_ms
	AND owner_id NOT IN (SELECT value FROM json_each(:dead)) UNION SELECT :self`

// sweep records as interrupted the running commands and runs of owners that
// are gone, and forgets those owners.
func (s *Store) sweep(ctx context.Context, tx *sql.Tx, now time.Time) error {
	if err := s.forgetDeadProcesses(ctx, tx); err != nil {
		return fmt.Errorf("find dead processes: %w", err)
	}
	args := s.argsAt(now, nil)
	for _, q := range []string{
		`UPDATE commands SET status = 'interrupted', completed_at = :now
			WHERE status = 'running' AND owner_id NOT IN (` + liveOwners + `)`,
		`UPDATE runs SET status = 'interrupted', finished_at = :now
			WHERE status = 'running' AND owner_id NOT IN (` + liveOwners + `)`,
		`DELETE FROM owners WHERE owner_id NOT IN (` + liveOwners + `)`,
	} {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("mark interrupted work: %w", err)
		}
	}
	return nil
}

// forgetDeadProcesses removes the owners of this machine whose process no
// longer exists, so that what a killed process left running is interrupted
// at once instead of after its heartbeat goes stale.
func (s *Store) forgetDeadProcesses(ctx context.Context, tx *sql.Tx) error {
	dead, err := s.deadProcesses(ctx, tx)
	if err != nil {
		return err
	}
	for _, id := range dead {
		if _, err := tx.ExecContext(ctx, `DELETE FROM owners WHERE owner_id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// deadProcesses returns the owners of this machine whose process no longer
// exists.
func (s *Store) deadProcesses(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT owner_id, pid FROM owners WHERE host = ? AND owner_id <> ?`, s.host, s.owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var dead []string
	for rows.Next() {
		var id string
		var pid int
		if err := rows.Scan(&id, &pid); err != nil {
			return nil, err
		}
		if pid != os.Getpid() && processGone(pid) {
			dead = append(dead, id)
		}
	}
	return dead, rows.Err()
}

// liveArgs returns the arguments of liveOwners at now. Reads use it: they
// see the work of a killed process of this machine as interrupted before a
// write records it so.
func (s *Store) liveArgs(ctx context.Context, tx *sql.Tx, now time.Time) ([]any, error) {
	dead, err := s.deadProcesses(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("find dead processes: %w", err)
	}
	return s.argsAt(now, dead), nil
}

// argsAt returns the arguments of liveOwners at now, with the owners dead
// taken for gone whatever their heartbeat.
func (s *Store) argsAt(now time.Time, dead []string) []any {
	list := "[]"
	if len(dead) > 0 {
		b, _ := json.Marshal(dead) // strings always encode
		list = string(b)
	}
	return []any{sql.Named("now", ms(now)), sql.Named("self", s.owner), sql.Named("dead", list)}
}

// conflictError wraps ErrConflict, and so its kind, with a message of its
// own, so that the message can say what is busy and where.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }
func (e *conflictError) Unwrap() error { return ErrConflict }

func conflictf(format string, args ...any) error {
	return &conflictError{msg: fmt.Sprintf(format, args...)}
}

// describeOwner names the process behind an owner id the way people know
// it: by the pid and host its owner row records.
func (s *Store) describeOwner(ctx context.Context, tx *sql.Tx, ownerID string) string {
	if ownerID == s.owner {
		return fmt.Sprintf("this process (pid %d)", os.Getpid())
	}
	var pid int
	var host string
	err := tx.QueryRowContext(ctx, `SELECT pid, host FROM owners WHERE owner_id = ?`, ownerID).Scan(&pid, &host)
	switch {
	case err != nil:
		return "another process"
	case host == "":
		return fmt.Sprintf("pid %d", pid)
	}
	return fmt.Sprintf("pid %d on host %s", pid, host)
}

// newID returns a random (version 4) UUID.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// inTx runs fn in a transaction of run (the database's Read or Write) and
// returns its value; a failure is wrapped with what.
func inTx[T any](ctx context.Context, run func(context.Context, func(*sql.Tx) error) error, what string, fn func(*sql.Tx) (T, error)) (T, error) {
	var v T
	err := run(ctx, func(tx *sql.Tx) error {
		var err error
		v, err = fn(tx)
		return err
	})
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}
