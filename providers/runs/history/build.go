package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Meta is a message without its content: what a Strategy selects on.
type Meta struct {
	ID        int64
	Role      string
	Mode      string
	RunID     string
	Command   string
	CreatedAt time.Time
	// Tokens is the measured token count of the content.
	Tokens int
	// Lines is the number of non-blank lines of the content, or -1 when
	// unknown (messages stored by an older ctxls).
	Lines int
	// BodyTokens is the tokens of the content as a formatter block holds it
	// whole (no blank lines, carriage returns or trailing spaces), or -1
	// when unknown or measured with another tokenizer than the store's.
	BodyTokens int
	// ShortTokens is, for a message of more than defaultMaxOutputLines
	// lines, the tokens of its body as the default formatter shortens it,
	// or -1 (a shorter message, or unknown like BodyTokens).
	ShortTokens int
}

// message returns m with content, for formatting.
func (m Meta) message(conversationID, content string) Message {
	return Message{ID: m.ID, ConversationID: conversationID, Role: m.Role, Content: content, Mode: m.Mode,
		RunID: m.RunID, Command: m.Command, CreatedAt: m.CreatedAt, Tokens: m.Tokens}
}

// Source yields the metadata of a conversation's messages, newest first.
type Source interface {
	// Next returns the next older message; ok is false at the end.
	Next(ctx context.Context) (m Meta, ok bool, err error)
}

// CostFunc returns the tokens a message takes in the formatted history.
type CostFunc func(ctx context.Context, m Meta) (int, error)

// A Strategy selects the messages that go into a history context.
type Strategy interface {
	// Select reads src (newest first) as far as it needs and returns the
	// selected messages, newest first.
	Select(ctx context.Context, src Source, cost CostFunc) ([]Meta, error)
	// Budget is the strategy's token budget, or 0 when it has none.
	Budget() int
}

// recent selects the newest N messages.
type recent struct{ N int }

// Select implements Strategy.
func (r recent) Select(ctx context.Context, src Source, _ CostFunc) ([]Meta, error) {
	if r.N <= 0 {
		return nil, fmt.Errorf("%w: recent strategy: maxMessages %d must be above 0", ErrInvalid, r.N)
	}
	var out []Meta
	for len(out) < r.N {
		m, ok, err := src.Next(ctx)
		if err != nil || !ok {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Budget implements Strategy.
func (recent) Budget() int { return 0 }

// tokenBudget selects as many of the newest messages as fit in Tokens,
// measured by their formatted cost. The newest message is always kept, and
// no message is split: selection stops at the first one that does not fit.
type tokenBudget struct{ Tokens int }

// Select implements Strategy.
func (t tokenBudget) Select(ctx context.Context, src Source, cost CostFunc) ([]Meta, error) {
	if t.Tokens <= 0 {
		return nil, fmt.Errorf("%w: tokenBudget strategy: budget %d must be above 0", ErrInvalid, t.Tokens)
	}
	var out []Meta
	used := 0
	for {
		m, ok, err := src.Next(ctx)
		if err != nil || !ok {
			return out, err
		}
		c, err := cost(ctx, m)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && used+c > t.Tokens {
			return out, nil
		}
		used += c
		out = append(out, m)
	}
}

// Budget implements Strategy.
func (t tokenBudget) Budget() int { return t.Tokens }

// A reader loads the content of selected messages.
type reader interface {
	// Read returns the messages of ms (any order) with their content, in
	// the order of ms.
	Read(ctx context.Context, conversationID string, ms []Meta) ([]Message, error)
}

// buildRequest says how to build a history context.
type buildRequest struct {
	// Strategy selects the messages; required.
	Strategy Strategy
	// Formatter renders them; nil means newLineFormatter(FormatOptions{}).
	Formatter Formatter
	// Reader loads their content; nil means the database.
	Reader reader
	// Model names the model the budget came from, for the log.
	Model string
	// Pending are messages taken as appended after the stored ones,
	// without storing them (see PromptRequest.Pending). They are checked
	// and measured as Append would; in the built context they have ids
	// below 0.
	Pending []Message
}

// Context is a built history context.
type Context struct {
	// Text is the formatted history, oldest message first.
	Text string `json:"text"`
	// Tokens is the token count of Text.
	Tokens int `json:"tokens"`
	// Selected is the number of messages in Text, Omitted the number of
	// the conversation's messages left out.
	Selected int `json:"selected"`
	Omitted  int `json:"omitted"`
	// Budget is the token budget applied, 0 for none.
	Budget int `json:"budget,omitempty"`
	// Messages are the selected messages, oldest first, with their whole
	// content (Fit shortens them further when a prompt overflows).
	Messages []Message `json:"-"`
	// Warnings say what the caller may want to know (unknown conversation,
	// a newest message alone above the budget).
	Warnings []string `json:"warnings"`
}

// buildContext builds the history context of a conversation: the strategy selects
// on metadata and measured costs, the reader loads the selected messages'
// content, the formatter renders them. An unknown conversation gives a
// context of req.Pending alone (empty without it) with a warning; an empty
// conversationID, allowed with req.Pending, one of req.Pending without.
func (s *Store) buildContext(ctx context.Context, conversationID string, req buildRequest) (Context, error) {
	if err := checkID("conversationId", conversationID, len(req.Pending) == 0); err != nil {
		return Context{}, fmt.Errorf("build history of %q: %w", conversationID, err)
	}
	if req.Strategy == nil {
		return Context{}, fmt.Errorf("build history of %q: %w: no strategy", conversationID, ErrInvalid)
	}
	if req.Formatter == nil {
		req.Formatter, _ = newLineFormatter(FormatOptions{})
	}
	pend := make([]pending, len(req.Pending))
	for i, m := range req.Pending {
		m.ConversationID = conversationID
		p, err := s.measure(m, conversationID != "")
		if err != nil {
			return Context{}, fmt.Errorf("build history of %q: pending message %d: %w", conversationID, i, err)
		}
		p.ID, p.CreatedAt = int64(-1-i), s.opts.Now().UTC()
		pend[i] = p
	}
	start := time.Now()
	var out Context
	var err error
	if conversationID == "" {
		out, err = s.build(ctx, nil, conversationID, 0, pend, req)
	} else {
		err = s.db.Read(ctx, func(tx *sql.Tx) error {
			st, err := s.statTx(ctx, tx, conversationID)
			if errors.Is(err, ErrUnknownConversation) && len(pend) > 0 {
				if out, err = s.build(ctx, nil, conversationID, 0, pend, req); err == nil {
					out.Warnings = append(out.Warnings, fmt.Sprintf("unknown conversation %q: no stored history", conversationID))
				}
				return err
			}
			if err != nil {
				return err
			}
			out, err = s.build(ctx, tx, conversationID, st.Messages, pend, req)
			return err
		})
	}
	if errors.Is(err, ErrUnknownConversation) {
		return Context{Messages: []Message{}, Warnings: []string{fmt.Sprintf("unknown conversation %q: no history", conversationID)}}, nil
	}
	if err != nil {
		return Context{}, fmt.Errorf("build history of %q: %w", conversationID, err)
	}
	s.log.Debug("history context built", "conversation", conversationID, "model", req.Model,
		"budget", out.Budget, "tokens", out.Tokens, "selected", out.Selected, "omitted", out.Omitted,
		"elapsed", time.Since(start))
	return out, nil
}

func (s *Store) statTx(ctx context.Context, tx *sql.Tx, conversationID string) (Conversation, error) {
	var c Conversation
	err := tx.QueryRowContext(ctx, `SELECT message_count FROM conversations WHERE conversation_id = ?`, conversationID).Scan(&c.Messages)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("%w %q", ErrUnknownConversation, conversationID)
	}
	return c, err
}

// build builds the history of a conversation from its stored messages (read
// in tx; none when tx is nil), total in number, and the pending messages
// after them.
func (s *Store) build(ctx context.Context, tx *sql.Tx, conversationID string, total int, pending []pending, req buildRequest) (Context, error) {
	rd := req.Reader
	if rd == nil {
		rd = dbReader{tx}
	}
	counter := s.counter()
	f := req.Formatter
	// Blocks measured while selecting, by message id, so that content read
	// and formatted to learn its cost is not read twice.
	blocks := map[int64]string{}
	msgs := map[int64]Message{}
	costs := map[int64]int{}
	// Pending messages come first, newest first, with their content at
	// hand.
	src := &pendingSource{}
	for i := len(pending) - 1; i >= 0; i-- {
		p := pending[i]
		msgs[p.ID] = p.Message
		src.metas = append(src.metas, p.meta())
	}
	if tx != nil {
		src.next = &dbSource{tx: tx, conversationID: conversationID, encoding: counter.Name(), before: 1<<63 - 1}
	}
	total += len(pending)
	// The stored body counts are of lineFormatter's blocks; another
	// formatter's blocks are measured.
	lf, _ := f.(*lineFormatter)
	headers := map[string]int{}
	cost := func(ctx context.Context, m Meta) (int, error) {
		if c, ok := costs[m.ID]; ok {
			return c, nil
		}
		if lf != nil {
			key := m.Role + "\x00" + m.Command
			h, ok := headers[key]
			if !ok {
				h = counter.Count(headerOf(Message{Role: m.Role, Command: m.Command}))
				headers[key] = h
			}
			if c, ok := lf.cost(m, h); ok {
				costs[m.ID] = c
				return c, nil
			}
		}
		msg, ok := msgs[m.ID]
		if !ok {
			ms, err := rd.Read(ctx, conversationID, []Meta{m})
			if err != nil {
				return 0, err
			}
			if len(ms) != 1 {
				return 0, fmt.Errorf("message %d vanished", m.ID)
			}
			msg = ms[0]
			msgs[m.ID] = msg
		}
		b := f.Format(msg)
		blocks[m.ID] = b
		costs[m.ID] = counter.Count(b)
		return costs[m.ID], nil
	}
	sel, err := req.Strategy.Select(ctx, src, cost)
	if err != nil {
		return Context{}, err
	}
	reverse(sel)

	var need []Meta
	for _, m := range sel {
		if _, ok := msgs[m.ID]; !ok {
			need = append(need, m)
		}
	}
	if len(need) > 0 {
		read, err := rd.Read(ctx, conversationID, need)
		if err != nil {
			return Context{}, err
		}
		for _, m := range read {
			msgs[m.ID] = m
		}
	}
	out := Context{Budget: req.Strategy.Budget(), Messages: make([]Message, 0, len(sel)), Warnings: []string{}}
	parts := make([]string, 0, len(sel))
	blockTokens := make([]int, 0, len(sel))
	for _, m := range sel {
		msg, read := msgs[m.ID]
		if !read {
			return Context{}, fmt.Errorf("read message %d: not found", m.ID)
		}
		c, ok := costs[m.ID]
		if !ok {
			// Selected without a cost (a strategy that does not ask).
			if c, err = cost(ctx, m); err != nil {
				return Context{}, err
			}
		}
		b, ok := blocks[m.ID]
		if !ok {
			b = f.Format(msg)
		}
		parts = append(parts, b)
		blockTokens = append(blockTokens, c)
		out.Messages = append(out.Messages, msg)
		out.Tokens += c
	}
	// A strategy may select more than its budget allows (one that does not
	// measure); the oldest messages go then.
	for out.Budget > 0 && out.Tokens > out.Budget && len(parts) > 1 {
		out.Tokens -= blockTokens[0]
		parts, blockTokens, out.Messages = parts[1:], blockTokens[1:], out.Messages[1:]
	}
	if out.Budget > 0 && out.Tokens > out.Budget {
		// The newest message alone is above the budget, which is a hard
		// limit: it is clipped to fit, its first and last lines kept, or
		// left out when not even its header fits.
		newest := out.Messages[0]
		text, n := clip(counter, headerOf(newest), contentLines(newest.Content), out.Budget)
		if n <= out.Budget {
			out.Warnings = append(out.Warnings, fmt.Sprintf("the newest message alone takes %d tokens, above the history budget of %d; it is clipped to %d tokens",
				out.Tokens, out.Budget, n))
			parts[0], out.Tokens = text, n
		} else {
			out.Warnings = append(out.Warnings, fmt.Sprintf("the newest message alone takes %d tokens, and %d clipped, above the history budget of %d; it is left out",
				out.Tokens, n, out.Budget))
			parts, out.Messages, out.Tokens = parts[:0], out.Messages[:0], 0
		}
	}
	out.Text = strings.Join(parts, "")
	out.Selected = len(parts)
	out.Omitted = max(total-out.Selected, 0)
	return out, nil
}

// pendingSource yields the metadata of pending messages, then what next
// yields.
type pendingSource struct {
	metas []Meta
	next  Source
}

func (p *pendingSource) Next(ctx context.Context) (Meta, bool, error) {
	if len(p.metas) > 0 {
		m := p.metas[0]
		p.metas = p.metas[1:]
		return m, true, nil
	}
	if p.next == nil {
		return Meta{}, false, nil
	}
	return p.next.Next(ctx)
}

// dbSource pages through the metadata index, newest first, leaving out the
// messages of a chain step's attempts that a later attempt superseded.
type dbSource struct {
	tx             *sql.Tx
	conversationID string
	encoding       string
	before         int64
	page           int
	buf            []Meta
	done           bool
}

// Pages of metadata start small, for the common short history, and grow.
const (
	firstSourcePage = 64
	maxSourcePage   = 4096
)

func (d *dbSource) Next(ctx context.Context) (Meta, bool, error) {
	if len(d.buf) == 0 {
		if d.done {
			return Meta{}, false, nil
		}
		if err := d.fill(ctx); err != nil {
			return Meta{}, false, err
		}
		if len(d.buf) == 0 {
			return Meta{}, false, nil
		}
	}
	m := d.buf[0]
	d.buf = d.buf[1:]
	return m, true, nil
}

func (d *dbSource) fill(ctx context.Context) error {
	d.page = min(max(2*d.page, firstSourcePage), maxSourcePage)
	rows, err := d.tx.QueryContext(ctx, `SELECT id, tokens, coalesce(lines, -1),
			CASE WHEN encoding = ?1 THEN coalesce(body_tokens, -1) ELSE -1 END,
			CASE WHEN encoding = ?1 THEN coalesce(short_tokens, -1) ELSE -1 END,
			role, mode, coalesce(command, ''), coalesce(run_id, ''), created_at
		FROM messages m WHERE conversation_id = ?2 AND id < ?3
			AND (step IS NULL OR NOT EXISTS (SELECT 1 FROM messages later
				WHERE later.conversation_id = m.conversation_id AND later.step = m.step AND later.attempt > m.attempt))
		ORDER BY id DESC LIMIT ?4`,
		d.encoding, d.conversationID, d.before, d.page)
	if err != nil {
		return fmt.Errorf("read message metadata: %w", err)
	}
	defer rows.Close()
	d.buf = d.buf[:0]
	for rows.Next() {
		var m Meta
		var at int64
		if err := rows.Scan(&m.ID, &m.Tokens, &m.Lines, &m.BodyTokens, &m.ShortTokens, &m.Role, &m.Mode, &m.Command, &m.RunID, &at); err != nil {
			return fmt.Errorf("read message metadata: %w", err)
		}
		m.CreatedAt = fromMS(at)
		d.buf = append(d.buf, m)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read message metadata: %w", err)
	}
	if len(d.buf) < d.page {
		d.done = true
	}
	if len(d.buf) > 0 {
		d.before = d.buf[len(d.buf)-1].ID
	}
	return nil
}

// dbReader reads content from the database inside the build's transaction.
type dbReader struct{ tx *sql.Tx }

// Read reads the id range that spans ms (a selection is usually the newest
// run of messages, so the range holds little else) and keeps the wanted ids.
func (r dbReader) Read(ctx context.Context, conversationID string, ms []Meta) ([]Message, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	lo, hi := ms[0].ID, ms[0].ID
	want := make(map[int64]int, len(ms))
	for i, m := range ms {
		lo, hi = min(lo, m.ID), max(hi, m.ID)
		want[m.ID] = i
	}
	rows, err := r.tx.QueryContext(ctx, `SELECT id, content FROM messages
		WHERE conversation_id = ? AND id BETWEEN ? AND ?`, conversationID, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	defer rows.Close()
	out := make([]Message, len(ms))
	found := 0
	for rows.Next() {
		var id int64
		var content string
		if err := rows.Scan(&id, &content); err != nil {
			return nil, fmt.Errorf("read messages: %w", err)
		}
		i, ok := want[id]
		if !ok {
			continue
		}
		out[i] = ms[i].message(conversationID, content)
		found++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	if found != len(ms) {
		return nil, fmt.Errorf("read messages: %d of %d found", found, len(ms))
	}
	return out, nil
}
