//go:build unix

package history

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used so far, in user space
// and in the kernel. Benchmarks report it per operation because the machine
// they run on is shared, and wall time moves with the other load on it.
func processCPU() (user, sys time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}
