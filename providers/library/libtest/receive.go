package libtest

import (
	"testing"
	"time"
)

// Wait bounds the waits of Receive: generous, since the machines running
// the tests are shared and slow, and a wait ends as soon as the value
// arrives.
const Wait = 30 * time.Second

// Receive returns the value ch delivers, or fails the test when none
// arrives within Wait, saying what it waited for.
func Receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Wait):
		t.Fatalf("waited %v for %s", Wait, what)
		panic("unreachable") // Fatalf does not return
	}
}
