// Package fsguard is the one check that every file ctxls reads from a
// workspace passes: the file lies in the workspace, its symbolic links
// resolved, and it is a regular file of bounded size, read so that
// neither a named pipe nor a cancelled request can hold the reader.
package fsguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ErrOutsideWorkspace is the error for a path that, its symbolic links
// resolved, leaves the workspace: a markdown link to /etc/hostname must not
// show that file's text in hovers, catalogs and searches.
var ErrOutsideWorkspace = errors.New("symbolic link points outside the workspace")

// ErrNotRegular is wrapped by the error for a file that is not a regular
// file: reading a named pipe would block until some other process writes
// to it, and a device may never end.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is the error for a file above the size limit of a read.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file is %d bytes, above the %d-byte limit", e.Size, e.Limit)
}

// Root is the workspace directory that every file ctxls reads from the
// workspace must lie in, its symbolic links resolved. Discovery, the live
// sync of the workspace and the watcher's reports all pass its Check.
type Root struct {
	dir  string // absolute and clean
	real string // dir with its symbolic links resolved
}

// NewRoot returns the root of the workspace at dir, an absolute path.
func NewRoot(dir string) *Root {
	dir = filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	return &Root{dir: dir, real: real}
}

// Dir returns the workspace directory.
func (r *Root) Dir() string { return r.dir }

// Check returns the information of the file at p, following symbolic
// links, when ctxls may read it: p lies in the workspace, and so does the
// file it leads to, links in p's directories included, and that file is a
// regular file. Otherwise it returns an error without the path: one
// wrapping fs.ErrNotExist for a missing file or a dangling link, a loop of
// links, ErrOutsideWorkspace, or one wrapping ErrNotRegular. A directory
// fails with ErrNotRegular too.
func (r *Root) Check(p string) (fs.FileInfo, error) {
	fi, err := r.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, NotRegular(fi.Mode())
	}
	return fi, nil
}

// Stat returns the information of what p leads to, its symbolic links
// resolved, when that lies in the workspace, whatever its type; it fails
// as Check does.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	if _, ok := within(r.dir, p); !ok {
		return nil, ErrOutsideWorkspace
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, unwrapPath(err)
	}
	_, inReal := within(r.real, target)
	_, inDir := within(r.dir, target)
	if !inReal && !inDir {
		return nil, ErrOutsideWorkspace
	}
	fi, err := os.Stat(target)
	if err != nil {
		return nil, unwrapPath(err)
	}
	return fi, nil
}

// NotRegular returns the error, wrapping ErrNotRegular, for a file of mode
// m, which is not a regular file, saying what it is.
func NotRegular(m fs.FileMode) error {
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeDevice != 0:
		kind = "device"
	case m&fs.ModeSymlink != 0:
		kind = "symbolic link"
	}
	return fmt.Errorf("%w (%s)", ErrNotRegular, kind)
}

// readChunk is how much ReadFile reads between looks at its context.
const readChunk = 1 << 20

// ReadFile reads the file at p when it is a regular file of at most limit
// bytes. It opens the file without blocking (a named pipe would block the
// open itself) and checks the type of what it opened, not of the name, so
// a file replaced by a pipe meanwhile is refused too. A file of more than
// limit bytes fails with a *TooLargeError; a cancelled ctx stops the read
// between chunks. Errors are wrapped with the path.
func ReadFile(ctx context.Context, p string, limit int64) ([]byte, error) {
	data, _, err := ReadFileInfo(ctx, p, limit)
	return data, err
}

// ReadFileInfo is ReadFile that also returns the information of the file
// it read, taken from the open file, so that its size and modification
// time belong to the content read and not to a file found by the name
// later.
func ReadFileInfo(ctx context.Context, p string, limit int64) ([]byte, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "read", Path: p, Err: NotRegular(fi.Mode())}
	}
	if fi.Size() > limit {
		return nil, nil, &fs.PathError{Op: "read", Path: p, Err: &TooLargeError{Size: fi.Size(), Limit: limit}}
	}
	// Room for one byte more than the file holds tells a file that grew
	// since Stat.
	buf := make([]byte, 0, fi.Size()+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if int64(len(buf)) > limit {
			return nil, nil, &fs.PathError{Op: "read", Path: p, Err: &TooLargeError{Size: int64(len(buf)), Limit: limit}}
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(readChunk, limit+1-int64(len(buf)))))
		}
		end := int(min(int64(cap(buf)), int64(len(buf))+readChunk, limit+1))
		m, err := f.Read(buf[len(buf):end])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, fi, nil
		}
		if err != nil {
			return nil, nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
	}
}

// IsLoop reports whether err comes from a loop of symbolic links, which
// filepath.EvalSymlinks reports without an errno.
func IsLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links")
}

// within reports whether p, absolute and clean, is dir or lies below it.
func within(dir, p string) (string, bool) {
	return p, p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// unwrapPath returns the error of a *fs.PathError, without the path that
// the caller names itself.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
