package chain

import (
	"context"

	"github.com/ctxls/ctxls/providers/runs/history"
)

// storeHistory is the History of a conversation store.
type storeHistory struct {
	store *history.Store
}

// StoreHistory returns the History backed by a conversation store: a prompt
// gets as many of the conversation's newest messages as fit the history
// budget of its model, and what does not fit the model's window is cut
// (history.Store.FitPrompt). The store's logger receives each prompt's
// effective budget.
func StoreHistory(store *history.Store) History {
	return &storeHistory{store: store}
}

func (h *storeHistory) Fit(ctx context.Context, conversationID string, pending []Message, p history.Prompt, b history.ModelBudget) (history.Fitted, []string, error) {
	return h.store.FitPrompt(ctx, history.PromptRequest{ConversationID: conversationID, Pending: messages(pending),
		Budget: b, Prompt: p})
}

func (h *storeHistory) Append(ctx context.Context, msgs ...Message) error {
	_, err := h.store.AppendAll(ctx, messages(msgs))
	return err
}

// messages converts messages of a chain to messages of the history store.
func messages(msgs []Message) []history.Message {
	hm := make([]history.Message, len(msgs))
	for i, m := range msgs {
		hm[i] = history.Message{
			ConversationID: m.ConversationID,
			Role:           m.Role,
			Content:        m.Content,
			Mode:           history.ModeRun,
			RunID:          m.RunID,
			Command:        m.Command,
		}
		if m.Attempt > 0 {
			step := m.Step
			hm[i].Step, hm[i].Attempt = &step, m.Attempt
		}
	}
	return hm
}
