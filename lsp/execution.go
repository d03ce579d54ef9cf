package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
	"github.com/ctxls/ctxls/providers/context/tokens"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/history"
)

// codeConflict is the JSON-RPC error code of a request that collides with
// work in progress: a chain already running in the execution, here or in
// another ctxls process.
const codeConflict jsonrpc2.Code = -32001

// executions holds the server's execution store and chain runner, made
// with the database on first use and closed with the server.
type executions struct {
	mu     sync.Mutex
	store  *execution.Store
	runner *chain.Runner
	closed bool
	// chains maps the work-done token of each running chain request to the
	// cancel function of that request, for window/workDoneProgress/cancel.
	chains map[string]context.CancelFunc
}

// executionStore returns the execution store of the workspace database.
func (s *Server) executionStore(ctx context.Context) (*execution.Store, error) {
	st, _, err := s.chainState(ctx)
	return st, err
}

// chainState returns the execution store and the chain runner, creating
// them on first use.
func (s *Server) chainState(ctx context.Context) (*execution.Store, *chain.Runner, error) {
	e := &s.exec
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, nil, errors.New("the server is shutting down")
	}
	if e.store != nil {
		return e.store, e.runner, nil
	}
	if _, err := s.workspaceCtx(ctx); err != nil {
		return nil, nil, err
	}
	prov := s.provider()
	if prov == nil {
		return nil, nil, errors.New("the workspace is closed")
	}
	db, err := s.database(ctx)
	if err != nil {
		return nil, nil, err
	}
	store, err := execution.New(ctx, db, execution.Options{OnError: func(err error) {
		s.stderr.Warn("execution store", "err", err)
	}})
	if err != nil {
		return nil, nil, fmt.Errorf("open the execution store: %w", err)
	}
	hist := chain.StoreHistory(history.New(db, func() tokens.Counter { return prov.Library().Counter() }, history.Options{Logger: s.stderr}))
	e.store = store
	e.runner = chain.New(chain.Options{Store: store, Provider: prov, History: hist})
	return e.store, e.runner, nil
}

// close stops running chains and closes the store, which records what this
// process was running as interrupted. It runs before the database closes.
func (e *executions) close(log func(error)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.store == nil {
		return
	}
	e.runner.Cancel("")
	// Give cancelled steps a moment to record themselves.
	deadline := time.Now().Add(3 * time.Second)
	for len(e.runner.Running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := e.store.Close(); err != nil {
		log(err)
	}
}

// chainIdle refuses to start or complete commands by hand in an execution
// whose chain this server is running: the store would take them for the
// chain's own and the chain would lose its step.
func (s *Server) chainIdle(sessionID string) error {
	s.exec.mu.Lock()
	runner := s.exec.runner
	s.exec.mu.Unlock()
	if runner == nil {
		return nil
	}
	for _, id := range runner.Running() {
		if id == sessionID {
			return jsonrpc2.NewError(codeConflict, fmt.Sprintf("a chain is running in execution %s; cancel it (ctxls/chain/cancel) before recording commands by hand", sessionID))
		}
	}
	return nil
}

// executionError maps the store's errors to JSON-RPC errors with the
// store's message.
func executionError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, execution.ErrConflict), errors.Is(err, chain.ErrConflict):
		return jsonrpc2.NewError(codeConflict, err.Error())
	case errors.Is(err, execution.ErrInvalidArgument), errors.Is(err, execution.ErrNotFound),
		errors.Is(err, execution.ErrNoRunningCommand), errors.Is(err, execution.ErrIsCurrent),
		errors.Is(err, execution.ErrInvalidToken), errors.Is(err, execution.ErrNoPlan),
		errors.Is(err, execution.ErrUnfinishedChain),
		errors.Is(err, chain.ErrUnknownCommand), errors.Is(err, chain.ErrNoCommands),
		errors.Is(err, chain.ErrExecutor):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return err
}

// withWarnings encodes v, a JSON object, with a warnings field added.
func withWarnings(v any, warnings []warning) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if warnings == nil {
		warnings = []warning{}
	}
	w, err := json.Marshal(warnings)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' {
		return b, nil
	}
	out := append([]byte(nil), b[:len(b)-1]...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"warnings":`...)
	out = append(out, w...)
	return append(out, '}'), nil
}

// sessionParams are the parameters naming an execution.
type sessionParams struct {
	SessionID string `json:"sessionId"`
}

// withStore decodes params into p, checks that sessionId is set when
// needSession, and runs fn with the store.
func withStore[P any](ctx context.Context, s *Server, params json.RawMessage, p *P, session func(*P) string,
	fn func(*execution.Store) (any, error)) (any, error) {
	if err := decodeParams(params, p); err != nil {
		return nil, err
	}
	if session != nil {
		if err := requireField("sessionId", session(p)); err != nil {
			return nil, err
		}
	}
	st, err := s.executionStore(ctx)
	if err != nil {
		return nil, err
	}
	res, err := fn(st)
	if err != nil {
		return nil, executionError(err)
	}
	return res, nil
}

func executionCreate(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		ProjectName string `json:"projectName"`
		ProjectType string `json:"projectType"`
		// MakeCurrent false keeps the current execution.
		MakeCurrent *bool `json:"makeCurrent"`
	}
	return withStore(ctx, s, params, &p, nil, func(st *execution.Store) (any, error) {
		if err := requireField("projectName", p.ProjectName); err != nil {
			return nil, err
		}
		var opts []execution.CreateOption
		if p.MakeCurrent != nil && !*p.MakeCurrent {
			opts = append(opts, execution.KeepCurrent())
		}
		es, err := st.Create(ctx, p.ProjectName, p.ProjectType, opts...)
		if err != nil {
			return nil, err
		}
		return withWarnings(es, nil)
	})
}

func executionGetOrCreate(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		ProjectName string `json:"projectName"`
	}
	return withStore(ctx, s, params, &p, nil, func(st *execution.Store) (any, error) {
		if err := requireField("projectName", p.ProjectName); err != nil {
			return nil, err
		}
		es, err := st.GetOrCreate(ctx, p.ProjectName)
		if err != nil {
			return nil, err
		}
		return withWarnings(es, nil)
	})
}

type commandParams struct {
	SessionID string         `json:"sessionId"`
	Command   string         `json:"command"`
	Inputs    map[string]any `json:"inputs"`
	Status    string         `json:"status"`
	Outputs   map[string]any `json:"outputs"`
	// MemoryUpdated ("layer:key") and SkillsInvoked, given to startCommand
	// or completeCommand, are added to the attempt's lists.
	MemoryUpdated []string `json:"memoryUpdated"`
	SkillsInvoked []string `json:"skillsInvoked"`
}

// items returns the options that record p's memoryUpdated and
// skillsInvoked entries.
func (p commandParams) items() []execution.CommandOption {
	return []execution.CommandOption{execution.WithMemoryUpdated(p.MemoryUpdated...), execution.WithSkillsInvoked(p.SkillsInvoked...)}
}

func sessionOf[P interface{ session() string }](p *P) string { return (*p).session() }

func (p commandParams) session() string { return p.SessionID }

func executionStartCommand(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p commandParams
	return withStore(ctx, s, params, &p, sessionOf[commandParams], func(st *execution.Store) (any, error) {
		if err := requireField("command", p.Command); err != nil {
			return nil, err
		}
		if err := s.chainIdle(p.SessionID); err != nil {
			return nil, err
		}
		ce, err := st.StartCommand(ctx, p.SessionID, p.Command, p.Inputs, p.items()...)
		if err != nil {
			return nil, err
		}
		return withWarnings(ce, nil)
	})
}

func executionCompleteCommand(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p commandParams
	return withStore(ctx, s, params, &p, sessionOf[commandParams], func(st *execution.Store) (any, error) {
		if err := requireField("command", p.Command); err != nil {
			return nil, err
		}
		if err := s.chainIdle(p.SessionID); err != nil {
			return nil, err
		}
		if p.Status == "" {
			p.Status = string(execution.StatusSuccess)
		}
		ce, err := st.CompleteCommand(ctx, p.SessionID, p.Command, execution.Status(p.Status), p.Outputs, p.items()...)
		if err != nil {
			return nil, err
		}
		return withWarnings(ce, nil)
	})
}

type cacheParams struct {
	SessionID string  `json:"sessionId"`
	Domain    string  `json:"domain"`
	Topic     string  `json:"topic"`
	Layer     string  `json:"layer"`
	Key       string  `json:"key"`
	Content   *string `json:"content"`
}

func (p cacheParams) session() string { return p.SessionID }

// cachedResult answers getCachedContext and getCachedMemory: content is
// null on a cache miss.
type cachedResult struct {
	Cached   bool      `json:"cached"`
	Content  *string   `json:"content"`
	Warnings []warning `json:"warnings"`
}

type recordResult struct {
	Recorded bool   `json:"recorded"`
	Key      string `json:"key"`
	// Bytes is the size of the content recorded.
	Bytes    int       `json:"bytes"`
	Warnings []warning `json:"warnings"`
}

func executionRecordContextLoad(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p cacheParams
	return withStore(ctx, s, params, &p, sessionOf[cacheParams], func(st *execution.Store) (any, error) {
		if err := requireField("domain", p.Domain); err != nil {
			return nil, err
		}
		if err := requireField("topic", p.Topic); err != nil {
			return nil, err
		}
		res := recordResult{Key: p.Domain + ":" + p.Topic, Warnings: []warning{}}
		var content string
		if p.Content != nil {
			content = *p.Content
		} else {
			// Without content, record the topic as the library has it.
			prov := s.provider()
			if prov == nil {
				return nil, errors.New("the workspace is closed")
			}
			f, err := prov.Materialize(ctx, contextprovider.Reference{ID: p.Domain + "/" + p.Topic})
			if err != nil {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
			}
			if f.ID == "" {
				for _, w := range f.Warnings {
					res.Warnings = append(res.Warnings, warning{Message: w.Message + "; nothing recorded", Code: w.Code})
				}
				return res, nil
			}
			content = f.Content
		}
		if err := st.RecordContextLoad(ctx, p.SessionID, p.Domain, p.Topic, content); err != nil {
			return nil, err
		}
		res.Recorded, res.Bytes = true, len(content)
		return res, nil
	})
}

func executionGetCachedContext(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p cacheParams
	return withStore(ctx, s, params, &p, sessionOf[cacheParams], func(st *execution.Store) (any, error) {
		if err := requireField("domain", p.Domain); err != nil {
			return nil, err
		}
		if err := requireField("topic", p.Topic); err != nil {
			return nil, err
		}
		c, ok, err := st.GetCachedContext(ctx, p.SessionID, p.Domain, p.Topic)
		if err != nil {
			return nil, err
		}
		res := cachedResult{Cached: ok, Warnings: []warning{}}
		if ok {
			res.Content = &c
		}
		return res, nil
	})
}

func executionRecordMemoryLoad(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p cacheParams
	return withStore(ctx, s, params, &p, sessionOf[cacheParams], func(st *execution.Store) (any, error) {
		if err := requireField("layer", p.Layer); err != nil {
			return nil, err
		}
		if err := requireField("key", p.Key); err != nil {
			return nil, err
		}
		if p.Content == nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: content is required")
		}
		if err := st.RecordMemoryLoad(ctx, p.SessionID, p.Layer, p.Key, *p.Content); err != nil {
			return nil, err
		}
		return recordResult{Recorded: true, Key: p.Layer + ":" + p.Key, Bytes: len(*p.Content), Warnings: []warning{}}, nil
	})
}

func executionGetCachedMemory(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p cacheParams
	return withStore(ctx, s, params, &p, sessionOf[cacheParams], func(st *execution.Store) (any, error) {
		if err := requireField("layer", p.Layer); err != nil {
			return nil, err
		}
		if err := requireField("key", p.Key); err != nil {
			return nil, err
		}
		c, ok, err := st.GetCachedMemory(ctx, p.SessionID, p.Layer, p.Key)
		if err != nil {
			return nil, err
		}
		res := cachedResult{Cached: ok, Warnings: []warning{}}
		if ok {
			res.Content = &c
		}
		return res, nil
	})
}

type sharedParams struct {
	SessionID string          `json:"sessionId"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
}

func (p sharedParams) session() string { return p.SessionID }

func executionSetSharedData(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p sharedParams
	return withStore(ctx, s, params, &p, sessionOf[sharedParams], func(st *execution.Store) (any, error) {
		if err := requireField("key", p.Key); err != nil {
			return nil, err
		}
		if len(p.Value) == 0 {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: value is required (use null to store null)")
		}
		if err := st.SetSharedData(ctx, p.SessionID, p.Key, p.Value); err != nil {
			return nil, err
		}
		return map[string]any{"key": p.Key, "stored": true, "warnings": []warning{}}, nil
	})
}

func executionGetSharedData(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p sharedParams
	return withStore(ctx, s, params, &p, sessionOf[sharedParams], func(st *execution.Store) (any, error) {
		if err := requireField("key", p.Key); err != nil {
			return nil, err
		}
		v, ok, err := st.GetSharedData(ctx, p.SessionID, p.Key)
		if err != nil {
			return nil, err
		}
		if !ok {
			v = json.RawMessage("null")
		}
		return map[string]any{"key": p.Key, "found": ok, "value": v, "warnings": []warning{}}, nil
	})
}

func executionGetPreviousCommand(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p commandParams
	return withStore(ctx, s, params, &p, sessionOf[commandParams], func(st *execution.Store) (any, error) {
		ce, err := st.GetPreviousCommand(ctx, p.SessionID, p.Command)
		if err != nil {
			return nil, err
		}
		if ce == nil {
			// The seed interface answers null when there is none.
			return json.RawMessage("null"), nil
		}
		return withWarnings(ce, nil)
	})
}

// executionList answers ctxls/execution/list with the store's encoding,
// which it caches: with 10,000 executions, encoding them on every call
// would cost more than the rest of the call.
func executionList(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct{}
	return withStore(ctx, s, params, &p, nil, func(st *execution.Store) (any, error) {
		return st.ListJSON(ctx)
	})
}

func executionGet(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p sessionParams
	return withStore(ctx, s, params, &p, nil, func(st *execution.Store) (any, error) {
		es, err := st.Get(ctx, p.SessionID)
		if err != nil {
			return nil, err
		}
		return withWarnings(es, nil)
	})
}

func (p sessionParams) session() string { return p.SessionID }

func executionSetCurrent(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p sessionParams
	return withStore(ctx, s, params, &p, sessionOf[sessionParams], func(st *execution.Store) (any, error) {
		if err := st.SetCurrent(ctx, p.SessionID); err != nil {
			return nil, err
		}
		return map[string]any{"sessionId": p.SessionID, "isCurrent": true, "warnings": []warning{}}, nil
	})
}

type deleteParams struct {
	SessionID    string `json:"sessionId"`
	ConfirmToken string `json:"confirmToken"`
}

func (p deleteParams) session() string { return p.SessionID }

type deleteResult struct {
	SessionID    string     `json:"sessionId"`
	Deleted      bool       `json:"deleted"`
	ConfirmToken string     `json:"confirmToken,omitempty"`
	ExpiresAt    *time.Time `json:"expiresAt,omitempty"`
	Message      string     `json:"message"`
	Warnings     []warning  `json:"warnings"`
}

func executionDelete(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p deleteParams
	return withStore(ctx, s, params, &p, sessionOf[deleteParams], func(st *execution.Store) (any, error) {
		if p.ConfirmToken == "" {
			tok, exp, err := st.RequestDelete(ctx, p.SessionID)
			if err != nil {
				return nil, err
			}
			exp = exp.UTC()
			return deleteResult{SessionID: p.SessionID, ConfirmToken: tok, ExpiresAt: &exp, Warnings: []warning{},
				Message: fmt.Sprintf("call ctxls/execution/delete again with this confirmToken before %s to delete execution %s and everything it recorded",
					exp.Format(time.RFC3339), p.SessionID)}, nil
		}
		if err := st.ConfirmDelete(ctx, p.SessionID, p.ConfirmToken); err != nil {
			return nil, err
		}
		return deleteResult{SessionID: p.SessionID, Deleted: true, Message: "execution " + p.SessionID + " deleted", Warnings: []warning{}}, nil
	})
}
