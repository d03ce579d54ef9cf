//go:build !unix

package fsguard

// openNonblock is zero where named pipes do not live in the file system.
const openNonblock = 0
