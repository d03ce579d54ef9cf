package watchertest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cleanupTB records the errors and runs the cleanups of CheckGoroutines
// itself, so that a test can see the check fail.
type cleanupTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (c *cleanupTB) Helper()          {}
func (c *cleanupTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *cleanupTB) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *cleanupTB) end() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
}

func TestCheckGoroutines(t *testing.T) {
	t.Parallel()
	// Goroutines that block until release is closed.
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	block := func() { <-release }
	tests := []struct {
		name string
		// start runs after the check begins, on the checked goroutine;
		// the goroutines it starts that end close ended.
		start func(ended chan<- struct{})
		leaks bool
	}{
		{"none", func(ended chan<- struct{}) { close(ended) }, false},
		{"ends soon", func(ended chan<- struct{}) {
			go func() { time.Sleep(50 * time.Millisecond); close(ended) }()
		}, false},
		{"left running", func(chan<- struct{}) { go block() }, true},
		{"started by one it started", func(chan<- struct{}) { go func() { go block() }() }, true},
		{"in a timer's function", func(ended chan<- struct{}) { time.AfterFunc(0, block); close(ended) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A goroutine that another test started is not this test's.
			other := make(chan struct{})
			go func() { go block(); close(other) }()
			<-other
			tb := &cleanupTB{TB: t}
			checkGoroutines(tb, 200*time.Millisecond)
			ended := make(chan struct{})
			tc.start(ended)
			tb.end()
			if !tc.leaks {
				select {
				case <-ended:
				default:
					t.Error("the check ended before the goroutine it waited for")
				}
			}
			if leaked := len(tb.errs) > 0; leaked != tc.leaks {
				t.Errorf("left goroutines reported: %v, want %v: %q", leaked, tc.leaks, tb.errs)
			}
			if tc.leaks && len(tb.errs) == 1 && !strings.Contains(tb.errs[0], "watchertest.TestCheckGoroutines") {
				t.Errorf("the report does not show the stack of the goroutine left: %s", tb.errs[0])
			}
		})
	}
}
