package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/tokens"
)

// ErrPromptTooLarge: the parts of a prompt that are never cut (the system
// text and the latest request) do not fit the model's window by themselves.
var ErrPromptTooLarge = errkind.New(errkind.Invalid, "prompt does not fit the model's context window")

// Section is a part of a prompt between the system text and the history,
// such as loaded context or upstream shared data.
type Section struct {
	Name string `json:"name"`
	Text string `json:"text"`
	// Tokens is the cost of Text: when above 0 in a Prompt, its known cost
	// (Fit does not count it again); in a Fitted, its cost after fitting.
	Tokens int `json:"tokens"`
}

// Prompt is the parts of a prompt before fitting.
type Prompt struct {
	// System is the system text; never cut.
	System string
	// Sections come after the system text; cut last, from the last one.
	Sections []Section
	// History are the history messages, oldest first (Context.Messages).
	History []Message
	// Request is the latest user request; never cut.
	Request string
	// Overhead is the tokens the caller adds when assembling the parts
	// (headings, separators).
	Overhead int
	// Formatter renders the history; nil means the default line formatter.
	Formatter Formatter
}

// Cut records one thing Fit removed or shortened.
type Cut struct {
	// Action is "dropped" or "truncated".
	Action string `json:"action"`
	// Part is "history" or "section".
	Part string `json:"part"`
	// MessageID and Role name a history message; Section a section.
	MessageID int64  `json:"messageId,omitempty"`
	Role      string `json:"role,omitempty"`
	Section   string `json:"section,omitempty"`
	// Before and After are its tokens before and after the cut.
	Before int `json:"before"`
	After  int `json:"after"`
}

// Fitted is a prompt fitted to a window.
type Fitted struct {
	// Sections are the sections, some maybe truncated.
	Sections []Section `json:"sections"`
	// History is the formatted history and HistoryTokens its tokens.
	History       string `json:"history"`
	HistoryTokens int    `json:"historyTokens"`
	// Messages is how many history messages are (at least partly) in
	// History.
	Messages int `json:"messages"`
	// Tokens is the prompt's total: the parts plus Overhead.
	Tokens int `json:"tokens"`
	// Window is the model's window fitted to.
	Window int `json:"window"`
	// Cuts says what was dropped or shortened, in order; empty when the
	// prompt fitted as it was.
	Cuts []Cut `json:"cuts"`
}

// Fit makes the parts of p fit in window tokens, cutting by tokens in this
// order until they fit: the oldest history messages are dropped, down to the
// latest user message of the history; in what is left, tool outputs, then
// assistant replies, then system and user messages are shortened to their
// first and last lines; the rest of the history is dropped, oldest first;
// sections are shortened, the last one first. The system text and the request are never cut: when they alone
// exceed the window the error wraps ErrPromptTooLarge. Only the returned
// text is cut; the messages in p are not modified.
func Fit(counter tokens.Counter, p Prompt, window int) (Fitted, error) {
	if window <= 0 {
		return Fitted{}, fmt.Errorf("%w: fit prompt: window %d must be above 0", ErrInvalid, window)
	}
	f := p.Formatter
	if f == nil {
		f, _ = newLineFormatter(FormatOptions{})
	}
	fixed := counter.Count(p.System) + counter.Count(p.Request) + max(p.Overhead, 0)
	if fixed > window {
		return Fitted{}, fmt.Errorf("%w: the system text and the request take %d tokens, the window is %d", ErrPromptTooLarge, fixed, window)
	}
	out := Fitted{Window: window, Sections: append([]Section(nil), p.Sections...), Cuts: []Cut{}}
	secTokens := make([]int, len(out.Sections))
	for i, s := range out.Sections {
		secTokens[i] = s.Tokens
		if secTokens[i] <= 0 {
			secTokens[i] = counter.Count(s.Text)
		}
	}
	type block struct {
		m      Message
		text   string
		tokens int
	}
	blocks := make([]block, len(p.History))
	for i, m := range p.History {
		b := f.Format(m)
		blocks[i] = block{m: m, text: b, tokens: counter.Count(b)}
	}
	total := func() int {
		t := fixed
		for _, n := range secTokens {
			t += n
		}
		for _, b := range blocks {
			t += b.tokens
		}
		return t
	}

	// 1. Drop the oldest messages, down to the latest user message (the
	// request of the latest exchange) and what followed it.
	keep := len(blocks) - 1
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].m.Role == RoleUser {
			keep = i
			break
		}
	}
	drop := func() {
		b := blocks[0]
		out.Cuts = append(out.Cuts, Cut{Action: "dropped", Part: "history", MessageID: b.m.ID, Role: b.m.Role, Before: b.tokens})
		blocks = blocks[1:]
	}
	for ; keep > 0 && total() > window; keep-- {
		drop()
	}
	// 2. Shorten what is left: tool outputs first, user text last.
	for _, role := range []string{RoleTool, RoleAssistant, RoleSystem, RoleUser} {
		for i := range blocks {
			over := total() - window
			if over <= 0 {
				break
			}
			b := &blocks[i]
			if b.m.Role != role {
				continue
			}
			text, n := clip(counter, headerOf(b.m), contentLines(b.m.Content), b.tokens-over)
			if n < b.tokens {
				out.Cuts = append(out.Cuts, Cut{Action: "truncated", Part: "history", MessageID: b.m.ID, Role: b.m.Role, Before: b.tokens, After: n})
				b.text, b.tokens = text, n
			}
		}
	}
	// 3. Drop the rest of the history, oldest first.
	for len(blocks) > 0 && total() > window {
		drop()
	}
	// 4. Shorten sections, the last first.
	for i := len(out.Sections) - 1; i >= 0 && total() > window; i-- {
		over := total() - window
		s := &out.Sections[i]
		text, n := clip(counter, "", strings.Split(strings.TrimRight(s.Text, "\n"), "\n"), secTokens[i]-over)
		if n < secTokens[i] {
			out.Cuts = append(out.Cuts, Cut{Action: "truncated", Part: "section", Section: s.Name, Before: secTokens[i], After: n})
			s.Text, secTokens[i] = text, n
		}
	}

	for i := range out.Sections {
		out.Sections[i].Tokens = secTokens[i]
	}
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		parts[i] = b.text
	}
	out.History = strings.Join(parts, "")
	out.HistoryTokens = counter.Count(out.History)
	out.Messages = len(blocks)
	out.Tokens = total()
	if out.Tokens > window {
		// Lines are the unit of cutting; one long line can remain.
		return out, fmt.Errorf("%w: %d tokens after every cut, the window is %d", ErrPromptTooLarge, out.Tokens, window)
	}
	return out, nil
}

// clip keeps as many of the first and last lines as fit in target tokens
// (the header included), with a line saying how many were omitted between
// them, and returns the text and its tokens. With nothing kept but the
// header and the omission line it returns that, even above target.
func clip(counter tokens.Counter, header string, lines []string, target int) (string, int) {
	render := func(k int) string {
		var b strings.Builder
		b.WriteString(header)
		head := (k + 1) / 2
		tail := k - head
		for _, l := range lines[:head] {
			writeLine(&b, l)
		}
		if k < len(lines) {
			b.WriteString(omitted(len(lines)-k, "line"))
		}
		for _, l := range lines[len(lines)-tail:] {
			writeLine(&b, l)
		}
		return b.String()
	}
	// The largest k whose rendering fits: tokens grow with k.
	lo, hi := 0, len(lines)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if counter.Count(render(mid)) <= target {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	text := render(lo)
	return text, counter.Count(text)
}

// PromptRequest asks FitPrompt for a prompt with a conversation's history.
type PromptRequest struct {
	// ConversationID names the conversation whose history the prompt
	// includes; "" is a conversation not created yet, whose history is
	// Pending alone (none without it).
	ConversationID string
	// Pending are messages taken as appended after the conversation's
	// stored messages, without storing them: what a preview expects a run
	// to have appended by then.
	Pending []Message
	// Budget is the model's: its history budget selects the history, its
	// window bounds the whole prompt.
	Budget ModelBudget
	// Prompt holds the other parts of the prompt; its History is replaced
	// by the selected messages.
	Prompt Prompt
}

// FitPrompt builds the history of a prompt for a model and fits the prompt
// to the model's window: the newest messages of the conversation (with
// req.Pending after them) that fit the model's history budget are selected
// (strategy tokenBudget, the default formatter) and Fit cuts what does not
// fit the window. It logs the effective budget, and returns the warnings of
// the build with the fitted prompt. The error wraps ErrPromptTooLarge when
// the parts that are never cut do not fit.
func (s *Store) FitPrompt(ctx context.Context, req PromptRequest) (Fitted, []string, error) {
	b := req.Budget
	if b.Window <= 0 || b.History <= 0 {
		return Fitted{}, nil, fmt.Errorf("%w: fit prompt: model %q has a window of %d and a history budget of %d tokens",
			ErrInvalid, b.Model, b.Window, b.History)
	}
	f, _ := newLineFormatter(FormatOptions{})
	h := Context{Messages: []Message{}}
	if req.ConversationID != "" || len(req.Pending) > 0 {
		var err error
		h, err = s.buildContext(ctx, req.ConversationID, buildRequest{Strategy: tokenBudget{Tokens: b.History}, Formatter: f,
			Model: b.Model, Pending: req.Pending})
		if err != nil {
			return Fitted{}, nil, fmt.Errorf("fit prompt: %w", err)
		}
	}
	p := req.Prompt
	p.History, p.Formatter = h.Messages, f
	out, err := Fit(s.counter(), p, b.Window)
	s.log.Info("prompt budget", "conversation", req.ConversationID, "model", b.Model, "contextWindow", b.Window,
		"historyBudget", b.History, "fallback", b.Fallback, "tokens", out.Tokens, "historyTokens", out.HistoryTokens,
		"messages", out.Messages, "omitted", h.Omitted, "cuts", len(out.Cuts), "err", err)
	return out, h.Warnings, err
}
