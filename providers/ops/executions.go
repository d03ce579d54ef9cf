package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ctxls/ctxls/providers/runs/execution"
)

// Types of the execution store as the execution operations return them.
type (
	ExecutionState   = execution.ExecutionState
	CommandExecution = execution.CommandExecution
	ExecutionSummary = execution.Summary
)

// ExecutionResponse is an execution with the response's warnings.
type ExecutionResponse struct {
	*ExecutionState
	Warnings []Warning `json:"warnings"`
}

// CommandResponse is one attempt of a command with the response's
// warnings.
type CommandResponse struct {
	*CommandExecution
	Warnings []Warning `json:"warnings"`
}

// CreateExecutionRequest asks for a new execution.
type CreateExecutionRequest struct {
	ProjectName string `json:"projectName"`
	ProjectType string `json:"projectType,omitempty"`
	// MakeCurrent false keeps the current execution; absent or true makes
	// the new one current.
	MakeCurrent *bool `json:"makeCurrent,omitempty"`
}

// CreateExecution creates an execution.
func (o *Ops) CreateExecution(ctx context.Context, req CreateExecutionRequest) (ExecutionResponse, error) {
	return withRuns(o, ctx, []field{{"projectName", req.ProjectName}}, func(st *stores) (ExecutionResponse, error) {
		var opts []execution.CreateOption
		if req.MakeCurrent != nil && !*req.MakeCurrent {
			opts = append(opts, execution.KeepCurrent())
		}
		es, err := st.exec.Create(ctx, req.ProjectName, req.ProjectType, opts...)
		o.executionsChanged()
		return executionResponse(es, err)
	})
}

// ProjectRequest names a project.
type ProjectRequest struct {
	ProjectName string `json:"projectName"`
}

// GetOrCreateExecution returns the current execution of a project,
// creating one when there is none.
func (o *Ops) GetOrCreateExecution(ctx context.Context, req ProjectRequest) (ExecutionResponse, error) {
	return withRuns(o, ctx, []field{{"projectName", req.ProjectName}}, func(st *stores) (ExecutionResponse, error) {
		es, err := st.exec.GetOrCreate(ctx, req.ProjectName)
		o.executionsChanged()
		return executionResponse(es, err)
	})
}

func executionResponse(es *ExecutionState, err error) (ExecutionResponse, error) {
	if err != nil {
		return ExecutionResponse{}, err
	}
	return ExecutionResponse{ExecutionState: es, Warnings: []Warning{}}, nil
}

// SessionRequest names an execution; some operations take the current one
// when SessionID is empty.
type SessionRequest struct {
	SessionID string `json:"sessionId,omitempty"`
}

// CommandRequest records the start or the end of a command by hand.
type CommandRequest struct {
	SessionID string         `json:"sessionId"`
	Command   string         `json:"command"`
	Inputs    map[string]any `json:"inputs,omitempty"`
	// Status ends the command (default success).
	Status  string         `json:"status,omitempty"`
	Outputs map[string]any `json:"outputs,omitempty"`
	// MemoryUpdated ("layer:key") and SkillsInvoked are added to the
	// attempt's lists.
	MemoryUpdated []string `json:"memoryUpdated,omitempty"`
	SkillsInvoked []string `json:"skillsInvoked,omitempty"`
}

func (r CommandRequest) items() []execution.CommandOption {
	return []execution.CommandOption{execution.WithMemoryUpdated(r.MemoryUpdated...), execution.WithSkillsInvoked(r.SkillsInvoked...)}
}

// recordCommand checks a hand-recorded command's request and records it
// through record. It refuses an execution whose chain this process runs:
// the store would take the command for the chain's own and the chain would
// lose its step.
func (o *Ops) recordCommand(ctx context.Context, req CommandRequest, record func(*stores) (*CommandExecution, error)) (CommandResponse, error) {
	return withRuns(o, ctx, []field{{"sessionId", req.SessionID}, {"command", req.Command}}, func(st *stores) (CommandResponse, error) {
		if slices.Contains(st.runner.Running(), req.SessionID) {
			return CommandResponse{}, withKind(ErrConflict, fmt.Errorf("a chain is running in execution %s; cancel it (ctxls/chain/cancel) before recording commands by hand", req.SessionID))
		}
		ce, err := record(st)
		o.executionsChanged()
		if err != nil {
			return CommandResponse{}, err
		}
		return CommandResponse{CommandExecution: ce, Warnings: []Warning{}}, nil
	})
}

// StartCommand records that a command started in an execution.
func (o *Ops) StartCommand(ctx context.Context, req CommandRequest) (CommandResponse, error) {
	return o.recordCommand(ctx, req, func(st *stores) (*CommandExecution, error) {
		return st.exec.StartCommand(ctx, req.SessionID, req.Command, req.Inputs, req.items()...)
	})
}

// CompleteCommand records that a command ended.
func (o *Ops) CompleteCommand(ctx context.Context, req CommandRequest) (CommandResponse, error) {
	status := execution.StatusSuccess
	if req.Status != "" {
		status = execution.Status(req.Status)
	}
	return o.recordCommand(ctx, req, func(st *stores) (*CommandExecution, error) {
		return st.exec.CompleteCommand(ctx, req.SessionID, req.Command, status, req.Outputs, req.items()...)
	})
}

// PreviousCommandRequest asks for the latest attempt of a command, or of
// the latest command when Command is empty.
type PreviousCommandRequest struct {
	SessionID string `json:"sessionId"`
	Command   string `json:"command,omitempty"`
}

// PreviousCommand returns the latest attempt of a command, or nil when
// there is none.
func (o *Ops) PreviousCommand(ctx context.Context, req PreviousCommandRequest) (*CommandResponse, error) {
	return withRuns(o, ctx, []field{{"sessionId", req.SessionID}}, func(st *stores) (*CommandResponse, error) {
		ce, err := st.exec.GetPreviousCommand(ctx, req.SessionID, req.Command)
		if err != nil || ce == nil {
			return nil, err
		}
		return &CommandResponse{CommandExecution: ce, Warnings: []Warning{}}, nil
	})
}

// ContextLoadRequest records a topic loaded in an execution. Without
// Content the topic is recorded as the library has it.
type ContextLoadRequest struct {
	SessionID string  `json:"sessionId"`
	Domain    string  `json:"domain"`
	Topic     string  `json:"topic"`
	Content   *string `json:"content,omitempty"`
}

// MemoryLoadRequest records a memory entry loaded in an execution.
type MemoryLoadRequest struct {
	SessionID string  `json:"sessionId"`
	Layer     string  `json:"layer"`
	Key       string  `json:"key"`
	Content   *string `json:"content"`
}

// RecordResponse says what was recorded.
type RecordResponse struct {
	Recorded bool   `json:"recorded"`
	Key      string `json:"key"`
	// Bytes is the size of the content recorded.
	Bytes    int       `json:"bytes"`
	Warnings []Warning `json:"warnings"`
}

// CachedResponse is a cache lookup: Content is null on a miss.
type CachedResponse struct {
	Cached   bool      `json:"cached"`
	Content  *string   `json:"content"`
	Warnings []Warning `json:"warnings"`
}

func cachedResponse(content string, ok bool, err error) (CachedResponse, error) {
	if err != nil {
		return CachedResponse{}, err
	}
	res := CachedResponse{Cached: ok, Warnings: []Warning{}}
	if ok {
		res.Content = &content
	}
	return res, nil
}

// RecordContextLoad records a topic loaded in an execution, for later
// steps to take from the cache.
func (o *Ops) RecordContextLoad(ctx context.Context, req ContextLoadRequest) (RecordResponse, error) {
	return withRuns(o, ctx, req.fields(), func(st *stores) (RecordResponse, error) {
		res := RecordResponse{Key: req.Domain + ":" + req.Topic, Warnings: []Warning{}}
		var content string
		if req.Content != nil {
			content = *req.Content
		} else {
			f, err := o.prov.Materialize(ctx, Reference{ID: req.Domain + "/" + req.Topic})
			if err != nil {
				return RecordResponse{}, withKind(ErrInvalid, err)
			}
			if f.ID == "" {
				for _, w := range f.Warnings {
					res.Warnings = append(res.Warnings, Warning{Message: w.Message + "; nothing recorded", Code: w.Code})
				}
				return res, nil
			}
			content = f.Content
		}
		if err := st.exec.RecordContextLoad(ctx, req.SessionID, req.Domain, req.Topic, content); err != nil {
			return RecordResponse{}, err
		}
		res.Recorded, res.Bytes = true, len(content)
		return res, nil
	})
}

// CachedContext returns a topic recorded in an execution.
func (o *Ops) CachedContext(ctx context.Context, req ContextLoadRequest) (CachedResponse, error) {
	return withRuns(o, ctx, req.fields(), func(st *stores) (CachedResponse, error) {
		return cachedResponse(st.exec.GetCachedContext(ctx, req.SessionID, req.Domain, req.Topic))
	})
}

func (r ContextLoadRequest) fields() []field {
	return []field{{"sessionId", r.SessionID}, {"domain", r.Domain}, {"topic", r.Topic}}
}

// RecordMemoryLoad records a memory entry loaded in an execution.
func (o *Ops) RecordMemoryLoad(ctx context.Context, req MemoryLoadRequest) (RecordResponse, error) {
	return withRuns(o, ctx, req.fields(), func(st *stores) (RecordResponse, error) {
		if req.Content == nil {
			return RecordResponse{}, invalidf("content is required")
		}
		if err := st.exec.RecordMemoryLoad(ctx, req.SessionID, req.Layer, req.Key, *req.Content); err != nil {
			return RecordResponse{}, err
		}
		return RecordResponse{Recorded: true, Key: req.Layer + ":" + req.Key, Bytes: len(*req.Content), Warnings: []Warning{}}, nil
	})
}

// CachedMemory returns a memory entry recorded in an execution.
func (o *Ops) CachedMemory(ctx context.Context, req MemoryLoadRequest) (CachedResponse, error) {
	return withRuns(o, ctx, req.fields(), func(st *stores) (CachedResponse, error) {
		return cachedResponse(st.exec.GetCachedMemory(ctx, req.SessionID, req.Layer, req.Key))
	})
}

func (r MemoryLoadRequest) fields() []field {
	return []field{{"sessionId", r.SessionID}, {"layer", r.Layer}, {"key", r.Key}}
}

// SharedDataRequest names, and for SetSharedData gives, a value shared
// between the commands of an execution.
type SharedDataRequest struct {
	SessionID string          `json:"sessionId"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value,omitempty"`
}

// SharedDataResponse is a shared value: Stored after a set, Found and
// Value after a get (Value is null when not found).
type SharedDataResponse struct {
	Key      string          `json:"key"`
	Stored   bool            `json:"stored,omitempty"`
	Found    *bool           `json:"found,omitempty"`
	Value    json.RawMessage `json:"value,omitempty"`
	Warnings []Warning       `json:"warnings"`
}

// SetSharedData stores a value for the other commands of an execution.
func (o *Ops) SetSharedData(ctx context.Context, req SharedDataRequest) (SharedDataResponse, error) {
	return withRuns(o, ctx, req.fields(), func(st *stores) (SharedDataResponse, error) {
		if len(req.Value) == 0 {
			return SharedDataResponse{}, invalidf("value is required (use null to store null)")
		}
		if err := st.exec.SetSharedData(ctx, req.SessionID, req.Key, req.Value); err != nil {
			return SharedDataResponse{}, err
		}
		return SharedDataResponse{Key: req.Key, Stored: true, Warnings: []Warning{}}, nil
	})
}

// SharedData returns a value stored for the commands of an execution.
func (o *Ops) SharedData(ctx context.Context, req SharedDataRequest) (SharedDataResponse, error) {
	return withRuns(o, ctx, req.fields(), func(st *stores) (SharedDataResponse, error) {
		v, ok, err := st.exec.GetSharedData(ctx, req.SessionID, req.Key)
		if err != nil {
			return SharedDataResponse{}, err
		}
		if !ok {
			v = json.RawMessage("null")
		}
		return SharedDataResponse{Key: req.Key, Found: &ok, Value: v, Warnings: []Warning{}}, nil
	})
}

func (r SharedDataRequest) fields() []field {
	return []field{{"sessionId", r.SessionID}, {"key", r.Key}}
}

// ExecutionListRequest asks for a page of the executions, newest first.
type ExecutionListRequest struct {
	// Limit is the most executions the page holds: 0 means 100, and it is
	// capped at 1,000.
	Limit int `json:"limit,omitempty"`
	// Cursor is the next of the page before; empty for the first page.
	Cursor string `json:"cursor,omitempty"`
}

// ExecutionListResponse is a page of the executions, newest first, and the
// id of the current one ("" when there is none), on the page or not.
type ExecutionListResponse struct {
	Items   []ExecutionSummary `json:"items"`
	Current string             `json:"current"`
	// Next is the cursor of the page after this one; empty on the last.
	Next     string    `json:"next,omitempty"`
	Warnings []Warning `json:"warnings"`
}

// Executions lists a page of the executions.
func (o *Ops) Executions(ctx context.Context, req ExecutionListRequest) (ExecutionListResponse, error) {
	return withRuns(o, ctx, nil, func(st *stores) (ExecutionListResponse, error) {
		page, err := st.exec.ListPage(ctx, execution.ListRequest{Limit: req.Limit, Cursor: req.Cursor})
		if err != nil {
			return ExecutionListResponse{}, err
		}
		if page.Items == nil {
			page.Items = []ExecutionSummary{}
		}
		return ExecutionListResponse{Items: page.Items, Current: page.Current, Next: page.Next, Warnings: []Warning{}}, nil
	})
}

// Execution returns an execution, the current one when SessionID is empty.
func (o *Ops) Execution(ctx context.Context, req SessionRequest) (ExecutionResponse, error) {
	return withRuns(o, ctx, nil, func(st *stores) (ExecutionResponse, error) {
		return executionResponse(st.exec.Get(ctx, req.SessionID))
	})
}

// SetCurrentResponse confirms the current execution.
type SetCurrentResponse struct {
	SessionID string    `json:"sessionId"`
	IsCurrent bool      `json:"isCurrent"`
	Warnings  []Warning `json:"warnings"`
}

// SetCurrentExecution makes an execution the current one.
func (o *Ops) SetCurrentExecution(ctx context.Context, req SessionRequest) (SetCurrentResponse, error) {
	return withRuns(o, ctx, []field{{"sessionId", req.SessionID}}, func(st *stores) (SetCurrentResponse, error) {
		if err := st.exec.SetCurrent(ctx, req.SessionID); err != nil {
			return SetCurrentResponse{}, err
		}
		o.executionsChanged()
		return SetCurrentResponse{SessionID: req.SessionID, IsCurrent: true, Warnings: []Warning{}}, nil
	})
}

// DeleteExecutionRequest deletes an execution in two calls: the first,
// without ConfirmToken, returns a token that the second passes back.
type DeleteExecutionRequest struct {
	SessionID    string `json:"sessionId"`
	ConfirmToken string `json:"confirmToken,omitempty"`
}

// DeleteExecutionResponse is the token to confirm with, or the deletion.
type DeleteExecutionResponse struct {
	SessionID string `json:"sessionId"`
	deletion
}

// deletion is one call of a two-step delete: the token to confirm with
// and until when it holds, or the deletion.
type deletion struct {
	Deleted      bool       `json:"deleted"`
	ConfirmToken string     `json:"confirmToken,omitempty"`
	ExpiresAt    *time.Time `json:"expiresAt,omitempty"`
	Message      string     `json:"message"`
	Warnings     []Warning  `json:"warnings"`
}

// deleteInTwoSteps is one call of the two-step delete of what (such as
// "execution ID and everything it recorded") by method: without
// confirmToken it asks request for a token, with it it deletes through
// confirm.
func deleteInTwoSteps(confirmToken, method, what string, request func() (string, time.Time, error), confirm func(token string) error) (deletion, error) {
	if confirmToken == "" {
		tok, exp, err := request()
		if err != nil {
			return deletion{}, err
		}
		exp = exp.UTC()
		return deletion{ConfirmToken: tok, ExpiresAt: &exp, Warnings: []Warning{},
			Message: fmt.Sprintf("call %s again with this confirmToken before %s to delete %s", method, exp.Format(time.RFC3339), what)}, nil
	}
	if err := confirm(confirmToken); err != nil {
		return deletion{}, err
	}
	return deletion{Deleted: true, Warnings: []Warning{}}, nil
}

// DeleteExecution deletes an execution and everything it recorded, once
// confirmed.
func (o *Ops) DeleteExecution(ctx context.Context, req DeleteExecutionRequest) (DeleteExecutionResponse, error) {
	return withRuns(o, ctx, []field{{"sessionId", req.SessionID}}, func(st *stores) (DeleteExecutionResponse, error) {
		d, err := deleteInTwoSteps(req.ConfirmToken, string(MethodExecutionDelete), "execution "+req.SessionID+" and everything it recorded",
			func() (string, time.Time, error) { return st.exec.RequestDelete(ctx, req.SessionID) },
			func(tok string) error { return st.exec.ConfirmDelete(ctx, req.SessionID, tok) })
		if err != nil {
			return DeleteExecutionResponse{}, err
		}
		if d.Deleted {
			o.executionsChanged()
			d.Message = "execution " + req.SessionID + " deleted"
		}
		return DeleteExecutionResponse{SessionID: req.SessionID, deletion: d}, nil
	})
}
