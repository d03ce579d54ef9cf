//go:build !unix || solaris

package main

import "time"

// cpuTime reports that the process's CPU time is not available: the
// system has no getrusage.
func cpuTime() (time.Duration, bool) { return 0, false }
