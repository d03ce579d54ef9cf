package watchertest

import (
	"slices"
	"sync"
)

// Recorder keeps what a callback is given (the updates of a workspace, the
// messages of [watcher.Options.OnLimit], the paths of a change), for the
// test to read while the callback may still run on another goroutine. The
// zero value is ready to use.
type Recorder[T any] struct {
	mu  sync.Mutex
	got []T
}

// Add records v. Its method value is the callback.
func (r *Recorder[T]) Add(v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, v)
}

// All returns what was recorded so far, oldest first.
func (r *Recorder[T]) All() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// Reset forgets what was recorded.
func (r *Recorder[T]) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = nil
}
