package watchertest

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// goroutineLabel is the profiler label by which CheckGoroutines knows the
// goroutines a test started.
const goroutineLabel = "watchertest.test"

// checks numbers the calls of CheckGoroutines, for their labels.
var checks atomic.Uint64

// CheckGoroutines fails t when, after t's cleanups (registered after this
// call) have run, goroutines that t's goroutine started after this call,
// or that those started in turn, still run. It waits up to [Deadline] for
// goroutines that are ending, and prints the stacks of those left.
//
// It knows them by a profiler label that it gives t's goroutine and that
// goroutines inherit from the goroutine that starts them, so tests that
// check their goroutines can run in parallel. The functions of timers
// (time.AfterFunc) run in goroutines of their own without the label: they
// are not counted.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	checkGoroutines(t, Deadline)
}

// checkGoroutines is CheckGoroutines waiting up to wait.
func checkGoroutines(t testing.TB, wait time.Duration) {
	t.Helper()
	id := strconv.FormatUint(checks.Add(1), 10)
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(goroutineLabel, id)))
	t.Cleanup(func() {
		deadline := time.Now().Add(wait)
		for {
			left := labelled(id)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines left running:\n%s", len(left), strings.Join(left, "\n\n"))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// labelled returns the stacks of the goroutines running with id as their
// goroutineLabel, one per goroutine, leaving out the one that asks.
func labelled(id string) []string {
	var buf bytes.Buffer
	// Level 1 groups goroutines of the same stack and labels into one
	// record, "N @ pcs" followed by a "# labels: {...}" line and the
	// frames, each record ending with a blank line.
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return []string{"goroutine profile: " + err.Error()}
	}
	want := "# labels: {" + strconv.Quote(goroutineLabel) + ":" + strconv.Quote(id) + "}"
	var left []string
	for rec := range strings.SplitSeq(buf.String(), "\n\n") {
		if !strings.Contains(rec, want+"\n") || strings.Contains(rec, "watchertest.labelled") {
			continue
		}
		n := 1
		for line := range strings.Lines(rec) {
			if count, _, ok := strings.Cut(line, " @ "); ok {
				if c, err := strconv.Atoi(count); err == nil {
					n = c
				}
				break
			}
		}
		for range n {
			left = append(left, rec)
		}
	}
	return left
}
