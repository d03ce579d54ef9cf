package watchertest

import (
	"testing"
	"time"
)

// Deadline bounds every wait of [WaitFor]. It is generous: the machines
// running the tests are shared and slow, and the tests run under -race as
// well; a wait ends as soon as its condition holds.
const Deadline = 30 * time.Second

// WaitFor polls cond until it holds, and fails the test, naming what it
// waited for, when it does not within [Deadline].
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", Deadline, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
