package execution

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// RequestDelete is the first step of deleting an execution: it returns a
// random token (at least 128 bits from crypto/rand) bound to sessionID, valid
// once, in this process only, until expires. The current execution cannot be
// deleted, nor one in which a live process, this one included, runs a
// command or a chain (ErrConflict).
func (s *Store) RequestDelete(ctx context.Context, sessionID string) (token string, expires time.Time, err error) {
	return s.tokens.Request(sessionID, func() error {
		return s.db.Read(ctx, func(tx *sql.Tx) error {
			if _, err := execRow(ctx, tx, sessionID); err != nil {
				return err
			}
			cur, err := current(ctx, tx)
			if err == nil && cur == sessionID {
				err = fmt.Errorf("%w: %s", ErrIsCurrent, sessionID)
			}
			if err != nil {
				return err
			}
			return s.requireIdle(ctx, tx, sessionID)
		})
	})
}

// ConfirmDelete deletes the execution and everything it owns (commands and
// their attempts, loaded context and memory, shared data, runs, its
// conversation and messages) when token is the one RequestDelete issued for
// it. A token is consumed by its first use, successful or not. While a live
// process runs a command or a chain in the execution, it is not deleted
// (ErrConflict).
func (s *Store) ConfirmDelete(ctx context.Context, sessionID, token string) error {
	if err := s.tokens.Consume(sessionID, token); err != nil {
		return fmt.Errorf("delete execution %s: %w", sessionID, err)
	}
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		cur, err := current(ctx, tx)
		if err != nil {
			return err
		}
		if cur == sessionID {
			// Made current by another process since the token was issued.
			return fmt.Errorf("%w: %s", ErrIsCurrent, sessionID)
		}
		// What dead processes left running is no reason to wait.
		if err := s.sweep(ctx, tx, s.now()); err != nil {
			return err
		}
		if err := s.requireIdle(ctx, tx, sessionID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM executions WHERE session_id = ?`, sessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete execution: %w", err)
	}
	return nil
}

// requireNoChainElsewhere fails with ErrConflict when a live process other
// than this one runs a chain of the execution. Every write to an execution
// checks it: a command started or completed, a plan set or data recorded
// from here would change the steps under that chain (a command started
// here is left interrupted when the chain records its own). It is the
// error a second run or resume of that chain gets.
func (s *Store) requireNoChainElsewhere(ctx context.Context, tx *sql.Tx, sessionID string) error {
	args, err := s.liveArgs(ctx, tx, s.now())
	if err != nil {
		return err
	}
	var owner string
	err = tx.QueryRowContext(ctx, `WITH live (owner_id) AS (`+liveOwners+`)
		SELECT owner_id FROM runs
			WHERE session_id = :session AND status = 'running' AND owner_id <> :self AND owner_id IN live
		LIMIT 1`, append(args, sql.Named("session", sessionID), sql.Named("self", s.owner))...).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	return conflictf("a chain of execution %s is running in another process (%s)", sessionID, s.describeOwner(ctx, tx, owner))
}

// requireIdle fails with ErrConflict when a live process runs a command or a
// chain in the execution: deleting it would pull the rows from under that
// work.
func (s *Store) requireIdle(ctx context.Context, tx *sql.Tx, sessionID string) error {
	args, err := s.liveArgs(ctx, tx, s.now())
	if err != nil {
		return err
	}
	var owner, what string
	err = tx.QueryRowContext(ctx, `WITH live (owner_id) AS (`+liveOwners+`)
		SELECT owner_id, 'command "' || command || '"' FROM commands
			WHERE session_id = :session AND status = 'running' AND owner_id IN live
		UNION ALL
		SELECT owner_id, 'its chain' FROM runs
			WHERE session_id = :session AND status = 'running' AND owner_id IN live
		LIMIT 1`, append(args, sql.Named("session", sessionID))...).Scan(&owner, &what)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	return conflictf("execution %s is running: %s runs in %s; cancel it or let it finish before deleting the execution",
		sessionID, what, s.describeOwner(ctx, tx, owner))
}
