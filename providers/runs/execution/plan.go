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

// SetPlan records the chain an execution is about to run: its commands in
// order and the user's input. The chain's first command becomes the step
// after those already recorded, and StartCommand retries only steps of the
// plan from then on. An execution whose current chain is unfinished (a
// planned command did not succeed) gets no new plan: SetPlan fails with
// ErrUnfinishedChain, and the chain is to be resumed instead.
func (s *Store) SetPlan(ctx context.Context, sessionID string, commands []string, input string) error {
	if len(commands) == 0 {
		return fmt.Errorf("set plan: %w: no commands", ErrInvalidArgument)
	}
	for _, c := range commands {
		if err := requireName("command name", c); err != nil {
			return fmt.Errorf("set plan: %w", err)
		}
	}
	plan, err := json.Marshal(commands)
	if err != nil {
		return fmt.Errorf("set plan: %w", err)
	}
	err = s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.writableRow(ctx, tx, sessionID); err != nil {
			return err
		}
		if err := s.requireChainFinished(ctx, tx, sessionID); err != nil {
			return err
		}
		// The plan starts after every recorded step, so none of it is done.
		_, err := tx.ExecContext(ctx, `UPDATE executions SET plan = ?1, plan_input = ?2, plan_done = 0,
			plan_base = (SELECT coalesce(max(step) + 1, 0) FROM commands WHERE session_id = ?3)
			WHERE session_id = ?3`, string(plan), input, sessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("set plan: %w", err)
	}
	return nil
}

// requireChainFinished fails with ErrUnfinishedChain when the execution has
// a chain plan whose resume point is not its end: starting another chain
// would leave that one behind, unfinished for good.
func (s *Store) requireChainFinished(ctx context.Context, tx *sql.Tx, sessionID string) error {
	rp, err := s.resumePoint(ctx, tx, sessionID)
	if errors.Is(err, ErrNoPlan) {
		return nil
	}
	if err != nil || rp.Done {
		return err
	}
	names := make([]string, len(rp.Steps))
	for i, st := range rp.Steps {
		names[i] = st.Command
	}
	next := rp.Steps[rp.Next]
	status := string(next.Status)
	if status == "" {
		status = "not started"
	}
	return fmt.Errorf("%w: the chain of execution %s (%s) stopped at %s (%s); resume that chain, or run the new one in a new execution",
		ErrUnfinishedChain, sessionID, strings.Join(names, " → "), next.Command, status)
}

// ResumePoint tells where a chain stands: its planned commands with the
// status of each, and the first one not done.
type ResumePoint struct {
	SessionID string     `json:"sessionId"`
	Input     string     `json:"input"`
	Steps     []PlanStep `json:"steps"`
	// Next is the index in Steps of the first command whose latest attempt
	// is not success (partial, failed, interrupted or never started); it is
	// len(Steps) when every command succeeded.
	Next int `json:"next"`
	// Done reports whether every planned command succeeded.
	Done bool `json:"done"`
}

// PlanStep is one planned command of a chain.
type PlanStep struct {
	Command string `json:"command"`
	// Status is the status of its latest attempt, "" when not started.
	Status   Status `json:"status"`
	Attempts int    `json:"attempts"`
	// Step is its position among the execution's steps.
	Step int `json:"step"`
}

// ResumePoint returns the progress of the execution's chain plan, failing
// with ErrNoPlan when the execution has none.
func (s *Store) ResumePoint(ctx context.Context, sessionID string) (*ResumePoint, error) {
	return inTx(ctx, s.db.Read, "resume point", func(tx *sql.Tx) (*ResumePoint, error) {
		return s.resumePoint(ctx, tx, sessionID)
	})
}

func (s *Store) resumePoint(ctx context.Context, tx *sql.Tx, sessionID string) (*ResumePoint, error) {
	var plan sql.NullString
	var input string
	var base int
	err := tx.QueryRowContext(ctx, `SELECT plan, plan_input, plan_base FROM executions WHERE session_id = ?`, sessionID).
		Scan(&plan, &input, &base)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("execution %q: %w", sessionID, ErrNotFound)
	} else if err != nil {
		return nil, err
	}
	if !plan.Valid {
		return nil, fmt.Errorf("execution %s: %w", sessionID, ErrNoPlan)
	}
	var commands []string
	if err := json.Unmarshal([]byte(plan.String), &commands); err != nil {
		return nil, fmt.Errorf("plan of execution %s: %w", sessionID, err)
	}
	live, err := s.liveSet(ctx, tx, s.now())
	if err != nil {
		return nil, err
	}
	recorded, err := loadCommands(ctx, tx, live, selectCommands+`WHERE c.session_id = ? AND c.step >= ? AND c.step < ?`,
		sessionID, base, base+len(commands))
	if err != nil {
		return nil, err
	}
	byStep := map[int]CommandExecution{}
	for _, c := range recorded {
		byStep[c.Step] = c
	}
	rp := &ResumePoint{SessionID: sessionID, Input: input, Next: len(commands)}
	for i, name := range commands {
		ps := PlanStep{Command: name, Step: base + i}
		if c, ok := byStep[base+i]; ok {
			ps.Status, ps.Attempts = c.Status, c.Attempts
		}
		if ps.Status != StatusSuccess && rp.Next == len(commands) {
			rp.Next = i
		}
		rp.Steps = append(rp.Steps, ps)
	}
	rp.Done = rp.Next == len(commands)
	return rp, nil
}

// RunKind says whether a chain run started a chain or resumed one.
type RunKind string

// Run kinds.
const (
	RunKindRun    RunKind = "run"
	RunKindResume RunKind = "resume"
)

// Run is one run of a chain in an execution, by one process. While the
// run's process is alive and the run is not finished, the execution is
// running even between two commands.
type Run struct {
	RunID      string     `json:"runId"`
	SessionID  string     `json:"sessionId"`
	Kind       RunKind    `json:"kind"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// StartRun records that this process starts (or resumes) running the
// execution's chain. It fails with ErrConflict while another live process
// runs a chain in the execution, and a run of kind RunKindRun, which is about
// to set a new plan, fails with ErrUnfinishedChain while the execution's
// chain is unfinished (see SetPlan).
func (s *Store) StartRun(ctx context.Context, sessionID string, kind RunKind) (*Run, error) {
	if kind != RunKindRun && kind != RunKindResume {
		return nil, fmt.Errorf("start run: %w: kind %q: want run or resume", ErrInvalidArgument, kind)
	}
	now := s.now()
	r := &Run{RunID: newID(), SessionID: sessionID, Kind: kind, StartedAt: fromMS(ms(now))}
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		if err := s.sweep(ctx, tx, now); err != nil {
			return err
		}
		if err := s.requireNoChainElsewhere(ctx, tx, sessionID); err != nil {
			return err
		}
		if kind == RunKindRun {
			if err := s.requireChainFinished(ctx, tx, sessionID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO runs (run_id, session_id, kind, started_at, owner_id) VALUES (?, ?, ?, ?, ?)`,
			r.RunID, sessionID, string(kind), ms(r.StartedAt), s.owner)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start run: %w", err)
	}
	return r, nil
}

// FinishRun records that a run ended, whatever its outcome; the outcome is
// in the statuses of its commands.
func (s *Store) FinishRun(ctx context.Context, runID string) error {
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'finished', finished_at = ? WHERE run_id = ?`, ms(s.now()), runID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("run %q: %w", runID, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish run: %w", err)
	}
	return nil
}
