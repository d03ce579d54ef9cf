package memo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

func value(v int) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { return v, nil }
}

func newer(a, b int) bool { return a < b }

func TestCacheKeeps(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tests := []struct {
		name  string
		older func(a, b int) bool
		// steps are Do calls (gen, key, value computed); then want says
		// what Get finds.
		steps []struct{ gen, key, v int }
		want  map[[2]int]int // gen, key -> value; -1: not kept
	}{
		{
			name:  "a value is kept and not computed again",
			steps: []struct{ gen, key, v int }{{1, 1, 10}, {1, 1, 99}},
			want:  map[[2]int]int{{1, 1}: 10},
		},
		{
			name:  "another generation drops the kept values",
			steps: []struct{ gen, key, v int }{{1, 1, 10}, {1, 2, 20}, {2, 3, 30}, {1, 4, 40}},
			want:  map[[2]int]int{{1, 1}: -1, {1, 2}: -1, {2, 3}: -1, {1, 4}: 40},
		},
		{
			name:  "an older generation's value is not kept",
			older: newer,
			steps: []struct{ gen, key, v int }{{2, 1, 10}, {1, 2, 20}, {3, 3, 30}},
			want:  map[[2]int]int{{2, 1}: -1, {1, 2}: -1, {3, 3}: 30},
		},
		{
			name:  "an older generation leaves the newer values",
			older: newer,
			steps: []struct{ gen, key, v int }{{2, 1, 10}, {1, 1, 20}},
			want:  map[[2]int]int{{2, 1}: 10, {1, 1}: -1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := New[int, int, int](8, tt.older)
			for _, s := range tt.steps {
				if _, err := c.Do(ctx, s.gen, s.key, value(s.v)); err != nil {
					t.Fatalf("Do(%d, %d): %v", s.gen, s.key, err)
				}
			}
			for k, want := range tt.want {
				got, ok := c.Get(k[0], k[1])
				switch {
				case want < 0 && ok:
					t.Errorf("Get(%d, %d) = %d; want none kept", k[0], k[1], got)
				case want >= 0 && (!ok || got != want):
					t.Errorf("Get(%d, %d) = %d, %v; want %d", k[0], k[1], got, ok, want)
				}
			}
		})
	}
}

func TestCacheBoundsAndForgets(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := New[int, string, int](4, nil)
	for i := range 5 {
		c.Do(ctx, 1, fmt.Sprint("k", i), value(i))
	}
	if _, ok := c.Get(1, "k0"); ok {
		t.Error("k0 is kept past 4 values")
	}
	if v, ok := c.Get(1, "k4"); !ok || v != 4 {
		t.Errorf("Get(k4) = %d, %v; want 4", v, ok)
	}
	c.Forget(func(k string) bool { return k == "k4" })
	if _, ok := c.Get(1, "k4"); ok {
		t.Error("k4 is kept after Forget")
	}
}

func TestCacheDoesNotKeepErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := New[int, int, int](4, nil)
	bad := errors.New("bad")
	if _, err := c.Do(ctx, 1, 1, func(context.Context) (int, error) { return 0, bad }); !errors.Is(err, bad) {
		t.Fatalf("Do = %v; want %v", err, bad)
	}
	if _, ok := c.Get(1, 1); ok {
		t.Error("a failed computation is kept")
	}
	if v, err := c.Do(ctx, 1, 1, value(7)); v != 7 || err != nil {
		t.Errorf("Do after a failure = %d, %v; want 7", v, err)
	}
	func() {
		defer func() { recover() }()
		c.Do(ctx, 1, 2, func(context.Context) (int, error) { panic("compute") })
	}()
	if v, err := c.Do(ctx, 1, 2, value(8)); v != 8 || err != nil {
		t.Errorf("Do after a panic = %d, %v; want 8", v, err)
	}
}

// leader starts a computation of key 1 that blocks until release is
// closed, and returns once it runs.
func leader(t *testing.T, c *Cache[int, int, int], ctx context.Context, release chan struct{}, v int, err error) chan error {
	t.Helper()
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, e := c.Do(ctx, 1, 1, func(ctx context.Context) (int, error) {
			close(started)
			select {
			case <-release:
				return v, err
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		})
		done <- e
	}()
	select {
	case <-started:
	case <-time.After(wait):
		t.Fatal("the computation did not start")
	}
	return done
}

// waiters runs n callers of key 1 whose own computation returns 42, and
// returns their results once all are done.
func waiters(t *testing.T, c *Cache[int, int, int], n int, computed *atomic.Int32, release chan struct{}) []error {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			var v int
			v, errs[i] = c.Do(t.Context(), 1, 1, func(context.Context) (int, error) {
				computed.Add(1)
				<-release
				return 42, nil
			})
			if errs[i] == nil && v != 42 {
				errs[i] = fmt.Errorf("value %d, want 42", v)
			}
		})
	}
	close(release)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("the waiters did not return")
	}
	return errs
}

func TestCacheSharesComputations(t *testing.T) {
	t.Parallel()
	t.Run("waiters share the leader's value", func(t *testing.T) {
		t.Parallel()
		c := New[int, int, int](4, nil)
		release := make(chan struct{})
		done := leader(t, c, t.Context(), release, 42, nil)
		var computed atomic.Int32
		for _, err := range waiters(t, c, 8, &computed, release) {
			if err != nil {
				t.Error(err)
			}
		}
		if err := <-done; err != nil {
			t.Errorf("leader: %v", err)
		}
		if n := computed.Load(); n != 0 {
			t.Errorf("the waiters computed %d times; want 0", n)
		}
	})
	t.Run("a cancelled leader is replaced by one waiter", func(t *testing.T) {
		t.Parallel()
		c := New[int, int, int](4, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := leader(t, c, ctx, make(chan struct{}), 0, nil)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("leader: %v; want it cancelled", err)
		}
		var computed atomic.Int32
		for _, err := range waiters(t, c, 8, &computed, make(chan struct{})) {
			if err != nil {
				t.Error(err)
			}
		}
		if n := computed.Load(); n != 1 {
			t.Errorf("the waiters computed %d times; want 1", n)
		}
	})
	t.Run("a failed leader's error reaches the waiters", func(t *testing.T) {
		t.Parallel()
		c := New[int, int, int](4, nil)
		release := make(chan struct{})
		bad := errors.New("bad")
		done := leader(t, c, t.Context(), release, 0, bad)
		errs := make(chan error, 1)
		go func() {
			_, err := c.Do(t.Context(), 1, 1, value(1))
			errs <- err
		}()
		close(release)
		if err := <-done; !errors.Is(err, bad) {
			t.Errorf("leader: %v; want %v", err, bad)
		}
		select {
		case err := <-errs:
			// The waiter may have come after the failure and computed.
			if err != nil && !errors.Is(err, bad) {
				t.Errorf("waiter: %v; want %v or none", err, bad)
			}
		case <-time.After(wait):
			t.Fatal("the waiter did not return")
		}
	})
	t.Run("a waiter's own ctx ends its wait", func(t *testing.T) {
		t.Parallel()
		c := New[int, int, int](4, nil)
		release := make(chan struct{})
		defer close(release)
		leader(t, c, t.Context(), release, 1, nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := c.Do(ctx, 1, 1, value(2)); !errors.Is(err, context.Canceled) {
			t.Errorf("Do = %v; want it cancelled", err)
		}
	})
}
