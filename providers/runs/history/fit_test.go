package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFit(t *testing.T) {
	t.Parallel()
	cnt := counter(t)
	history := []Message{
		{ID: 1, Role: RoleUser, Content: "old question " + strings.Repeat("word ", 200)},
		{ID: 2, Role: RoleAssistant, Content: "old answer " + strings.Repeat("word ", 200)},
		{ID: 3, Role: RoleUser, Content: "recent question about the form"},
		{ID: 4, Role: RoleTool, Content: numbered(400)},
	}
	orig := fmt.Sprint(history)
	system := "You are a careful engineer."
	request := "Now write the tests. " + strings.Repeat("detail ", 30)
	sections := []Section{{Name: "context", Text: strings.Repeat("context line\n", 100)}}

	// In turn: the check after the loop must follow every Fit.
	for _, c := range []struct {
		name       string
		window     int
		wantCuts   []string // action:part:id-or-name, in order
		wantErr    bool
		wantWhole  bool
		wantInHist []string
	}{
		{name: "fits as is", window: 100000, wantWhole: true},
		{name: "oldest dropped first", window: 600, wantCuts: []string{"dropped:history:1", "dropped:history:2"},
			wantInHist: []string{"recent question", "lines omitted"}},
		{name: "tool output shortened before user text", window: 420,
			wantCuts:   []string{"dropped:history:1", "dropped:history:2", "truncated:history:4"},
			wantInHist: []string{"recent question about the form", "[tool]\nline 1\n", "lines omitted", "line 400\n"}},
		{name: "sections shortened last", window: 180,
			wantCuts: []string{"dropped:history:1", "dropped:history:2", "truncated:history:4", "dropped:history:3", "dropped:history:4", "truncated:section:context"}},
		{name: "system and request alone too large", window: 40, wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Fit(cnt, Prompt{System: system, Sections: sections, History: history, Request: request}, c.window)
			if c.wantErr {
				if !errors.Is(err, ErrPromptTooLarge) {
					t.Fatalf("err %v, want ErrPromptTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v (cuts %+v)", err, out.Cuts)
			}
			if out.Tokens > c.window {
				t.Errorf("%d tokens above the window %d", out.Tokens, c.window)
			}
			var cuts []string
			for _, k := range out.Cuts {
				id := fmt.Sprint(k.MessageID)
				if k.Part == "section" {
					id = k.Section
				}
				cuts = append(cuts, k.Action+":"+k.Part+":"+id)
				if k.After >= k.Before && k.Action == "truncated" {
					t.Errorf("cut %+v saved nothing", k)
				}
			}
			if strings.Join(cuts, " ") != strings.Join(c.wantCuts, " ") {
				t.Errorf("cuts %v, want %v", cuts, c.wantCuts)
			}
			if c.wantWhole {
				f, _ := newLineFormatter(FormatOptions{})
				var want strings.Builder
				for _, m := range history {
					want.WriteString(f.Format(m))
				}
				if out.History != want.String() || out.Sections[0].Text != sections[0].Text || out.Sections[0].Tokens != cnt.Count(sections[0].Text) {
					t.Error("a fitting prompt was changed")
				}
			}
			for _, s := range c.wantInHist {
				if !strings.Contains(out.History, s) {
					t.Errorf("history lacks %q:\n%s", s, out.History)
				}
			}
			want := cnt.Count(system) + cnt.Count(request) + cnt.Count(out.Sections[0].Text) + out.HistoryTokens
			if d := out.Tokens - want; d < -2 || d > 2 {
				t.Errorf("reported %d tokens, parts add up to %d", out.Tokens, want)
			}
		})
	}
	if fmt.Sprint(history) != orig {
		t.Error("Fit modified the messages it was given")
	}
}

func TestFitBadWindow(t *testing.T) {
	t.Parallel()
	if _, err := Fit(counter(t), Prompt{Request: "x"}, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("window 0: %v", err)
	}
}

// With a long user message and a long tool output, the tool output is cut
// first and the user text only when that is not enough.
func TestFitToolBeforeUser(t *testing.T) {
	t.Parallel()
	cnt := counter(t)
	user := Message{ID: 1, Role: RoleUser, Content: numbered(300)}
	tool := Message{ID: 2, Role: RoleTool, Content: numbered(300)}
	f, _ := newLineFormatter(FormatOptions{MaxOutputLines: 1000})
	full := cnt.Count(f.Format(user))
	p := Prompt{History: []Message{user, tool}, Request: "go", Formatter: f}

	out, err := Fit(cnt, p, 2*full-full/2)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Cuts) != 1 || out.Cuts[0].MessageID != 2 || !strings.Contains(out.History, f.Format(user)) {
		t.Fatalf("cuts %+v; user message whole: %v", out.Cuts, strings.Contains(out.History, f.Format(user)))
	}
	out, err = Fit(cnt, p, full/2)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Cuts) != 2 || out.Cuts[0].MessageID != 2 || out.Cuts[1].MessageID != 1 || out.Cuts[1].Action != "truncated" {
		t.Fatalf("cuts %+v", out.Cuts)
	}
}

// A section's known cost is taken as given, and the fitted sections carry
// their cost.
func TestFitKnownSectionTokens(t *testing.T) {
	t.Parallel()
	cnt := counter(t)
	text := strings.Repeat("context line\n", 100)
	for _, c := range []struct {
		name    string
		known   int
		wantCut bool
	}{
		{"counted", 0, true},
		{"known small", 10, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := Fit(cnt, Prompt{Sections: []Section{{Name: "ctx", Text: text, Tokens: c.known}}, Request: "go"}, 100)
			if err != nil {
				t.Fatal(err)
			}
			if cut := len(out.Cuts) > 0; cut != c.wantCut {
				t.Fatalf("cuts %+v", out.Cuts)
			}
			want := c.known
			if c.wantCut {
				want = cnt.Count(out.Sections[0].Text)
			}
			if out.Sections[0].Tokens != want {
				t.Errorf("section tokens %d, want %d", out.Sections[0].Tokens, want)
			}
		})
	}
}

// TestFitPrompt fits a prompt with a stored conversation to a model's
// window: the history is cut, never the stored messages, and the
// effective budget is logged.
func TestFitPrompt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, logBuf := loggedStore(t)
	stored := seed(t, s, "c", 8, func(i int) int { return 40 })
	p := Prompt{System: "You are careful.", Sections: []Section{{Name: "ctx", Text: strings.Repeat("fact\n", 50)}}, Request: "Write the tests."}
	// In turn: each case reads what the store logs to the one logBuf.
	for _, c := range []struct {
		name     string
		budget   ModelBudget
		wantCuts bool
		wantErr  error
	}{
		{"large window", ModelBudget{Model: "large", Window: 100000, History: 20000}, false, nil},
		{"small window", ModelBudget{Model: "small", Window: 700, History: 600}, true, nil},
		{"window below the kept parts", ModelBudget{Model: "tiny", Window: 5, History: 1}, false, ErrPromptTooLarge},
		{"no window", ModelBudget{Model: "none"}, false, ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			logBuf.Reset()
			out, _, err := s.FitPrompt(ctx, PromptRequest{ConversationID: "c", Budget: c.budget, Prompt: p})
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err %v, want %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Tokens > c.budget.Window || out.Window != c.budget.Window || out.Messages == 0 {
				t.Errorf("%d tokens, %d messages in a window of %d", out.Tokens, out.Messages, out.Window)
			}
			if (len(out.Cuts) > 0) != c.wantCuts {
				t.Errorf("cuts %+v", out.Cuts)
			}
			l := logBuf.String()
			for _, want := range []string{"prompt budget", "model=" + c.budget.Model, fmt.Sprintf("contextWindow=%d", c.budget.Window),
				fmt.Sprintf("historyBudget=%d", c.budget.History)} {
				if !strings.Contains(l, want) {
					t.Errorf("log lacks %q: %s", want, l)
				}
			}
		})
	}
	page, err := s.List(ctx, "c", ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range page.Items {
		if m.Content != stored[i].Content {
			t.Fatalf("stored message %d changed", m.ID)
		}
	}
}
