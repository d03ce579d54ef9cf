package execution

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// RequestDelete is the first step of deleting an execution: it returns a
// random token (at least 128 bits from crypto/rand) bound to sessionID, valid
// once, in this process only, until expires. The current execution cannot be
// deleted.
func (s *Store) RequestDelete(ctx context.Context, sessionID string) (token string, expires time.Time, err error) {
	err = s.db.Read(ctx, func(tx *sql.Tx) error {
		if _, err := execRow(ctx, tx, sessionID); err != nil {
			return err
		}
		cur, err := current(ctx, tx)
		if err == nil && cur == sessionID {
			err = fmt.Errorf("%w: %s", ErrIsCurrent, sessionID)
		}
		return err
	})
	if err != nil {
		return "", time.Time{}, fmt.Errorf("request delete: %w", err)
	}
	token, expires = s.tokens.Issue(sessionID)
	return token, expires, nil
}

// ConfirmDelete deletes the execution and everything it owns (commands and
// their attempts, loaded context and memory, shared data, runs, its
// conversation and messages) when token is the one RequestDelete issued for
// it. A token is consumed by its first use, successful or not.
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
		_, err = tx.ExecContext(ctx, `DELETE FROM executions WHERE session_id = ?`, sessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete execution: %w", err)
	}
	return nil
}
