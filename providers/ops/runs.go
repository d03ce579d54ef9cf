package ops

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/history"
	"github.com/ctxls/ctxls/providers/runs/storage"
	"github.com/ctxls/ctxls/providers/tokens"
)

// runs is what the run operations share: the workspace database with its
// one execution store and one history store, and the chain runner over
// them. They are made on first use, so that operations on the context
// alone never create the database, and closed by Close.
type runs struct {
	mu     sync.Mutex
	closed bool
	open   *stores
}

// stores are the run stores of a workspace; once made they do not change.
type stores struct {
	db     *storage.DB
	exec   *execution.Store
	hist   *history.Store
	runner *chain.Runner
}

// stores returns the run stores, opening the database in the workspace's
// .ctxls directory on first use.
func (o *Ops) stores(ctx context.Context) (*stores, error) {
	r := &o.runs
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, withKind(ErrUnavailable, errors.New("the workspace is closed"))
	}
	if r.open != nil {
		return r.open, nil
	}
	dir := o.Library().Dir()
	db, err := storage.OpenWorkspace(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("open the database in %s: %w", dir, err)
	}
	exec, err := execution.New(ctx, db, execution.Options{OnError: func(err error) {
		o.log.Warn("execution store", "err", err)
	}, DetectProjectType: chain.ProjectTypeDetector(o.prov, func(err error) {
		o.log.Warn("detect the project type", "err", err)
	})})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open the execution store: %w", err)
	}
	// The history store measures with the tokenizer of the library in
	// effect at each operation, so that a changed setting applies to the
	// next chain step without a restart.
	hist := history.New(db, func() tokens.Counter { return o.Library().Counter() }, history.Options{Logger: o.log})
	runner := chain.New(chain.Options{Store: exec, Provider: o.prov, History: chain.StoreHistory(hist), Executor: o.opts.Executor,
		Consent: o.consent})
	r.open = &stores{db: db, exec: exec, hist: hist, runner: runner}
	return r.open, nil
}

// Close stops running chains, which record their interruption, and closes
// the stores and the database. Operations that need them fail afterwards.
func (o *Ops) Close() error {
	r := &o.runs
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	st := r.open
	r.open = nil
	if st == nil {
		return nil
	}
	st.runner.Cancel("")
	// Give cancelled steps a moment to record themselves.
	deadline := time.Now().Add(3 * time.Second)
	for len(st.runner.Running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return errors.Join(st.exec.Close(), st.db.Close())
}

// withRuns checks the fields a request requires, then runs fn with the run
// stores.
func withRuns[T any](o *Ops, ctx context.Context, required []field, fn func(*stores) (T, error)) (T, error) {
	var zero T
	if err := require(required...); err != nil {
		return zero, err
	}
	st, err := o.stores(ctx)
	if err != nil {
		return zero, err
	}
	res, err := fn(st)
	if err != nil {
		return zero, err
	}
	return res, nil
}
