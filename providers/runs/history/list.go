package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DefaultListLimit is how many messages List returns when no limit is given;
// maxListLimit is the most it returns at once.
const (
	DefaultListLimit = 1000
	maxListLimit     = 10000
)

// ListRequest selects messages of a conversation.
type ListRequest struct {
	// RunID keeps only the messages of one chain run.
	RunID string
	// Limit is the number of messages (the newest before Before);
	// 0 means DefaultListLimit, and it is capped at 10000.
	Limit int
	// Before, when above 0, keeps messages whose id is below it: the
	// previous page, given the id of the oldest message of this one.
	Before int64
}

// Page is a result of List.
type Page struct {
	// Items are the messages, oldest first.
	Items []Message
	// More reports that older messages matching the request exist.
	More bool
}

// List returns messages of a conversation, oldest first: the newest Limit
// of those matching req. An unknown conversation is ErrUnknownConversation.
func (s *Store) List(ctx context.Context, conversationID string, req ListRequest) (Page, error) {
	if err := checkID("conversationId", conversationID, true); err != nil {
		return Page{}, fmt.Errorf("list %q: %w", conversationID, err)
	}
	if err := checkID("runId", req.RunID, false); err != nil {
		return Page{}, fmt.Errorf("list %q: %w", conversationID, err)
	}
	switch {
	case req.Limit < 0:
		return Page{}, fmt.Errorf("list %q: %w: limit %d is negative", conversationID, ErrInvalid, req.Limit)
	case req.Before < 0:
		return Page{}, fmt.Errorf("list %q: %w: before %d is negative", conversationID, ErrInvalid, req.Before)
	case req.Limit == 0:
		req.Limit = DefaultListLimit
	}
	req.Limit = min(req.Limit, maxListLimit)
	before := req.Before
	if before == 0 {
		before = 1<<63 - 1
	}
	page := Page{Items: []Message{}}
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, conversationID); err != nil {
			return err
		}
		q := `SELECT id, role, content, mode, coalesce(run_id, ''), coalesce(command, ''), created_at, tokens, step, coalesce(attempt, 0)
			FROM messages WHERE conversation_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3`
		if req.RunID != "" {
			q = `SELECT id, role, content, mode, coalesce(run_id, ''), coalesce(command, ''), created_at, tokens, step, coalesce(attempt, 0)
			FROM messages WHERE conversation_id = ?1 AND id < ?2 AND run_id = ?4 ORDER BY id DESC LIMIT ?3`
		}
		rows, err := tx.QueryContext(ctx, q, conversationID, before, req.Limit+1, req.RunID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m := Message{ConversationID: conversationID}
			var at int64
			var step sql.NullInt64
			if err := rows.Scan(&m.ID, &m.Role, &m.Content, &m.Mode, &m.RunID, &m.Command, &at, &m.Tokens, &step, &m.Attempt); err != nil {
				return err
			}
			if step.Valid {
				n := int(step.Int64)
				m.Step = &n
			}
			m.CreatedAt = fromMS(at)
			page.Items = append(page.Items, m)
		}
		return rows.Err()
	})
	if err != nil {
		return Page{}, fmt.Errorf("list %q: %w", conversationID, err)
	}
	if len(page.Items) > req.Limit {
		page.Items, page.More = page.Items[:req.Limit], true
	}
	reverse(page.Items)
	return page, nil
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func exists(ctx context.Context, tx *sql.Tx, conversationID string) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE conversation_id = ?`, conversationID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w %q", ErrUnknownConversation, conversationID)
	}
	return err
}

// Conversation summarizes one conversation.
type Conversation struct {
	ConversationID string `json:"conversationId"`
	// SessionID is the execution the conversation belongs to, if any.
	SessionID string    `json:"sessionId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// Messages is the number of messages, Tokens their total tokens.
	Messages int `json:"messages"`
	Tokens   int `json:"tokens"`
	// LastActivity is the time of the newest message (CreatedAt when
	// there is none).
	LastActivity time.Time `json:"lastActivity"`
}

// Conversations lists every conversation, most recently active first.
func (s *Store) Conversations(ctx context.Context) ([]Conversation, error) {
	out := []Conversation{}
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT conversation_id, coalesce(session_id, ''), created_at,
				message_count, tokens, coalesce(last_at, created_at) AS last
			FROM conversations ORDER BY last DESC, conversation_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c Conversation
			var created, last int64
			if err := rows.Scan(&c.ConversationID, &c.SessionID, &created, &c.Messages, &c.Tokens, &last); err != nil {
				return err
			}
			c.CreatedAt, c.LastActivity = fromMS(created), fromMS(last)
			out = append(out, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	return out, nil
}

// stat returns the summary of one conversation.
func (s *Store) stat(ctx context.Context, conversationID string) (Conversation, error) {
	c := Conversation{ConversationID: conversationID}
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		var created, last int64
		err := tx.QueryRowContext(ctx, `SELECT coalesce(session_id, ''), created_at, message_count, tokens,
				coalesce(last_at, created_at)
			FROM conversations WHERE conversation_id = ?`, conversationID).
			Scan(&c.SessionID, &created, &c.Messages, &c.Tokens, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w %q", ErrUnknownConversation, conversationID)
		}
		c.CreatedAt, c.LastActivity = fromMS(created), fromMS(last)
		return err
	})
	if err != nil {
		return Conversation{}, fmt.Errorf("stat %q: %w", conversationID, err)
	}
	return c, nil
}

// RequestDelete is the first step of deleting a conversation: it returns a
// random token bound to conversationID, valid once, in this process only,
// until expires.
func (s *Store) RequestDelete(ctx context.Context, conversationID string) (token string, expires time.Time, err error) {
	return s.tokens.Request(conversationID, func() error {
		_, err := s.stat(ctx, conversationID)
		return err
	})
}

// ConfirmDelete deletes the conversation and its messages when token is the
// one RequestDelete issued for it. A token is consumed by its first use.
func (s *Store) ConfirmDelete(ctx context.Context, conversationID, token string) error {
	if err := s.tokens.Consume(conversationID, token); err != nil {
		return fmt.Errorf("delete conversation %q: %w", conversationID, err)
	}
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM conversations WHERE conversation_id = ?`, conversationID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("%w %q", ErrUnknownConversation, conversationID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete conversation: %w", err)
	}
	return nil
}

// RunIDs returns the ids of the chain runs that added messages to the
// conversation, sorted.
func (s *Store) RunIDs(ctx context.Context, conversationID string) ([]string, error) {
	out := []string{}
	err := s.db.Read(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, conversationID); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT run_id FROM messages
			WHERE conversation_id = ? AND run_id IS NOT NULL AND run_id <> '' ORDER BY run_id`, conversationID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("runs of conversation %q: %w", conversationID, err)
	}
	return out, nil
}
