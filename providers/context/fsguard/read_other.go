//go:build !linux

package fsguard

import (
	"context"
	"io/fs"
)

// readFile is read through an *os.File.
func readFile(ctx context.Context, p, shown string, limit int64, flags int, want fs.FileInfo) ([]byte, fs.FileInfo, error) {
	return readOpened(ctx, p, shown, limit, flags, want)
}
