package fsguard

import (
	"context"
	"io"
	"io/fs"
	"syscall"
	"time"
)

// readFile is read on the file descriptor itself rather than an
// *os.File, which would try to add every file it opens to the runtime's
// poller and set a finalizer: a check reading thousands of small files
// spends a system call in five on that. A memo m, when set, tells the
// file systems it has seen before.
func readFile(ctx context.Context, p, shown string, limit int64, flags int, want fs.FileInfo, m *dirMemo) ([]byte, fs.FileInfo, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|openNonblock|flags, 0)
		return err
	})
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: shown, Err: err}
	}
	defer syscall.Close(fd)
	fi := &fdInfo{name: baseName(p)}
	err = retry(func() error { return syscall.Fstat(fd, &fi.st) })
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = NotRegular(fi.Mode())
	case want != nil && !sameFile(&fi.st, want):
		err = ErrChanged
	default:
		err = m.special(uint64(fi.st.Dev), fd)
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: shown, Err: err}
	}
	if fi.Size() > limit {
		return nil, nil, &fs.PathError{Op: "read", Path: shown, Err: &TooLargeError{Size: fi.Size(), Limit: limit}}
	}
	buf, err := readAll(ctx, fi.Size(), limit, func(b []byte) (int, error) {
		var n int
		err := retry(func() (err error) {
			n, err = syscall.Read(fd, b)
			return err
		})
		switch {
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	})
	if err != nil {
		return nil, nil, readError(shown, err)
	}
	return buf, fi, nil
}

// retry runs a system call again while a signal interrupts it.
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}

// sameFile reports whether st is the file want describes.
func sameFile(st *syscall.Stat_t, want fs.FileInfo) bool {
	w, ok := want.Sys().(*syscall.Stat_t)
	return ok && w.Dev == st.Dev && w.Ino == st.Ino
}

// baseName is the last element of p, as os.File.Stat names a file.
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// fdInfo is the fs.FileInfo of an open file descriptor.
type fdInfo struct {
	name string
	st   syscall.Stat_t
}

func (fi *fdInfo) Name() string       { return fi.name }
func (fi *fdInfo) Size() int64        { return fi.st.Size }
func (fi *fdInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *fdInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fdInfo) Sys() any           { return &fi.st }

// Mode is the mode as os.Stat gives it.
func (fi *fdInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	switch fi.st.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if fi.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// special is specialFD of a file on the device dev, looked at once per
// device.
func (m *dirMemo) special(dev uint64, fd int) error {
	if m == nil {
		return specialFD(fd)
	}
	m.mu.Lock()
	err, ok := m.kernel[dev]
	m.mu.Unlock()
	if ok {
		return err
	}
	err = specialFD(fd)
	m.mu.Lock()
	m.kernel[dev] = err
	m.mu.Unlock()
	return err
}
