package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/tokens"
)

func TestAppendAndList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	start := time.Now().Add(-time.Second)
	a := mustAppend(t, s, Message{ConversationID: "c1", Role: RoleUser, Content: "Plan the login page.", Mode: ModeRun, RunID: "r1", Command: "brainstorm"})
	b := mustAppend(t, s, Message{ConversationID: "c1", Role: RoleAssistant, Content: "1. form\n2. validation", Mode: ModeRun, RunID: "r1", Command: "brainstorm"})
	c := mustAppend(t, s, Message{ConversationID: "c1", Role: RoleUser, Content: "Now implement it.", RunID: "r2"})
	if !(a.ID < b.ID && b.ID < c.ID) {
		t.Fatalf("ids not increasing: %d %d %d", a.ID, b.ID, c.ID)
	}
	if want := counter(t).Count(b.Content); b.Tokens != want || want == 0 {
		t.Errorf("tokens %d, want %d", b.Tokens, want)
	}
	if c.Mode != ModeChat {
		t.Errorf("default mode %q, want chat", c.Mode)
	}
	if a.CreatedAt.Before(start) {
		t.Errorf("createdAt %v before the test started", a.CreatedAt)
	}

	p, err := s.List(ctx, "c1", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 3 || p.Items[0].ID != a.ID || p.Items[2].ID != c.ID || p.More {
		t.Fatalf("list: %+v", p)
	}
	if p.Items[1] != b {
		t.Errorf("listed %+v, appended %+v", p.Items[1], b)
	}
	p, err = s.List(ctx, "c1", ListRequest{RunID: "r1"})
	if err != nil || len(p.Items) != 2 || p.Items[1].ID != b.ID {
		t.Fatalf("list run r1: %+v, %v", p, err)
	}
	p, err = s.List(ctx, "c1", ListRequest{Limit: 1})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != c.ID || !p.More {
		t.Fatalf("list limit 1: %+v, %v", p, err)
	}
	p, err = s.List(ctx, "c1", ListRequest{Limit: 5, Before: c.ID})
	if err != nil || len(p.Items) != 2 || p.Items[0].ID != a.ID || p.More {
		t.Fatalf("list before: %+v, %v", p, err)
	}
	if _, err := s.List(ctx, "nope", ListRequest{}); !errors.Is(err, ErrUnknownConversation) {
		t.Errorf("unknown conversation: %v", err)
	}

	cs, err := s.Conversations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Messages != 3 || cs[0].Tokens != a.Tokens+b.Tokens+c.Tokens || cs[0].LastActivity.Before(a.CreatedAt) {
		t.Fatalf("conversations: %+v", cs)
	}
}

func TestAppendBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db, _ := openStore(t)
	s = New(db, fixed(counter(t)), Options{MaxContentBytes: 1 << 20})
	ok := Message{ConversationID: "c", Role: RoleUser, Content: "fine"}
	// In turn: the check after the loop must follow every refused append.
	for _, c := range []struct {
		name string
		edit func(*Message)
		want error
	}{
		{"no conversation", func(m *Message) { m.ConversationID = "" }, ErrInvalid},
		{"conversation id too long", func(m *Message) { m.ConversationID = strings.Repeat("x", 300) }, ErrInvalid},
		{"control characters in id", func(m *Message) { m.ConversationID = "a\nb" }, ErrInvalid},
		{"bad role", func(m *Message) { m.Role = "robot" }, ErrInvalid},
		{"no role", func(m *Message) { m.Role = "" }, ErrInvalid},
		{"bad mode", func(m *Message) { m.Mode = "batch" }, ErrInvalid},
		{"binary content", func(m *Message) { m.Content = "PNG\x00\x01\x02" }, ErrBinary},
		{"invalid UTF-8", func(m *Message) { m.Content = "caf\xe9" }, ErrBinary},
		{"megabytes", func(m *Message) { m.Content = strings.Repeat("a", 3<<20) }, ErrTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := ok
			c.edit(&m)
			if _, err := s.Append(ctx, m); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
	// Nothing was stored, not even a conversation.
	cs, err := s.Conversations(ctx)
	if err != nil || len(cs) != 0 {
		t.Fatalf("after refused appends: %+v, %v", cs, err)
	}
	// Just below the limit is stored whole.
	m := ok
	m.Content = strings.Repeat("word ", (1<<20)/5)
	got := mustAppend(t, s, m)
	p, err := s.List(ctx, "c", ListRequest{})
	if err != nil || len(p.Items) != 1 || p.Items[0].Content != m.Content || got.Tokens < 100000 {
		t.Fatalf("large message: %d items, tokens %d, %v", len(p.Items), got.Tokens, err)
	}
}

func TestListBadInput(t *testing.T) {
	t.Parallel()
	s, _, _ := openStore(t)
	mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: "x"})
	for _, req := range []ListRequest{{Limit: -1}, {Before: -3}, {RunID: "a\x00b"}} {
		if _, err := s.List(context.Background(), "c", req); !errors.Is(err, ErrInvalid) {
			t.Errorf("list %+v: %v, want ErrInvalid", req, err)
		}
	}
	p, err := s.List(context.Background(), "c", ListRequest{Limit: 1 << 30})
	if err != nil || len(p.Items) != 1 {
		t.Errorf("huge limit: %+v, %v", p, err)
	}
}

// Everything survives closing and reopening the database: the store keeps
// nothing in memory that the database does not have.
func TestPersistenceAcrossReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db, path := openStore(t)
	msgs := seed(t, s, "c", 40, func(i int) int { return 1 + i%25 })
	before, err := s.buildContext(ctx, "c", buildRequest{Strategy: tokenBudget{Tokens: 500}})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s2, _ := openPath(t, path)
	p, err := s2.List(ctx, "c", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != len(msgs) {
		t.Fatalf("%d messages after reopen, want %d", len(p.Items), len(msgs))
	}
	for i := range msgs {
		if p.Items[i] != msgs[i] {
			t.Fatalf("message %d after reopen %+v, want %+v", i, p.Items[i], msgs[i])
		}
	}
	after, err := s2.buildContext(ctx, "c", buildRequest{Strategy: tokenBudget{Tokens: 500}})
	if err != nil {
		t.Fatal(err)
	}
	if after.Text != before.Text || after.Selected != before.Selected {
		t.Errorf("build differs after reopen: %d vs %d selected", after.Selected, before.Selected)
	}
	// Appends go on after the last id.
	m := mustAppend(t, s2, Message{ConversationID: "c", Role: RoleUser, Content: "again"})
	if m.ID <= msgs[len(msgs)-1].ID {
		t.Errorf("id %d after reopen is not above %d", m.ID, msgs[len(msgs)-1].ID)
	}
}

// Messages stored before line counts were recorded are measured from their
// content.
func TestBuildMessagesWithoutLineCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db, _ := openStore(t)
	mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: "first"})
	long := strings.Repeat("old tool output line\n", 300)
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO messages (conversation_id, role, content, mode, created_at, tokens)
		VALUES ('c', 'tool', ?, 'run', 1, ?)`, long, counter(t).Count(long)); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: "last"})
	h, err := s.buildContext(ctx, "c", buildRequest{Strategy: tokenBudget{Tokens: 300}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Selected != 3 || !strings.Contains(h.Text, "(280 lines omitted)") {
		t.Fatalf("selected %d:\n%s", h.Selected, h.Text)
	}
}

func TestDeleteTwoSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s, db, _ := openStore(t)
	s = New(db, fixed(counter(t)), Options{DeleteTokenTTL: time.Minute, Now: func() time.Time { return now }})
	mustAppend(t, s, Message{ConversationID: "a", Role: RoleUser, Content: "x"})
	mustAppend(t, s, Message{ConversationID: "b", Role: RoleUser, Content: "y"})

	if _, _, err := s.RequestDelete(ctx, "nope"); !errors.Is(err, ErrUnknownConversation) {
		t.Errorf("request delete of an unknown conversation: %v", err)
	}
	tok, exp, err := s.RequestDelete(ctx, "a")
	if err != nil || tok == "" || !exp.Equal(now.Add(time.Minute)) {
		t.Fatalf("request: %q %v %v", tok, exp, err)
	}
	if err := s.ConfirmDelete(ctx, "b", tok); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("token of a used on b: %v", err)
	}
	tok, _, _ = s.RequestDelete(ctx, "a")
	now = now.Add(2 * time.Minute)
	if err := s.ConfirmDelete(ctx, "a", tok); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("expired token: %v", err)
	}
	tok, _, _ = s.RequestDelete(ctx, "a")
	if err := s.ConfirmDelete(ctx, "a", tok); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, "a", ListRequest{}); !errors.Is(err, ErrUnknownConversation) {
		t.Errorf("deleted conversation still listed: %v", err)
	}
	var n int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE conversation_id = 'a'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d messages left, %v", n, err)
	}
	if p, err := s.List(ctx, "b", ListRequest{}); err != nil || len(p.Items) != 1 {
		t.Errorf("other conversation touched: %+v %v", p, err)
	}
	if err := s.ConfirmDelete(ctx, "a", tok); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("replayed token: %v", err)
	}
}

// The conversation of an execution is bound to it and goes with it.
func TestExecutionConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db, _ := openStore(t)
	es, err := execution.New(ctx, db, execution.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	e, err := es.Create(ctx, "proj", "go")
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, Message{ConversationID: e.ConversationID, Role: RoleUser, Content: "step prompt", Mode: ModeRun, RunID: "r", Command: "implement"})
	c, err := s.stat(ctx, e.ConversationID)
	if err != nil || c.SessionID != e.SessionID || c.Messages != 1 {
		t.Fatalf("stat: %+v %v", c, err)
	}
	// A new execution appended to before any history row existed is bound too.
	_, err = db.SQL().ExecContext(ctx, `DELETE FROM conversations WHERE conversation_id = ?`, e.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, Message{ConversationID: e.ConversationID, Role: RoleUser, Content: "again"})
	if c, err := s.stat(ctx, e.ConversationID); err != nil || c.SessionID != e.SessionID {
		t.Fatalf("re-created conversation not bound: %+v %v", c, err)
	}
}

func TestBudgetFor(t *testing.T) {
	t.Parallel()
	cfg, problems := config.Parse([]byte("models:\n  small: {contextWindow: 8192, historyShare: 0.5}\n  big: {contextWindow: 200000}\ndefaultModel: big\n"))
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	for _, c := range []struct {
		cfg     *config.Config
		model   string
		want    ModelBudget
		wantErr bool
	}{
		{cfg, "small", ModelBudget{Model: "small", Window: 8192, History: 4096}, false},
		{cfg, "", ModelBudget{Model: "big", Window: 200000, History: 50000}, false},
		{cfg, "huge", ModelBudget{}, true},
		{config.Default(), "", ModelBudget{Model: fallbackModel, Window: fallbackContextWindow, History: fallbackContextWindow / 4, Fallback: true}, false},
		{config.Default(), "small", ModelBudget{}, true},
	} {
		got, err := BudgetFor(c.cfg, c.model)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("BudgetFor(%q) = %+v, %v; want %+v (error %v)", c.model, got, err, c.want, c.wantErr)
		}
	}
}

// A history budget that is not below the model's window is rejected by the
// configuration with a message that says so.
func TestConfigRejectsHistoryBudgetAtWindow(t *testing.T) {
	t.Parallel()
	for _, y := range []string{
		"models:\n  m: {contextWindow: 8192, historyShare: 1}\n",
		"models:\n  m: {contextWindow: 8192, historyTokens: 8192}\n",
		"models:\n  m: {contextWindow: 8192, historyTokens: 9000}\n",
	} {
		cfg, problems := config.Parse([]byte(y))
		if len(problems) == 0 || !strings.Contains(problems[0].Message, "window") {
			t.Errorf("%q: problems %v, want one about the window", y, problems)
		}
		if _, err := BudgetFor(cfg, "m"); err == nil {
			t.Errorf("%q: the rejected model is still usable", y)
		}
	}
}

func TestNewStrategy(t *testing.T) {
	t.Parallel()
	b := ModelBudget{Model: "m", Window: 8192, History: 2048}
	ip := func(v int) *int { return &v }
	for _, c := range []struct {
		spec    StrategySpec
		want    Strategy
		warn    bool
		wantErr bool
	}{
		{StrategySpec{}, tokenBudget{2048}, false, false},
		{StrategySpec{Kind: KindTokenBudget, TokenBudget: ip(1000)}, tokenBudget{1000}, false, false},
		{StrategySpec{Kind: KindTokenBudget, TokenBudget: ip(9000)}, tokenBudget{2048}, true, false},
		{StrategySpec{Kind: KindTokenBudget, TokenBudget: ip(0)}, nil, false, true},
		{StrategySpec{Kind: KindTokenBudget, TokenBudget: ip(-1)}, nil, false, true},
		{StrategySpec{Kind: KindRecent, MaxMessages: ip(4)}, recent{4}, false, false},
		{StrategySpec{Kind: KindRecent}, nil, false, true},
		{StrategySpec{Kind: KindRecent, MaxMessages: ip(0)}, nil, false, true},
		{StrategySpec{Kind: "oldest"}, nil, false, true},
	} {
		got, warnings, err := NewStrategy(c.spec, b)
		if (err != nil) != c.wantErr || got != c.want || (len(warnings) > 0) != c.warn {
			t.Errorf("NewStrategy(%+v) = %v, %v, %v", c.spec, got, warnings, err)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("error %v does not wrap ErrInvalid", err)
		}
	}
}

// Concurrent appends share commits; every message is stored once, and each
// writer's messages keep their order.
func TestConcurrentAppends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	const writers, each = 8, 40
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			for i := range each {
				_, err := s.Append(ctx, Message{ConversationID: "c", Role: RoleUser, Content: fmt.Sprintf("w%d-%03d", w, i)})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.List(ctx, "c", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != writers*each {
		t.Fatalf("%d messages, want %d", len(p.Items), writers*each)
	}
	last := map[string]string{}
	for _, m := range p.Items {
		w, _, _ := strings.Cut(m.Content, "-")
		if m.Content <= last[w] {
			t.Fatalf("%s stored after %s", m.Content, last[w])
		}
		last[w] = m.Content
	}
	c, err := s.stat(ctx, "c")
	if err != nil || c.Messages != writers*each {
		t.Fatalf("stat %+v %v", c, err)
	}
}

func TestAppendAllIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	_, err := s.AppendAll(ctx, []Message{
		{ConversationID: "c", Role: RoleUser, Content: "prompt"},
		{ConversationID: "c", Role: "robot", Content: "result"},
	})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err %v, want ErrInvalid", err)
	}
	if _, err := s.stat(ctx, "c"); !errors.Is(err, ErrUnknownConversation) {
		t.Fatalf("part of a refused batch was stored: %v", err)
	}
	ms, err := s.AppendAll(ctx, []Message{
		{ConversationID: "c", Role: RoleUser, Content: "prompt", Mode: ModeRun, RunID: "r1", Command: "test"},
		{ConversationID: "c", Role: RoleAssistant, Content: "result", Mode: ModeRun, RunID: "r1", Command: "test"},
	})
	if err != nil || len(ms) != 2 || ms[1].ID <= ms[0].ID || ms[1].RunID != "r1" {
		t.Fatalf("append all: %+v %v", ms, err)
	}
}

// Two connections pools on one file, as two editor windows have: appends
// from both land, and the conversation's counters agree with its messages.
func TestTwoDatabaseHandles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, path := openStore(t)
	b, _ := openPath(t, path)
	const each = 30
	errs := make(chan error, 4)
	for i, s := range []*Store{a, b, a, b} {
		go func() {
			for j := range each {
				if _, err := s.Append(ctx, Message{ConversationID: "shared", Role: RoleUser, Content: fmt.Sprintf("%d-%d", i, j)}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	p, err := b.List(ctx, "shared", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.stat(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, m := range p.Items {
		sum += m.Tokens
	}
	if len(p.Items) != 4*each || c.Messages != 4*each || c.Tokens != sum {
		t.Fatalf("%d messages listed, summary %+v (tokens listed %d)", len(p.Items), c, sum)
	}
}

// BuildFor logs the effective budget and warns when no model is configured.
func TestBuildForLogsBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, logBuf := loggedStore(t)
	mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: "hello"})

	cfg, _ := config.Parse([]byte("models:\n  small: {contextWindow: 8192, historyShare: 0.1}\ndefaultModel: small\n"))
	h, b, err := s.BuildFor(ctx, "c", BuildSpec{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.Model != "small" || h.Budget != 819 || h.Selected != 1 || len(h.Warnings) != 0 {
		t.Fatalf("build: %+v, budget %+v", h, b)
	}
	if l := logBuf.String(); !strings.Contains(l, "history budget") || !strings.Contains(l, "model=small") ||
		!strings.Contains(l, "contextWindow=8192") || !strings.Contains(l, "budget=819") {
		t.Errorf("log lacks the effective budget: %s", l)
	}
	h, b, err = s.BuildFor(ctx, "c", BuildSpec{}, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !b.Fallback || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "no models configured") {
		t.Errorf("fallback: %+v %+v", b, h.Warnings)
	}
}

// TestStepMessages: a chain step's attempt stores one message per role,
// however often it is appended, and a built history takes a step's messages
// from its latest attempt; listing keeps every stored message.
func TestStepMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	step := func(n int) *int { return &n }
	msg := func(st, attempt int, role, content string) Message {
		return Message{ConversationID: "c", Role: role, Content: content, Mode: ModeRun, Command: "implement", Step: step(st), Attempt: attempt}
	}
	mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: "a chat message"})
	first, err := s.AppendAll(ctx, []Message{msg(0, 1, RoleUser, "plan v1"), msg(0, 1, RoleAssistant, "answer v1")})
	if err != nil {
		t.Fatal(err)
	}
	// The same attempt again (a write retried after a crash): nothing new.
	again, err := s.AppendAll(ctx, []Message{msg(0, 1, RoleUser, "plan v1 again"), msg(0, 1, RoleAssistant, "answer v1 again")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if again[i].ID != first[i].ID || again[i].Content != first[i].Content || again[i].Tokens != first[i].Tokens {
			t.Errorf("appended again: %+v, first %+v", again[i], first[i])
		}
	}
	// The step's second attempt, then the next step.
	if _, err := s.AppendAll(ctx, []Message{msg(0, 2, RoleUser, "plan v2"), msg(0, 2, RoleAssistant, "answer v2"),
		msg(1, 1, RoleUser, "tests v1")}); err != nil {
		t.Fatal(err)
	}
	page, err := s.List(ctx, "c", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range page.Items {
		at := "-"
		if m.Step != nil {
			at = fmt.Sprintf("%d.%d", *m.Step, m.Attempt)
		}
		listed = append(listed, at+":"+m.Content)
	}
	if got := strings.Join(listed, " | "); got != "-:a chat message | 0.1:plan v1 | 0.1:answer v1 | 0.2:plan v2 | 0.2:answer v2 | 1.1:tests v1" {
		t.Errorf("listed: %s", got)
	}
	if c, _ := s.stat(ctx, "c"); c.Messages != 6 {
		t.Errorf("conversation counts %d messages, want 6", c.Messages)
	}
	for _, strat := range []Strategy{tokenBudget{Tokens: 1 << 20}, recent{N: 100}} {
		h, err := s.buildContext(ctx, "c", buildRequest{Strategy: strat})
		if err != nil {
			t.Fatal(err)
		}
		var contents []string
		for _, m := range h.Messages {
			contents = append(contents, m.Content)
		}
		if got := strings.Join(contents, " | "); got != "a chat message | plan v2 | answer v2 | tests v1" {
			t.Errorf("%T: built from %s", strat, got)
		}
	}
	for _, bad := range []Message{
		{ConversationID: "c", Role: RoleUser, Content: "x", Attempt: 1},
		{ConversationID: "c", Role: RoleUser, Content: "x", Step: step(0)},
		{ConversationID: "c", Role: RoleUser, Content: "x", Step: step(-1), Attempt: 1},
	} {
		if _, err := s.Append(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("append step %v attempt %d: %v", bad.Step, bad.Attempt, err)
		}
	}
}

// A store follows its counter source: each append is measured with the
// tokenizer in effect when it is made, not the one the store was made
// with.
func TestAppendFollowsTokenizer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db, _ := openStore(t)
	exact := counter(t)
	estimate, err := tokens.New(tokens.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	current := exact
	s := New(db, func() tokens.Counter { return current }, Options{})
	content := strings.Repeat("tokenizers disagree about this sentence. ", 40)
	for _, c := range []tokens.Counter{exact, estimate} {
		current = c
		m, err := s.Append(ctx, Message{ConversationID: "c", Role: RoleUser, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		if want := c.Count(content); m.Tokens != want {
			t.Errorf("with %s: Tokens = %d, want %d", c.Name(), m.Tokens, want)
		}
		var enc string
		if err := db.SQL().QueryRowContext(ctx, `SELECT encoding FROM messages WHERE id = ?`, m.ID).Scan(&enc); err != nil {
			t.Fatal(err)
		}
		if enc != c.Name() {
			t.Errorf("with %s: stored encoding %q", c.Name(), enc)
		}
	}
	if exact.Count(content) == estimate.Count(content) {
		t.Fatal("the two tokenizers agree on the content; the test cannot tell them apart")
	}
}
