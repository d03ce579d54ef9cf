//go:build !unix

package fsguard

// openNonblock is zero where named pipes do not live in the file system.
const openNonblock = 0

// openNoFollow is zero where the open cannot refuse a link; the read
// still checks that it opened the file the check resolved.
const openNoFollow = 0
