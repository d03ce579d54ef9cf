package ops

import "context"

// heavyHeld marks a context whose request holds a place among the heavy
// requests of an Ops; its value is that Ops.
type heavyHeld struct{}

// Heavy waits, as the operations whose work grows with the workspace or
// the document do, for one of the few places of such requests, for front
// ends that have heavy requests of their own. It returns a context that
// carries the place, which operations called with it do not wait for
// again, and release, which gives the place back. It fails with the
// context's error when ctx is done first.
func (o *Ops) Heavy(ctx context.Context) (context.Context, func(), error) { return o.heavy(ctx) }

// heavy waits for one of the few places of the requests whose work grows
// with the workspace or a document (pricing, listing, searching), so that
// a flood of them queues instead of holding each its memory at once. A
// request that already holds a place, as ctx says, is not made to wait
// for a second one: two such requests could each hold one and wait for
// the other's.
func (o *Ops) heavy(ctx context.Context) (context.Context, func(), error) {
	if err := ctx.Err(); err != nil {
		return ctx, nil, err
	}
	if ctx.Value(heavyHeld{}) == o {
		return ctx, func() {}, nil
	}
	select {
	case o.heavySem <- struct{}{}:
		return context.WithValue(ctx, heavyHeld{}, o), func() { <-o.heavySem }, nil
	case <-ctx.Done():
		return ctx, nil, ctx.Err()
	}
}

// withHeavy runs fn holding a place among the heavy requests, with the
// context that carries it.
func withHeavy[T any](o *Ops, ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	ctx, release, err := o.heavy(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer release()
	return fn(ctx)
}

// provide checks the fields a request requires, then runs fn, a call of
// the context provider, as a heavy request.
func provide[T any](o *Ops, ctx context.Context, required []field, fn func(context.Context) (T, error)) (T, error) {
	if err := require(required...); err != nil {
		var zero T
		return zero, err
	}
	return withHeavy(o, ctx, fn)
}

// provideIn runs call, a call of the context provider about a domain with
// arg, as provide does; the domain is required.
func provideIn[A, T any](o *Ops, ctx context.Context, domain string, arg A, call func(context.Context, string, A) (T, error)) (T, error) {
	return provide(o, ctx, []field{{"domain", domain}}, func(ctx context.Context) (T, error) {
		return call(ctx, domain, arg)
	})
}
