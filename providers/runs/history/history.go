// Package history stores conversation messages in the workspace database and
// builds the history part of a prompt from them.
//
// Messages are append-only and carry their measured token cost. Building the
// history context has three replaceable layers: a Strategy selects messages
// from their metadata (newest N, or as many of the newest as fit a token
// budget), a reader loads the content of the selected ones only, and a
// Formatter renders them. Fit then makes a whole prompt fit a model's
// context window by cutting history, never the system text or the latest
// request. Truncation only ever applies to prompt text; stored messages are
// never shortened.
package history

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/runs/internal/confirm"
	"github.com/ctxls/ctxls/providers/runs/storage"
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

// defaultMaxContentBytes is the largest content Append accepts by default.
const defaultMaxContentBytes = 4 << 20

// maxIDBytes bounds conversation, run and command identifiers.
const maxIDBytes = 256

// Errors.
var (
	// ErrInvalid: a message or request with a bad field; the error says
	// which and why.
	ErrInvalid = errkind.New(errkind.Invalid, "invalid history request")
	// ErrBinary: content that is not UTF-8 text.
	ErrBinary = errkind.New(errkind.Invalid, "content is binary, not UTF-8 text")
	// ErrTooLarge: content above the store's size limit.
	ErrTooLarge = errkind.New(errkind.Invalid, "content too large")
	// ErrUnknownConversation: no conversation with that id.
	ErrUnknownConversation = errkind.New(errkind.NotFound, "unknown conversation")
	// ErrInvalidToken: a delete confirmation token that was not issued for
	// the conversation, was used already, or expired.
	ErrInvalidToken = confirm.ErrInvalidToken
)

// Message is one persisted message of a conversation.
//
// Step and Attempt place a chain step's message: the 0-based step of the
// execution and its attempt, from 1 (nil and 0 for other messages). An
// attempt stores one message per role, and a later attempt's messages
// supersede an earlier one's in built histories.
type Message struct {
	ID             int64     `json:"id"`
	ConversationID string    `json:"conversationId"`
	Role           string    `json:"role"`
	Content        string    `json:"content"`
	Mode           string    `json:"mode"`
	RunID          string    `json:"runId,omitempty"`
	Command        string    `json:"command,omitempty"`
	Step           *int      `json:"step,omitempty"`
	Attempt        int       `json:"attempt,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	// Tokens is the measured token count of Content.
	Tokens int `json:"tokens"`
}

// Options configure a Store.
type Options struct {
	// MaxContentBytes is the largest content Append accepts;
	// 0 means defaultMaxContentBytes.
	MaxContentBytes int
	// DeleteTokenTTL is how long a delete confirmation token stays valid;
	// 0 means five minutes.
	DeleteTokenTTL time.Duration
	// Logger receives the effective budgets of builds; nil discards.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Store is the conversation history of one database. It is safe for
// concurrent use; several processes may share the database.
type Store struct {
	db *storage.DB
	// counter returns the tokenizer in effect, read once per operation,
	// so that a changed setting applies from the next one on.
	counter func() tokens.Counter
	opts    Options
	log     *slog.Logger
	tokens  *confirm.Tokens

	// The append queue: requests waiting for the running group commit.
	qmu        sync.Mutex
	queue      []*appendReq
	committing bool

	// writer commits appends with their statements prepared once:
	// compiling them (the messages insert fires a trigger and maintains
	// indexes) costs more than running them.
	writer *storage.Writer
}

// Open returns the history store of db, measuring tokens with counter.
func Open(db *storage.DB, counter tokens.Counter) *Store {
	return New(db, func() tokens.Counter { return counter }, Options{})
}

// New returns the history store of db, measuring tokens with the counter
// that counter returns at each operation: a workspace passes the counter of
// its current configuration.
func New(db *storage.DB, counter func() tokens.Counter, opts Options) *Store {
	if opts.MaxContentBytes <= 0 {
		opts.MaxContentBytes = defaultMaxContentBytes
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
		writer:  db.Writer(convSQL, insSQL),
	}
}

// Append stores m at the end of its conversation, creating the conversation
// when it is new (bound to the execution of the same id, when there is one).
// It measures the content's tokens and returns the stored message with its
// id, time and tokens. Mode defaults to chat. Content that is not UTF-8
// text, or larger than the store's limit, is refused and nothing is stored.
//
// The message is durable when Append returns. Appends that arrive while
// another is being committed are committed together, in one transaction,
// which is what lets many concurrent writers share the cost of a synced
// commit.
func (s *Store) Append(ctx context.Context, m Message) (Message, error) {
	out, err := s.AppendAll(ctx, []Message{m})
	if err != nil {
		return Message{}, err
	}
	return out[0], nil
}

// AppendAll appends messages in order, in one transaction: all are stored or
// none is. A chain step's message whose attempt already stored one of its
// role is not stored again: the stored one is returned instead.
func (s *Store) AppendAll(ctx context.Context, ms []Message) ([]Message, error) {
	r := &appendReq{msgs: make([]pending, len(ms)), wake: make(chan struct{})}
	for i, m := range ms {
		p, err := s.prepare(m)
		if err != nil {
			return nil, fmt.Errorf("append to %q: %w", m.ConversationID, err)
		}
		r.msgs[i] = p
	}
	if len(ms) == 0 {
		return []Message{}, nil
	}
	s.commit(ctx, r)
	if r.err != nil {
		return nil, fmt.Errorf("append to %q: %w", ms[0].ConversationID, r.err)
	}
	out := make([]Message, len(r.msgs))
	for i, p := range r.msgs {
		out[i] = p.Message
	}
	return out, nil
}

// pending is a message measured and ready to insert.
type pending struct {
	Message
	lines, bodyTokens int
	shortTokens       any    // int, or nil for a message the default formatter keeps whole
	encoding          string // the tokenizer that measured it
}

// meta returns the metadata of p as the database holds it.
func (p pending) meta() Meta {
	short := -1
	if n, ok := p.shortTokens.(int); ok {
		short = n
	}
	return Meta{ID: p.ID, Role: p.Role, Mode: p.Mode, RunID: p.RunID, Command: p.Command, CreatedAt: p.CreatedAt,
		Tokens: p.Tokens, Lines: p.lines, BodyTokens: p.bodyTokens, ShortTokens: short}
}

// appendReq is one caller's messages waiting for a commit.
type appendReq struct {
	msgs []pending
	err  error
	// wake is closed when the messages are committed (err says how), or,
	// with lead set, when the caller is to commit the queue itself.
	wake chan struct{}
	lead bool
}

func (s *Store) prepare(m Message) (pending, error) {
	return s.measure(m, true)
}

// measure checks m (its conversation id only when conversation is set) and
// measures it as Append stores it: without terminal escape sequences.
func (s *Store) measure(m Message, conversation bool) (pending, error) {
	if m.Mode == "" {
		m.Mode = ModeChat
	}
	m.Content = stripANSI(m.Content)
	if err := s.validate(m, conversation); err != nil {
		return pending{}, err
	}
	lines := contentLines(m.Content)
	p := pending{Message: m, lines: len(lines)}
	c := s.counter()
	p.encoding = c.Name()
	p.Tokens = c.Count(m.Content)
	p.bodyTokens = c.Count(body(lines))
	if len(lines) > defaultMaxOutputLines {
		p.shortTokens = c.Count(defaultFormatter.body(lines))
	}
	return p, nil
}

// commit stores r's messages, durably, before it returns. Requests queue;
// one caller at a time is the committer: it takes the whole queue, commits
// it in one transaction, and hands the role to the first request queued
// meanwhile, so that no caller commits more than one batch and concurrent
// appends share the cost of a synced commit.
func (s *Store) commit(ctx context.Context, r *appendReq) {
	s.qmu.Lock()
	s.queue = append(s.queue, r)
	if s.committing {
		s.qmu.Unlock()
		<-r.wake
		if !r.lead {
			return
		}
	} else {
		s.committing = true
		s.qmu.Unlock()
	}
	s.qmu.Lock()
	batch := s.queue
	s.queue = nil
	s.qmu.Unlock()
	// The batch runs detached from the committer's cancellation: the other
	// callers' messages must not fail with it.
	bctx := context.WithoutCancel(ctx)
	if err := s.insert(bctx, batch); err != nil && len(batch) > 1 {
		// One request's failure must not fail the others.
		for _, q := range batch {
			q.err = s.insert(bctx, []*appendReq{q})
		}
	} else {
		for _, q := range batch {
			q.err = err
		}
	}
	s.qmu.Lock()
	if len(s.queue) > 0 {
		next := s.queue[0]
		next.lead = true
		close(next.wake)
	} else {
		s.committing = false
	}
	s.qmu.Unlock()
	for _, q := range batch {
		if q != r {
			close(q.wake)
		}
	}
}

func (s *Store) insert(ctx context.Context, batch []*appendReq) error {
	now := s.opts.Now()
	at := now.UnixMilli()
	return s.writer.Write(ctx, func(tx *storage.WriteTx) error {
		conv, ins := tx.Stmt(convQuery), tx.Stmt(insQuery)
		seen := map[string]bool{}
		for _, q := range batch {
			for i := range q.msgs {
				m := &q.msgs[i]
				if !seen[m.ConversationID] {
					if _, err := conv.ExecContext(ctx, m.ConversationID, at); err != nil {
						return err
					}
					seen[m.ConversationID] = true
				}
				var step, attempt any
				if m.Step != nil {
					step, attempt = *m.Step, m.Attempt
				}
				res, err := ins.ExecContext(ctx, m.ConversationID, m.Role, m.Content, m.Mode, nullable(m.RunID),
					nullable(m.Command), at, m.Tokens, m.lines, m.bodyTokens, m.shortTokens, m.encoding, step, attempt)
				if err != nil {
					return err
				}
				n, err := res.RowsAffected()
				if err != nil {
					return err
				}
				if n == 0 {
					// The attempt stored its message of this role already.
					var created int64
					err = tx.QueryRowContext(ctx, `SELECT id, content, tokens, created_at FROM messages
						WHERE conversation_id = ? AND step = ? AND attempt = ? AND role = ?`,
						m.ConversationID, step, attempt, m.Role).Scan(&m.ID, &m.Content, &m.Tokens, &created)
					m.CreatedAt = fromMS(created)
					if err != nil {
						return err
					}
					continue
				}
				if m.ID, err = res.LastInsertId(); err != nil {
					return err
				}
				m.CreatedAt = fromMS(at)
			}
		}
		return nil
	})
}

// The queries of the store's writer, and their indexes in its list.
const (
	convQuery = iota
	insQuery
)

const (
	// convSQL creates the conversation of a message, bound to the
	// execution of the same id when there is one. It runs for every
	// commit, not only for conversations new to this store: another
	// process may have deleted the conversation since.
	convSQL = `INSERT INTO conversations (conversation_id, session_id, created_at)
		VALUES (?1, (SELECT session_id FROM executions WHERE session_id = ?1), ?2)
		ON CONFLICT (conversation_id) DO NOTHING`
	// insSQL stores a message; the store reads its id from the result
	// rather than with RETURNING, which costs more. A chain step's message
	// already stored by its attempt changes no row.
	insSQL = `INSERT INTO messages (conversation_id, role, content, mode, run_id, command,
			created_at, tokens, lines, body_tokens, short_tokens, encoding, step, attempt)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (conversation_id, step, attempt, role) WHERE step IS NOT NULL DO NOTHING`
)

func (s *Store) validate(m Message, conversation bool) error {
	if err := checkID("conversationId", m.ConversationID, conversation); err != nil {
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
	switch {
	case m.Step == nil && m.Attempt != 0:
		return fmt.Errorf("%w: attempt %d without a step", ErrInvalid, m.Attempt)
	case m.Step != nil && *m.Step < 0:
		return fmt.Errorf("%w: step %d is negative", ErrInvalid, *m.Step)
	case m.Step != nil && m.Attempt < 1:
		return fmt.Errorf("%w: step %d needs an attempt from 1, not %d", ErrInvalid, *m.Step, m.Attempt)
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

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }
