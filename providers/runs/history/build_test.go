package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/tokens"
)

// seed appends n messages to conversation c, alternating user and
// assistant, message i holding "message i" and extra lines.
func seed(t testing.TB, s *Store, c string, n int, lines func(i int) int) []Message {
	t.Helper()
	var out []Message
	for i := range n {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		var b strings.Builder
		fmt.Fprintf(&b, "message %d\n", i)
		for j := 1; j < lines(i); j++ {
			fmt.Fprintf(&b, "message %d line %d\n", i, j)
		}
		out = append(out, mustAppend(t, s, Message{ConversationID: c, Role: role, Content: b.String(), Command: "step"}))
	}
	return out
}

func TestStrategies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	one := func(int) int { return 1 }
	msgs := seed(t, s, "c", 30, one)
	f, _ := newLineFormatter(FormatOptions{})
	blockCost := counter(t).Count(f.Format(msgs[29]))
	for _, c := range []struct {
		name         string
		strat        Strategy
		wantSelected int
		wantErr      bool
	}{
		{"recent 5", recent{N: 5}, 5, false},
		{"recent more than there are", recent{N: 100}, 30, false},
		{"recent zero", recent{N: 0}, 0, true},
		{"budget for three", tokenBudget{Tokens: 3*blockCost + 1}, 3, false},
		{"budget for all", tokenBudget{Tokens: 1 << 20}, 30, false},
		{"budget below the newest message, even clipped", tokenBudget{Tokens: 1}, 0, false},
		{"budget zero", tokenBudget{Tokens: 0}, 0, true},
		{"budget negative", tokenBudget{Tokens: -5}, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h, err := s.buildContext(ctx, "c", buildRequest{Strategy: c.strat})
			if c.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("err %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Selected != c.wantSelected || h.Omitted != 30-c.wantSelected || len(h.Messages) != c.wantSelected {
				t.Fatalf("selected %d omitted %d (%d messages), want %d selected", h.Selected, h.Omitted, len(h.Messages), c.wantSelected)
			}
			// The newest messages, oldest first, whole and in order.
			var want strings.Builder
			for _, m := range msgs[30-c.wantSelected:] {
				want.WriteString(f.Format(m))
			}
			if h.Text != want.String() {
				t.Errorf("text\n%s\nwant\n%s", h.Text, want.String())
			}
			if h.Tokens != counter(t).Count(h.Text) {
				t.Errorf("tokens %d, text has %d", h.Tokens, counter(t).Count(h.Text))
			}
			if b := c.strat.Budget(); b > 0 && h.Tokens > b {
				t.Errorf("%d tokens over the budget %d", h.Tokens, b)
			}
			if c.strat.Budget() == 1 && (len(h.Warnings) == 0 || !strings.Contains(h.Warnings[0], "left out")) {
				t.Errorf("warnings %q, want one saying the newest message is left out", h.Warnings)
			}
		})
	}
}

func TestBuildTokenBudgetKeepsNewest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	for i := range 50 {
		mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: strings.Repeat("word ", 10+i)})
	}
	h, err := s.buildContext(ctx, "c", buildRequest{Strategy: tokenBudget{Tokens: 200}})
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

// A long tool output is measured by what the formatter keeps of it, not by
// its stored size: it must not stop the budget from reaching older
// messages.
func TestBuildMeasuresShortenedMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	seed(t, s, "c", 10, func(int) int { return 1 })
	big := mustAppend(t, s, Message{ConversationID: "c", Role: RoleTool, Content: strings.Repeat("a rather long line of tool output here\n", 5000)})
	mustAppend(t, s, Message{ConversationID: "c", Role: RoleUser, Content: "latest"})
	if big.Tokens < 20000 {
		t.Fatalf("big message has only %d tokens", big.Tokens)
	}
	h, err := s.buildContext(ctx, "c", buildRequest{Strategy: tokenBudget{Tokens: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Selected != 12 || h.Omitted != 0 {
		t.Fatalf("selected %d omitted %d, want all 12", h.Selected, h.Omitted)
	}
	if !strings.Contains(h.Text, "... (4980 lines omitted) ...") {
		t.Errorf("tool output not shortened:\n%.600s", h.Text)
	}
	// The stored message is whole.
	p, err := s.List(ctx, "c", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Items[10].Content; got != big.Content {
		t.Errorf("stored content changed: %d bytes, want %d", len(got), len(big.Content))
	}
}

func TestBuildUnknownConversation(t *testing.T) {
	t.Parallel()
	s, _, _ := openStore(t)
	h, err := s.buildContext(context.Background(), "missing", buildRequest{Strategy: recent{N: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Text != "" || h.Selected != 0 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "missing") {
		t.Fatalf("unknown conversation: %+v", h)
	}
	if _, err := s.buildContext(context.Background(), "", buildRequest{Strategy: recent{N: 3}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty conversation id: %v", err)
	}
	if _, err := s.buildContext(context.Background(), "x", buildRequest{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("no strategy: %v", err)
	}
}

// Messages of other conversations, interleaved, stay out.
func TestBuildIsolatesConversations(t *testing.T) {
	t.Parallel()
	s, _, _ := openStore(t)
	for i := range 20 {
		mustAppend(t, s, Message{ConversationID: "a", Role: RoleUser, Content: fmt.Sprintf("a%d", i)})
		mustAppend(t, s, Message{ConversationID: "b", Role: RoleUser, Content: fmt.Sprintf("b%d", i)})
	}
	h, err := s.buildContext(context.Background(), "a", buildRequest{Strategy: tokenBudget{Tokens: 10000}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Selected != 20 || strings.Contains(h.Text, "b1") {
		t.Fatalf("selected %d:\n%s", h.Selected, h.Text)
	}
}

// A custom reader replaces the database read: the layers are replaceable.
type upperReader struct{ s *Store }

func (r upperReader) Read(ctx context.Context, conversationID string, ms []Meta) ([]Message, error) {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = m.message(conversationID, strings.ToUpper(fmt.Sprintf("content of %d", m.ID)))
	}
	return out, nil
}

type plainFormatter struct{}

func (plainFormatter) Format(m Message) string    { return m.Role + ": " + m.Content + "\n" }
func (plainFormatter) Shortens(lines, _ int) bool { return false }

func TestBuildReplaceableLayers(t *testing.T) {
	t.Parallel()
	s, _, _ := openStore(t)
	msgs := seed(t, s, "c", 3, func(int) int { return 1 })
	h, err := s.buildContext(context.Background(), "c", buildRequest{Strategy: recent{N: 2}, Reader: upperReader{s}, Formatter: plainFormatter{}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("assistant: CONTENT OF %d\nuser: CONTENT OF %d\n", msgs[1].ID, msgs[2].ID)
	if h.Text != want {
		t.Errorf("got %q, want %q", h.Text, want)
	}
}

// The tokens buildContext reports come from measurements stored at append time;
// they must equal the tokens of the text it returns, whatever the content
// looks like, under the default and other formatters, and after the
// tokenizer changes.
func TestBuildTokensMatchText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, db, _ := openStore(t)
	contents := []string{
		"plain",
		"crlf\r\nlines\r\n\r\nand blanks\n\n\n",
		"trailing spaces   \n\tindented\n    more indented   ",
		numbered(20),
		numbered(21),
		numbered(300),
		strings.Repeat("x", 5000) + "\nshort line",
		strings.Repeat("ü", 3000),
		"/implement the form\n/test it",
		"emoji 🙂🙂 and 中文字符\n" + numbered(40),
		"",
		"\n\n\n",
	}
	for i, c := range contents {
		role := []string{RoleUser, RoleAssistant, RoleTool, RoleSystem}[i%4]
		mustAppend(t, s, Message{ConversationID: "c", Role: role, Command: []string{"", "implement", "test"}[i%3], Content: c})
	}
	for _, opts := range []FormatOptions{{}, {MaxOutputLines: 6}, {MaxOutputLines: 30, HeadLines: 3, TailLines: 1}} {
		f, err := newLineFormatter(opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, strat := range []Strategy{recent{N: len(contents)}, tokenBudget{Tokens: 1 << 20}, tokenBudget{Tokens: 700}} {
			h, err := s.buildContext(ctx, "c", buildRequest{Strategy: strat, Formatter: f})
			if err != nil {
				t.Fatal(err)
			}
			if want := counter(t).Count(h.Text); h.Tokens != want {
				t.Errorf("%+v %T: reported %d tokens, the text has %d", opts, strat, h.Tokens, want)
			}
			if strat.Budget() == 1<<20 && h.Selected != len(contents) {
				t.Errorf("%+v: %d selected", opts, h.Selected)
			}
		}
	}
	// A store with another tokenizer measures the content again.
	cl, err := tokens.New(tokens.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(db, cl).buildContext(ctx, "c", buildRequest{Strategy: recent{N: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if want := cl.Count(h.Text); h.Tokens != want {
		t.Errorf("cl100k: reported %d tokens, the text has %d", h.Tokens, want)
	}
}

// TestBuildPending: a build with pending messages is the build the
// conversation would give once they were appended.
func TestBuildPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pendingMsgs := []Message{
		{Role: RoleUser, Content: numbered(30), Mode: ModeRun, Command: "implement"},
		{Role: RoleAssistant, Content: "done\n" + numbered(5), Mode: ModeRun, Command: "implement"},
		{Role: RoleUser, Content: "and the tests", Mode: ModeRun, Command: "test"},
	}
	for _, c := range []struct {
		name   string
		stored int // messages stored before; -1: no conversation
		budget int
	}{
		{"stored and pending, all fit", 6, 1 << 20},
		{"stored and pending, budget for some", 6, 120},
		{"budget below the newest pending", 6, 1}, // nothing fits
		{"pending alone", -1, 1 << 20},
		{"pending alone, budget for some", -1, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, _, _ := openStore(t)
			id := ""
			if c.stored >= 0 {
				id = "c"
				seed(t, s, id, c.stored, func(i int) int { return 1 + 5*i })
			}
			req := buildRequest{Strategy: tokenBudget{Tokens: c.budget}, Pending: pendingMsgs}
			got, err := s.buildContext(ctx, id, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range got.Messages {
				if m.ID > 0 && m.ID <= int64(c.stored) || m.ID < 0 {
					continue
				}
				t.Errorf("message id %d is neither stored nor pending", m.ID)
			}
			// Now append them for real.
			if id == "" {
				id = "fresh"
			}
			for _, m := range pendingMsgs {
				m.ConversationID = id
				mustAppend(t, s, m)
			}
			want, err := s.buildContext(ctx, id, buildRequest{Strategy: req.Strategy})
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != want.Text || got.Tokens != want.Tokens || got.Selected != want.Selected || got.Omitted != want.Omitted {
				t.Errorf("with pending: %d messages, %d tokens, %d omitted; appended: %d, %d, %d\n%s\n---\n%s",
					got.Selected, got.Tokens, got.Omitted, want.Selected, want.Tokens, want.Omitted, got.Text, want.Text)
			}
			if got.Selected == 0 && c.budget > 1 {
				t.Error("nothing selected")
			}
		})
	}
	s, _, _ := openStore(t)
	// A bad pending message is refused like a bad append.
	if _, err := s.buildContext(ctx, "", buildRequest{Strategy: tokenBudget{Tokens: 10}, Pending: []Message{{Role: "robot"}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad pending role: %v", err)
	}
	// An unknown conversation with pending messages builds on them, with a
	// warning.
	h, err := s.buildContext(ctx, "nope", buildRequest{Strategy: tokenBudget{Tokens: 1000}, Pending: pendingMsgs[2:]})
	if err != nil || h.Selected != 1 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "unknown conversation") {
		t.Errorf("unknown conversation with pending: %+v, %v", h, err)
	}
	// Without pending messages a conversation id is required.
	if _, err := s.buildContext(ctx, "", buildRequest{Strategy: tokenBudget{Tokens: 10}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("no conversation: %v", err)
	}
}

// TestBuildClipsNewestToBudget: a newest message above the budget is
// clipped to it (the budget is a hard limit), and the warning says so.
func TestBuildClipsNewestToBudget(t *testing.T) {
	t.Parallel()
	s, _, _ := openStore(t)
	content := numbered(40)
	whole := mustAppend(t, s, Message{ConversationID: "c", Role: RoleAssistant, Content: content})
	budget := whole.Tokens / 2
	h, err := s.buildContext(context.Background(), "c", buildRequest{Strategy: tokenBudget{Tokens: budget}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Selected != 1 || h.Tokens > budget || h.Tokens != s.counter().Count(h.Text) {
		t.Fatalf("selected %d, %d tokens (text %d), budget %d", h.Selected, h.Tokens, s.counter().Count(h.Text), budget)
	}
	if !strings.Contains(h.Text, "line 1\n") || !strings.Contains(h.Text, "omitted") {
		t.Errorf("clipped text keeps no head or says nothing of the cut:\n%s", h.Text)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "clipped") || strings.Contains(h.Warnings[0], "whole") {
		t.Errorf("warnings %q, want one saying the message is clipped", h.Warnings)
	}
}
