//go:build !unix

package fsguardtest

import "testing"

// Pipe skips the test: the system makes no named pipes.
func Pipe(t testing.TB, p string) string {
	t.Helper()
	t.Skipf("no named pipes on this system, so none at %s", p)
	return p
}
