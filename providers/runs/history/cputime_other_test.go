//go:build !unix

package history

import "time"

// processCPU is not measured on this platform.
func processCPU() (user, sys time.Duration, ok bool) { return 0, 0, false }
