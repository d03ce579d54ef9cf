//go:build unix && !solaris

package main

import (
	"syscall"
	"time"
)

// cpuTime returns the user and system time the process has used, and
// whether the system reports it.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
