// Package memo keeps computed values for one generation of their inputs
// and shares each computation among the callers that want it at the same
// time.
package memo

import (
	"context"
	"errors"
	"sync"
)

// A Cache keeps the values computed for one generation G (such as a
// version of a library), keyed by K. Concurrent callers of the same key
// wait for the one computation; a value of another generation is never
// returned. A Cache is safe for concurrent use; use New to make one.
type Cache[G, K comparable, V any] struct {
	max   int
	older func(a, b G) bool

	mu    sync.Mutex
	gen   G
	calls map[K]*call[V]
}

// call is one computation, done when done is closed; v and err are set
// before.
type call[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// errPanicked is what the callers waiting for a computation that
// panicked are told.
var errPanicked = errors.New("memo: the computation panicked")

// New returns a cache that keeps at most max values; past it the cache
// starts again empty. The first caller of a generation other than the
// kept one drops the kept values, unless older reports that its
// generation is older than the kept one: that caller's value is computed
// for it alone and not kept. older may be nil when generations have no
// order.
func New[G, K comparable, V any](max int, older func(a, b G) bool) *Cache[G, K, V] {
	return &Cache[G, K, V]{max: max, older: older}
}

// Do returns the value for key in generation gen: the one kept, the one
// another caller is computing, or what compute returns, kept when it is
// no error. A caller whose ctx is done stops waiting. A computation
// stopped by its caller's ctx is started again by the next caller; one
// that failed otherwise gives its error to those who waited for it, and
// is not kept.
func (c *Cache[G, K, V]) Do(ctx context.Context, gen G, key K, compute func(context.Context) (V, error)) (V, error) {
	var zero V
	for {
		cl, mine := c.call(gen, key)
		switch {
		case cl == nil:
			return compute(ctx)
		case mine:
			return c.run(ctx, key, cl, compute)
		}
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-cl.done:
		}
		if cl.err == nil {
			return cl.v, nil
		}
		if !errors.Is(cl.err, context.Canceled) && !errors.Is(cl.err, context.DeadlineExceeded) {
			return zero, cl.err
		}
	}
}

// Get returns the value kept for key in generation gen, if its
// computation is done.
func (c *Cache[G, K, V]) Get(gen G, key K) (V, bool) {
	var zero V
	c.mu.Lock()
	cl, ok := c.calls[key]
	ok = ok && c.gen == gen
	c.mu.Unlock()
	if !ok {
		return zero, false
	}
	select {
	case <-cl.done:
		if cl.err == nil {
			return cl.v, true
		}
	default:
	}
	return zero, false
}

// Forget drops the values of the keys match reports, such as those of a
// document that closed.
func (c *Cache[G, K, V]) Forget(match func(K) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.calls {
		if match(k) {
			delete(c.calls, k)
		}
	}
}

// call returns the computation of key in generation gen, and whether the
// caller is to run it; nil when gen is older than the kept generation.
func (c *Cache[G, K, V]) call(gen G, key K) (*call[V], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil || gen != c.gen {
		if c.calls != nil && c.older != nil && c.older(gen, c.gen) {
			return nil, false
		}
		c.gen, c.calls = gen, map[K]*call[V]{}
	}
	if cl, ok := c.calls[key]; ok {
		return cl, false
	}
	if len(c.calls) >= c.max {
		c.calls = map[K]*call[V]{}
	}
	cl := &call[V]{done: make(chan struct{})}
	c.calls[key] = cl
	return cl, true
}

// run computes cl, which is the caller's, and tells those waiting for it.
// A failed computation is dropped so that the next caller runs its own.
func (c *Cache[G, K, V]) run(ctx context.Context, key K, cl *call[V], compute func(context.Context) (V, error)) (V, error) {
	cl.err = errPanicked // until compute returns
	defer func() {
		if cl.err != nil {
			c.drop(key, cl)
		}
		close(cl.done)
	}()
	cl.v, cl.err = compute(ctx)
	return cl.v, cl.err
}

// drop forgets cl, the computation of key, unless another replaced it.
func (c *Cache[G, K, V]) drop(key K, cl *call[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls[key] == cl {
		delete(c.calls, key)
	}
}
