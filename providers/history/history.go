// Package history stores conversation messages in the workspace database and
// builds the history part of a prompt from them.
//
// Messages are append-only and carry their measured token cost. Building the
// history context has three replaceable layers: a Strategy selects messages
// from their metadata (newest N, or as many of the newest as fit a token
// budget), a Reader loads the content of the selected ones only, and a
// Formatter renders them. Fit then makes a whole prompt fit a model's
// context window by cutting history, never the system text or the latest
// request. Truncation only ever applies to prompt text; stored messages are
// never shortened.
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/confirm"
	"github.com/ctxls/ctxls/providers/storage"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Roles of a message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Modes of a message: a chat exchange, a chain run step, or an agent turn.
const (
	ModeChat  = "chat"
	ModeRun   = "run"
	ModeAgent = "agent"
)

// DefaultMaxContentBytes is the largest content Append accepts by default.
const DefaultMaxContentBytes = 4 << 20

// maxIDBytes bounds conversation, run and command identifiers.
const maxIDBytes = 256

// Errors.
var (
	// ErrInvalid: a message or request with a bad field; the error says
	// which and why.
	ErrInvalid = errors.New("invalid history request")
	// ErrBinary: content that is not UTF-8 text.
	ErrBinary = errors.New("content is binary, not UTF-8 text")
	// ErrTooLarge: content above the store's size limit.
	ErrTooLarge = errors.New("content too large")
	// ErrUnknownConversation: no conversation with that id.
	ErrUnknownConversation = errors.New("unknown conversation")
	// ErrInvalidToken: a delete confirmation token that was not issued for
	// the conversation, was used already, or expired.
	ErrInvalidToken = confirm.ErrInvalidToken
)

// Message is one persisted message of a conversation.
type Message struct {
	ID             int64     `json:"id"`
	ConversationID string    `json:"conversationId"`
	Role           string    `json:"role"`
	Content        string    `json:"content"`
	Mode           string    `json:"mode"`
	RunID          string    `json:"runId,omitempty"`
	Command        string    `json:"command,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	// Tokens is the measured token count of Content.
	Tokens int `json:"tokens"`
}

// Options configure a Store.
type Options struct {
	// MaxContentBytes is the largest content Append accepts;
	// 0 means DefaultMaxContentBytes.
	MaxContentBytes int
	// DeleteTokenTTL is how long a delete confirmation token stays valid;
	// 0 means confirm.DefaultTTL.
	DeleteTokenTTL time.Duration
	// Logger receives the effective budgets of builds; nil discards.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Store is the conversation history of one database. It is safe for
// concurrent use; several processes may share the database.
type Store struct {
	db      *storage.DB
	counter tokens.Counter
	opts    Options
	log     *slog.Logger
	tokens  *confirm.Tokens
}

// Open returns the history store of db, measuring tokens with counter.
func Open(db *storage.DB, counter tokens.Counter) *Store {
	return New(db, counter, Options{})
}

// New is Open with options.
func New(db *storage.DB, counter tokens.Counter, opts Options) *Store {
	if opts.MaxContentBytes <= 0 {
		opts.MaxContentBytes = DefaultMaxContentBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{
		db:      db,
		counter: counter,
		opts:    opts,
		log:     log,
		tokens:  confirm.New(opts.DeleteTokenTTL, opts.Now),
	}
}

// Counter returns the token counter of the store.
func (s *Store) Counter() tokens.Counter { return s.counter }

// Append stores m at the end of its conversation, creating the conversation
// when it is new (bound to the execution of the same id, when there is one).
// It measures the content's tokens and returns the stored message with its
// id, time and tokens. Mode defaults to chat. Content that is not UTF-8
// text, or larger than the store's limit, is refused and nothing is stored.
func (s *Store) Append(ctx context.Context, m Message) (Message, error) {
	if m.Mode == "" {
		m.Mode = ModeChat
	}
	if err := s.validate(m); err != nil {
		return Message{}, fmt.Errorf("append to %q: %w", m.ConversationID, err)
	}
	m.Tokens = s.counter.Count(m.Content)
	lines := countLines(m.Content)
	now := s.opts.Now()
	m.CreatedAt = time.UnixMilli(now.UnixMilli()).UTC()
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations (conversation_id, session_id, created_at)
			VALUES (?1, (SELECT session_id FROM executions WHERE session_id = ?1), ?2)
			ON CONFLICT (conversation_id) DO NOTHING`, m.ConversationID, now.UnixMilli()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `INSERT INTO messages (conversation_id, role, content, mode, run_id, command, created_at, tokens, lines)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			m.ConversationID, m.Role, m.Content, m.Mode, nullable(m.RunID), nullable(m.Command),
			now.UnixMilli(), m.Tokens, lines).Scan(&m.ID)
	})
	if err != nil {
		return Message{}, fmt.Errorf("append to %q: %w", m.ConversationID, err)
	}
	return m, nil
}

func (s *Store) validate(m Message) error {
	if err := checkID("conversationId", m.ConversationID, true); err != nil {
		return err
	}
	switch m.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	default:
		return fmt.Errorf("%w: role %q is not system, user, assistant or tool", ErrInvalid, m.Role)
	}
	switch m.Mode {
	case ModeChat, ModeRun, ModeAgent:
	default:
		return fmt.Errorf("%w: mode %q is not chat, run or agent", ErrInvalid, m.Mode)
	}
	if err := checkID("runId", m.RunID, false); err != nil {
		return err
	}
	if err := checkID("command", m.Command, false); err != nil {
		return err
	}
	if len(m.Content) > s.opts.MaxContentBytes {
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(m.Content), s.opts.MaxContentBytes)
	}
	if !utf8.ValidString(m.Content) || strings.IndexByte(m.Content, 0) >= 0 {
		return ErrBinary
	}
	return nil
}

func checkID(field, v string, required bool) error {
	switch {
	case v == "" && required:
		return fmt.Errorf("%w: %s is required", ErrInvalid, field)
	case len(v) > maxIDBytes:
		return fmt.Errorf("%w: %s is %d bytes long, the limit is %d", ErrInvalid, field, len(v), maxIDBytes)
	case !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%w: %s %q holds control characters or invalid UTF-8", ErrInvalid, field, v)
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// countLines counts the lines of text that are not blank.
func countLines(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n
}

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }
