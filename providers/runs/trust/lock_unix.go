//go:build unix

package trust

import (
	"os"
	"syscall"
)

// lock takes the lock file at path, waiting for another process or
// goroutine that holds it, and returns what releases it. Grants are read,
// changed and written back under it, so that two granting at once both
// count.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
