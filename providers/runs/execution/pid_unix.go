//go:build unix

package execution

import (
	"errors"
	"syscall"
)

// processGone reports whether no process with this id exists on this
// machine. A process that exists but belongs to another user is not gone.
func processGone(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}
