package history

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/context/tokens"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

// openStore opens a store on a fresh database file with the real tokenizer.
func openStore(t testing.TB) (*Store, *storage.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), storage.FileName)
	s, db := openPath(t, path)
	return s, db, path
}

// openPath opens the database file at path, closed when the test ends,
// and a store over it.
func openPath(t testing.TB, path string) (*Store, *storage.DB) {
	t.Helper()
	db, err := storage.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return Open(db, counter(t)), db
}

// loggedStore opens a store on a fresh database file that logs, as text,
// to the returned buffer.
func loggedStore(t testing.TB) (*Store, *strings.Builder) {
	t.Helper()
	_, db, _ := openStore(t)
	var log strings.Builder
	return New(db, fixed(counter(t)), Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}), &log
}

func counter(t testing.TB) tokens.Counter {
	t.Helper()
	c, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fixed returns a counter source that always gives c.
func fixed(c tokens.Counter) func() tokens.Counter {
	return func() tokens.Counter { return c }
}

func mustAppend(t testing.TB, s *Store, m Message) Message {
	t.Helper()
	out, err := s.Append(context.Background(), m)
	if err != nil {
		t.Fatalf("append %+v: %v", m, err)
	}
	return out
}

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

func TestBuildTokenBudgetKeepsNewest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	for i := range 50 {
		mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: strings.Repeat("word ", 10+i)})
	}
	h, err := s.Build(ctx, "c", BuildRequest{Strategy: TokenBudget{Tokens: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Tokens > 200 || h.Selected == 0 || h.Selected+h.Omitted != 50 {
		t.Fatalf("build: tokens %d selected %d omitted %d", h.Tokens, h.Selected, h.Omitted)
	}
	if h.Tokens != counter(t).Count(h.Text) {
		t.Errorf("reported tokens %d, text has %d", h.Tokens, counter(t).Count(h.Text))
	}
	if !strings.HasSuffix(h.Text, strings.TrimSpace(strings.Repeat("word ", 59))+"\n") {
		t.Errorf("newest message missing at the end: %q", h.Text[max(0, len(h.Text)-80):])
	}
}
