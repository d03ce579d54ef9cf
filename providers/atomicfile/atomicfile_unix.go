//go:build unix

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// wOK asks access(2) about write permission.
const wOK = 0x2

// writable refuses a file whose mode grants nobody write permission, or
// that the process may not write. Root passes access(2) for any file, so
// the mode is looked at first.
func writable(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%w (mode %s)", ErrReadOnly, fi.Mode().Perm())
	}
	if err := syscall.Access(path, wOK); err != nil {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return nil
}

// folderWritable refuses a folder in which the process may not create
// the temporary file, by mode as by access(2).
func folderWritable(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%w (mode %s)", ErrFolderReadOnly, fi.Mode().Perm())
	}
	if err := syscall.Access(dir, wOK); err != nil {
		return fmt.Errorf("%w: %w", ErrFolderReadOnly, err)
	}
	return nil
}

// chown gives f the owner and group of the file fi describes, as far as
// the process may: root keeps both, another user at most the group.
func chown(f *os.File, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if f.Chown(int(st.Uid), int(st.Gid)) != nil {
		f.Chown(-1, int(st.Gid))
	}
}

// lockFile takes an exclusive lock on f for as long as it is written; the
// kernel drops it when the process dies.
func lockFile(f *os.File) func() {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
}

// removeIfAbandoned removes the temporary file at p when no process holds
// its lock.
func removeIfAbandoned(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return os.Remove(p) == nil
}

// linkNew gives the complete temporary file tmp the name path unless
// path exists: link(2) never replaces a name.
func linkNew(tmp, path string) error {
	return os.Link(tmp, path)
}
