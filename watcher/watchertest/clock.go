// Package watchertest provides, for tests of code that runs a
// [watcher.Watcher], a manual clock, so that how events are grouped into
// batches does not depend on the speed of the machine, and a recorder of
// what the code's callbacks are given.
package watchertest

import (
	"slices"
	"sync"
	"time"
)

// Clock is a manual clock: time moves only when Advance is called. It
// satisfies watcher.Clock. The zero value is not usable; call NewClock.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

type timer struct {
	at   time.Time
	f    func()
	done bool
}

// NewClock returns a clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc calls f in its own goroutine once the clock has been advanced
// by d or more; a d of zero or less calls it at once.
func (c *Clock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{at: c.now.Add(d), f: f}
	if d <= 0 {
		t.done = true
		go f()
	} else {
		c.timers = append(c.timers, t)
	}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if t.done {
			return false
		}
		t.done = true
		c.timers = slices.DeleteFunc(c.timers, func(o *timer) bool { return o == t })
		return true
	}
}

// Advance moves the clock on by d and starts, each in its own goroutine,
// the functions of the timers that are then due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*timer
	c.timers = slices.DeleteFunc(c.timers, func(t *timer) bool {
		if t.at.After(c.now) {
			return false
		}
		t.done = true
		due = append(due, t)
		return true
	})
	c.mu.Unlock()
	for _, t := range due {
		go t.f()
	}
}

// pending returns the number of timers that have not fired or been
// stopped.
func (c *Clock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
