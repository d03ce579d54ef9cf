package chain

import (
	"context"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/history"
)

// storeHistory is the History of a conversation store: prompts get as many
// of the newest messages as fit the history budget of the configured
// default model.
type storeHistory struct {
	store  *history.Store
	config func() *config.Config
}

// NewHistory returns the History backed by a conversation store; config
// returns the configuration in effect, whose default model sets the
// history budget.
func NewHistory(store *history.Store, config func() *config.Config) History {
	return &storeHistory{store: store, config: config}
}

func (h *storeHistory) Context(ctx context.Context, conversationID string) (string, int, error) {
	spec := history.BuildSpec{Strategy: history.StrategySpec{Kind: history.KindTokenBudget}}
	c, _, err := h.store.BuildFor(ctx, conversationID, spec, h.config())
	if err != nil {
		return "", 0, err
	}
	return c.Text, c.Tokens, nil
}

func (h *storeHistory) Append(ctx context.Context, msgs ...Message) error {
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
	}
	_, err := h.store.AppendAll(ctx, hm)
	return err
}
