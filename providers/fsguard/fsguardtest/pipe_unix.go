//go:build unix

package fsguardtest

import (
	"syscall"
	"testing"
)

// Pipe makes a named pipe at p, creating its directory, and returns p.
// It skips the test where the system makes no named pipes.
func Pipe(t testing.TB, p string) string {
	t.Helper()
	mkdir(t, p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}
