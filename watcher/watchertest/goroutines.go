package watchertest

import (
	"runtime"
	"testing"
	"time"
)

// CheckGoroutines fails t when, after t's cleanups (registered after this
// call) have run, more goroutines run than when it was called. It waits up
// to [Deadline] for goroutines that are ending, and prints every stack when
// some are left.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(Deadline)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines left running, %d before:\n%s", n, before, buf)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}
