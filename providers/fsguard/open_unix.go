//go:build unix

package fsguard

import "syscall"

// openNonblock keeps the open of a named pipe from waiting for a writer;
// it has no effect on regular files.
const openNonblock = syscall.O_NONBLOCK

// openNoFollow makes the open of a path whose last element is a symbolic
// link fail: the read of a path resolved before must not follow a link
// put there since.
const openNoFollow = syscall.O_NOFOLLOW
