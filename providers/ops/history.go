package ops

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/providers/runs/history"
)

// Types of the history store as the history operations return them.
type (
	HistoryMessage = history.Message
	Conversation   = history.Conversation
	ModelBudget    = history.ModelBudget
	BuildSpec      = history.BuildSpec
)

// MessageID is a message id, on the wire a JSON number or a string of
// digits.
type MessageID int64

// UnmarshalJSON accepts a number, a string of digits, or null for none.
func (id *MessageID) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		*id = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a message id", b)
	}
	*id = MessageID(v)
	return nil
}

// historyUnknown is the warning of a conversation that does not exist.
func historyUnknown(id string) []Warning {
	return []Warning{{Message: fmt.Sprintf("unknown conversation %q", id), Code: "unknownConversation"}}
}

// AppendMessageRequest is a message to append to a conversation.
type AppendMessageRequest struct {
	ConversationID string `json:"conversationId"`
	Role           string `json:"role"`
	Content        string `json:"content"`
	Mode           string `json:"mode,omitempty"`
	RunID          string `json:"runId,omitempty"`
	Command        string `json:"command,omitempty"`
}

// MessageResponse is a stored message.
type MessageResponse struct {
	HistoryMessage
	Warnings []Warning `json:"warnings"`
}

// AppendMessage stores a message at the end of its conversation, creating
// the conversation when it is new.
func (o *Ops) AppendMessage(ctx context.Context, req AppendMessageRequest) (MessageResponse, error) {
	return withRuns(o, ctx, []field{{"conversationId", req.ConversationID}, {"role", req.Role}}, func(st *stores) (MessageResponse, error) {
		m, err := st.hist.Append(ctx, history.Message{ConversationID: req.ConversationID, Role: req.Role, Content: req.Content,
			Mode: req.Mode, RunID: req.RunID, Command: req.Command})
		if err != nil {
			return MessageResponse{}, err
		}
		return MessageResponse{HistoryMessage: m, Warnings: []Warning{}}, nil
	})
}

// HistoryListRequest asks for a page of a conversation's messages.
type HistoryListRequest struct {
	ConversationID string `json:"conversationId"`
	// RunID keeps only the messages of one chain run.
	RunID string `json:"runId,omitempty"`
	Limit int    `json:"limit,omitempty"`
	// Before pages to messages older than this id.
	Before MessageID `json:"before,omitempty"`
}

// HistoryListResponse is a page of messages, oldest first.
type HistoryListResponse struct {
	Items []HistoryMessage `json:"items"`
	// Tokenizer names the encoding the messages' tokens are counted in.
	Tokenizer string    `json:"tokenizer"`
	Warnings  []Warning `json:"warnings"`
	// More reports older messages before the first item.
	More bool `json:"more"`
}

// History returns a page of a conversation's messages: the newest, or
// those before a message id. An unknown conversation gives no items and a
// warning.
func (o *Ops) History(ctx context.Context, req HistoryListRequest) (HistoryListResponse, error) {
	return withRuns(o, ctx, []field{{"conversationId", req.ConversationID}}, func(st *stores) (HistoryListResponse, error) {
		page, err := st.hist.List(ctx, req.ConversationID, history.ListRequest{RunID: req.RunID, Limit: req.Limit, Before: int64(req.Before)})
		if errors.Is(err, history.ErrUnknownConversation) {
			return HistoryListResponse{Items: []HistoryMessage{}, Tokenizer: o.Library().Counter().Name(), Warnings: historyUnknown(req.ConversationID)}, nil
		}
		if err != nil {
			return HistoryListResponse{}, err
		}
		res := HistoryListResponse{Items: page.Items, Tokenizer: o.Library().Counter().Name(), Warnings: []Warning{}, More: page.More}
		if res.Items == nil {
			res.Items = []HistoryMessage{}
		}
		if page.More {
			res.Warnings = append(res.Warnings, Warning{Message: fmt.Sprintf("the newest %d messages; pass before: %d for older ones",
				len(page.Items), page.Items[0].ID), Code: "more"})
		}
		return res, nil
	})
}

// ConversationsResponse lists the conversations.
type ConversationsResponse = List[Conversation]

// Conversations lists the conversations of the workspace.
func (o *Ops) Conversations(ctx context.Context, _ Empty) (ConversationsResponse, error) {
	return withRuns(o, ctx, nil, func(st *stores) (ConversationsResponse, error) {
		return withHeavy(o, ctx, func(ctx context.Context) (ConversationsResponse, error) {
			cs, err := st.hist.Conversations(ctx)
			l := newList(cs, nil)
			l.Tokenizer = o.Library().Counter().Name()
			return l, err
		})
	})
}

// BuildHistoryRequest asks for the history a conversation's next prompt
// would receive.
type BuildHistoryRequest struct {
	ConversationID string `json:"conversationId"`
	BuildSpec
}

// BuildHistoryResponse is the history text of a next prompt and what it
// took and left out.
type BuildHistoryResponse struct {
	Text     string      `json:"text"`
	Tokens   int         `json:"tokens"`
	Selected int         `json:"selected"`
	Omitted  int         `json:"omitted"`
	Budget   int         `json:"budget"`
	Model    ModelBudget `json:"model"`
	// Tokenizer names the encoding Tokens and the budgets are counted in.
	Tokenizer string    `json:"tokenizer"`
	Warnings  []Warning `json:"warnings"`
}

// BuildHistory builds the history a conversation's next prompt would
// receive, within the budget of the model the request names.
func (o *Ops) BuildHistory(ctx context.Context, req BuildHistoryRequest) (BuildHistoryResponse, error) {
	return withRuns(o, ctx, []field{{"conversationId", req.ConversationID}}, func(st *stores) (BuildHistoryResponse, error) {
		return withHeavy(o, ctx, func(ctx context.Context) (BuildHistoryResponse, error) {
			hc, b, err := st.hist.BuildFor(ctx, req.ConversationID, req.BuildSpec, o.Library().Config())
			if err != nil {
				return BuildHistoryResponse{}, err
			}
			ws := make([]Warning, 0, len(hc.Warnings))
			for _, w := range hc.Warnings {
				ws = append(ws, Warning{Message: w})
			}
			return BuildHistoryResponse{Text: hc.Text, Tokens: hc.Tokens, Selected: hc.Selected, Omitted: hc.Omitted,
				Budget: hc.Budget, Model: b, Tokenizer: o.Library().Counter().Name(), Warnings: ws}, nil
		})
	})
}

// DeleteConversationRequest deletes a conversation in two calls: the
// first, without ConfirmToken, returns a token that the second passes
// back.
type DeleteConversationRequest struct {
	ConversationID string `json:"conversationId"`
	ConfirmToken   string `json:"confirmToken,omitempty"`
}

// DeleteConversationResponse is the token to confirm with, or the
// deletion.
type DeleteConversationResponse struct {
	ConversationID string `json:"conversationId"`
	deletion
}

// DeleteConversation deletes a conversation and its messages, once
// confirmed.
func (o *Ops) DeleteConversation(ctx context.Context, req DeleteConversationRequest) (DeleteConversationResponse, error) {
	return withRuns(o, ctx, []field{{"conversationId", req.ConversationID}}, func(st *stores) (DeleteConversationResponse, error) {
		d, err := deleteInTwoSteps(req.ConfirmToken, string(MethodHistoryDelete), "conversation "+req.ConversationID+" and its messages",
			func() (string, time.Time, error) { return st.hist.RequestDelete(ctx, req.ConversationID) },
			func(tok string) error { return st.hist.ConfirmDelete(ctx, req.ConversationID, tok) })
		switch {
		case req.ConfirmToken == "" && errors.Is(err, history.ErrUnknownConversation):
			d = deletion{Message: "nothing to delete", Warnings: historyUnknown(req.ConversationID)}
		case err != nil:
			return DeleteConversationResponse{}, err
		case d.Deleted:
			d.Message = "conversation " + req.ConversationID + " deleted"
		}
		return DeleteConversationResponse{ConversationID: req.ConversationID, deletion: d}, nil
	})
}
