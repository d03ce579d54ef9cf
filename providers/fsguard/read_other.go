//go:build !linux

package fsguard

import (
	"context"
	"io/fs"
)

// readFile is read through an *os.File; the memo is not needed.
func readFile(ctx context.Context, p, shown string, limit int64, flags int, want fs.FileInfo, _ *dirMemo) ([]byte, fs.FileInfo, error) {
	return readOpened(ctx, p, shown, limit, flags, want)
}
