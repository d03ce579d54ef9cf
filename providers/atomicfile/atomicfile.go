// Package atomicfile writes files so that each holds either its old
// content or its new one, whatever happens meanwhile: a process killed at
// any moment, a full disk, a file or folder without write permission, or
// a file another program changed since it was read.
//
// The new content goes to a temporary file in the file's own folder; the
// temporary file is synced, given the original's mode (and owner where
// the process may set it), and renamed over the original, and the folder
// is synced. A symbolic link is resolved: its target is replaced and the
// link kept. Temporary files have names IsTemp recognises and hold a lock
// while they are written, so that Clean removes those of killed runs and
// never one still being written.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrChanged is the reason a file is left alone when its content on disk
// is no longer what was read.
var ErrChanged = errors.New("the file changed on disk since it was read; run again")

// ErrReadOnly is the reason a file is left alone when its mode grants no
// write permission, or the process may not write it. It holds even for
// root, who may write anything: a read-only mode is the owner's word.
var ErrReadOnly = errors.New("the file is read-only")

// ErrFolderReadOnly is the reason a file is left alone when its folder
// does not let the process create the temporary file beside it.
var ErrFolderReadOnly = errors.New("the folder is read-only")

// tempMark sits in the name of every temporary file: ".NAME" + tempMark +
// random digits + tempExt.
const (
	tempMark = ".ctxls-"
	tempExt  = ".tmp"
)

// IsTemp reports whether name (a base name) is that of a temporary file
// of this package.
func IsTemp(name string) bool {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, tempExt) {
		return false
	}
	i := strings.LastIndex(name, tempMark)
	if i <= 0 {
		return false
	}
	digits := name[i+len(tempMark) : len(name)-len(tempExt)]
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Replace replaces the content of the file at path, which was old when
// it was read, by data. The file is left as it is, and the error says
// why, when its content is no longer old (ErrChanged), when it or its
// folder may not be written (ErrReadOnly, ErrFolderReadOnly), or when
// the new content cannot be written in full (a full disk).
func Replace(path string, old, data []byte) error {
	return replace("replace", path, data, 0, &old)
}

// Write writes data to the file at path whatever it holds now, creating
// it with perm when it does not exist and keeping its mode otherwise. It
// is for the files ctxls keeps for itself.
func Write(path string, data []byte, perm fs.FileMode) error {
	return replace("write", path, data, perm, nil)
}

// Create creates the file at path with data and perm unless a file of
// that name exists, when the error is fs.ErrExist and nothing is written.
// The name appears only once its content is complete.
func Create(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := newTemp(dir, filepath.Base(path))
	if err != nil {
		return pathError("create", path, err)
	}
	defer tmp.discard()
	if err := tmp.fill(data, perm, nil); err != nil {
		return pathError("create", path, err)
	}
	if err := linkNew(tmp.name, path); err != nil {
		return pathError("create", path, err)
	}
	syncDir(dir)
	return nil
}

// Writable reports why Replace would leave the file at path as it is
// for its permissions or its folder's, or nil.
func Writable(path string) error {
	target, err := resolve(path)
	if err != nil {
		return pathError("replace", path, err)
	}
	fi, err := os.Lstat(target)
	if err != nil {
		return pathError("replace", path, err)
	}
	if err := writable(target, fi); err != nil {
		return pathError("replace", path, err)
	}
	if err := folderWritable(filepath.Dir(target)); err != nil {
		return pathError("replace", path, err)
	}
	return nil
}

// replace is Replace when old is set, Write otherwise.
func replace(op, path string, data []byte, perm fs.FileMode, old *[]byte) error {
	target, err := resolve(path)
	if err != nil {
		return pathError(op, path, err)
	}
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist) && old == nil:
		fi = nil
	case err != nil:
		return pathError(op, path, err)
	case !fi.Mode().IsRegular():
		return pathError(op, path, fmt.Errorf("not a regular file (%s)", fi.Mode().Type()))
	}
	if fi != nil {
		if err := writable(target, fi); err != nil {
			return pathError(op, path, err)
		}
		perm = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if old != nil && fi.Size() != int64(len(*old)) {
		return pathError(op, path, ErrChanged)
	}
	dir := filepath.Dir(target)
	if err := folderWritable(dir); err != nil {
		return pathError(op, path, err)
	}
	tmp, err := newTemp(dir, filepath.Base(target))
	if err != nil {
		return pathError(op, path, err)
	}
	defer tmp.discard()
	if err := tmp.fill(data, perm, fi); err != nil {
		return pathError(op, path, err)
	}
	// The last look before the rename: the window in which another
	// program's write is lost is the time of one rename.
	if old != nil {
		if err := same(target, *old); err != nil {
			return pathError(op, path, err)
		}
	}
	if err := os.Rename(tmp.name, target); err != nil {
		return pathError(op, path, err)
	}
	tmp.renamed = true
	syncDir(dir)
	return nil
}

// resolve returns the file a path names, through every symbolic link; a
// path that does not exist resolves to itself once its folder resolves.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	target, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return target, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("a symbolic link to a missing file: %w", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// same reports ErrChanged unless the file at path holds exactly old.
func same(path string, old []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	disk, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(disk, old) {
		return ErrChanged
	}
	return nil
}

// temp is a temporary file being written beside the file it replaces.
type temp struct {
	f       *os.File
	name    string
	unlock  func()
	renamed bool
}

func newTemp(dir, base string) (*temp, error) {
	f, err := os.CreateTemp(dir, "."+base+tempMark+"*"+tempExt)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%w: %w", ErrFolderReadOnly, err)
		}
		return nil, err
	}
	t := &temp{f: f, name: f.Name()}
	// Clean removes a temporary file only when it can take this lock,
	// that is once the process writing it is gone.
	t.unlock = lockFile(f)
	return t, nil
}

// fill writes data to the temporary file, gives it perm and, where fi
// describes the file it replaces, that file's owner, and syncs it.
func (t *temp) fill(data []byte, perm fs.FileMode, fi fs.FileInfo) error {
	if fi != nil {
		chown(t.f, fi)
	}
	if err := t.f.Chmod(perm); err != nil {
		return bare(err)
	}
	if _, err := t.f.Write(data); err != nil {
		return bare(err)
	}
	if err := t.f.Sync(); err != nil {
		return bare(err)
	}
	return nil
}

// bare drops the temporary file's name from err: the report names the
// file being replaced, and the temporary file is gone.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// discard closes the temporary file and removes it unless it was renamed.
func (t *temp) discard() {
	if !t.renamed {
		os.Remove(t.name)
	}
	t.unlock()
	t.f.Close()
}

// syncDir makes a rename in dir durable. Where a folder cannot be opened
// for that, the rename stands all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Clean removes from dir the temporary files of earlier runs killed
// before they renamed them, and returns how many it removed. A temporary
// file another process is still writing is kept.
func Clean(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemp(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if removeIfAbandoned(p) {
			n++
		}
	}
	return n, nil
}

func pathError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
