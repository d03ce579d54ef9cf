package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/runs/history"
)

// histories holds the server's history store, made with the database on
// first use. The store keeps the delete confirmation tokens, so it lives as
// long as the server; it is made again when the configured tokenizer changes
// (its messages are then measured with the new one).
type histories struct {
	mu    sync.Mutex
	store *history.Store
}

// historyStore returns the history store and the configuration in effect.
func (s *Server) historyStore(ctx context.Context) (*history.Store, *config.Config, error) {
	if _, err := s.workspaceCtx(ctx); err != nil {
		return nil, nil, err
	}
	prov := s.provider()
	if prov == nil {
		return nil, nil, errors.New("the workspace is closed")
	}
	lib := prov.Library()
	db, err := s.database(ctx)
	if err != nil {
		return nil, nil, err
	}
	h := &s.hist
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.store == nil || h.store.Counter().Name() != lib.Counter().Name() {
		h.store = history.New(db, lib.Counter, history.Options{Logger: s.stderr})
	}
	return h.store, lib.Config(), nil
}

// historyError maps the store's errors to JSON-RPC errors: bad input is
// InvalidParams with the store's message.
func historyError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, history.ErrInvalid), errors.Is(err, history.ErrBinary), errors.Is(err, history.ErrTooLarge),
		errors.Is(err, history.ErrInvalidToken), errors.Is(err, history.ErrUnknownConversation):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return err
}

// historyUnknown is the warning of a conversation that does not exist.
func historyUnknown(id string) []warning {
	return []warning{{Message: fmt.Sprintf("unknown conversation %q", id), Code: "unknownConversation"}}
}

func historyWarnings(ws []string) []warning {
	out := make([]warning, 0, len(ws))
	for _, w := range ws {
		out = append(out, warning{Message: w})
	}
	return out
}

// historyID accepts a message id as a JSON number or a string of digits
// (protocol.ts allows both).
type historyID int64

func (id *historyID) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		*id = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a message id", b)
	}
	*id = historyID(v)
	return nil
}

type historyAppendParams struct {
	ConversationID string `json:"conversationId"`
	Role           string `json:"role"`
	Content        string `json:"content"`
	Mode           string `json:"mode"`
	RunID          string `json:"runId"`
	Command        string `json:"command"`
}

type historyMessageResult struct {
	history.Message
	Warnings []warning `json:"warnings"`
}

func historyAppend(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p historyAppendParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("conversationId", p.ConversationID); err != nil {
		return nil, err
	}
	if err := requireField("role", p.Role); err != nil {
		return nil, err
	}
	st, _, err := s.historyStore(ctx)
	if err != nil {
		return nil, err
	}
	m, err := st.Append(ctx, history.Message{ConversationID: p.ConversationID, Role: p.Role, Content: p.Content,
		Mode: p.Mode, RunID: p.RunID, Command: p.Command})
	if err != nil {
		return nil, historyError(err)
	}
	return historyMessageResult{Message: m, Warnings: []warning{}}, nil
}

type historyListParams struct {
	ConversationID string    `json:"conversationId"`
	RunID          string    `json:"runId"`
	Limit          int       `json:"limit"`
	Before         historyID `json:"before"`
}

type historyListResult struct {
	list[history.Message]
	// More reports older messages before the first item.
	More bool `json:"more"`
}

func historyList(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p historyListParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("conversationId", p.ConversationID); err != nil {
		return nil, err
	}
	st, _, err := s.historyStore(ctx)
	if err != nil {
		return nil, err
	}
	page, err := st.List(ctx, p.ConversationID, history.ListRequest{RunID: p.RunID, Limit: p.Limit, Before: int64(p.Before)})
	if errors.Is(err, history.ErrUnknownConversation) {
		return historyListResult{list: newList[history.Message](nil, historyUnknown(p.ConversationID))}, nil
	}
	if err != nil {
		return nil, historyError(err)
	}
	var ws []warning
	if page.More {
		ws = append(ws, warning{Message: fmt.Sprintf("the newest %d messages; pass before: %d for older ones",
			len(page.Items), page.Items[0].ID), Code: "more"})
	}
	return historyListResult{list: newList(page.Items, ws), More: page.More}, nil
}

func historyConversations(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	st, _, err := s.historyStore(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := st.Conversations(ctx)
	if err != nil {
		return nil, historyError(err)
	}
	return newList(cs, nil), nil
}

type historyBuildParams struct {
	ConversationID string `json:"conversationId"`
	history.BuildSpec
}

type historyBuildResult struct {
	Text     string              `json:"text"`
	Tokens   int                 `json:"tokens"`
	Selected int                 `json:"selected"`
	Omitted  int                 `json:"omitted"`
	Budget   int                 `json:"budget"`
	Model    history.ModelBudget `json:"model"`
	Warnings []warning           `json:"warnings"`
}

func historyBuildContext(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p historyBuildParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("conversationId", p.ConversationID); err != nil {
		return nil, err
	}
	st, cfg, err := s.historyStore(ctx)
	if err != nil {
		return nil, err
	}
	hc, b, err := st.BuildFor(ctx, p.ConversationID, p.BuildSpec, cfg)
	if err != nil {
		return nil, historyError(err)
	}
	return historyBuildResult{Text: hc.Text, Tokens: hc.Tokens, Selected: hc.Selected, Omitted: hc.Omitted,
		Budget: hc.Budget, Model: b, Warnings: historyWarnings(hc.Warnings)}, nil
}

type historyDeleteParams struct {
	ConversationID string `json:"conversationId"`
	ConfirmToken   string `json:"confirmToken"`
}

type historyDeleteResult struct {
	ConversationID string     `json:"conversationId"`
	ConfirmToken   string     `json:"confirmToken,omitempty"`
	ExpiresAt      *time.Time `json:"expiresAt,omitempty"`
	Deleted        bool       `json:"deleted"`
	Message        string     `json:"message"`
	Warnings       []warning  `json:"warnings"`
}

func historyDelete(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p historyDeleteParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("conversationId", p.ConversationID); err != nil {
		return nil, err
	}
	st, _, err := s.historyStore(ctx)
	if err != nil {
		return nil, err
	}
	if p.ConfirmToken == "" {
		tok, exp, err := st.RequestDelete(ctx, p.ConversationID)
		if errors.Is(err, history.ErrUnknownConversation) {
			return historyDeleteResult{ConversationID: p.ConversationID, Message: "nothing to delete",
				Warnings: historyUnknown(p.ConversationID)}, nil
		}
		if err != nil {
			return nil, historyError(err)
		}
		exp = exp.UTC()
		return historyDeleteResult{ConversationID: p.ConversationID, ConfirmToken: tok, ExpiresAt: &exp, Warnings: []warning{},
			Message: fmt.Sprintf("call ctxls/history/delete again with this confirmToken before %s to delete conversation %s and its messages",
				exp.Format(time.RFC3339), p.ConversationID)}, nil
	}
	if err := st.ConfirmDelete(ctx, p.ConversationID, p.ConfirmToken); err != nil {
		return nil, historyError(err)
	}
	return historyDeleteResult{ConversationID: p.ConversationID, Deleted: true, Warnings: []warning{},
		Message: "conversation " + p.ConversationID + " deleted"}, nil
}
