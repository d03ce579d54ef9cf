//go:build unix

package fsguard

import "syscall"

// openNonblock keeps the open of a named pipe from waiting for a writer;
// it has no effect on regular files.
const openNonblock = syscall.O_NONBLOCK
