//go:build !unix

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
)

// writable refuses a file whose mode says it is read-only.
func writable(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%w (mode %s)", ErrReadOnly, fi.Mode().Perm())
	}
	return nil
}

// folderWritable leaves the folder's permission to the creation of the
// temporary file.
func folderWritable(dir string) error { return nil }

func chown(f *os.File, fi fs.FileInfo) {}

func lockFile(f *os.File) func() { return func() {} }

// removeIfAbandoned removes the temporary file at p; a file still open
// for writing cannot be removed here.
func removeIfAbandoned(p string) bool { return os.Remove(p) == nil }

// linkNew gives the complete temporary file tmp the name path unless
// path exists.
func linkNew(tmp, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}
