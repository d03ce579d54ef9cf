// Package fsguard is the one check that every file ctxls reads from a
// workspace passes: the file lies in the workspace, its symbolic links
// resolved, and it is a regular file of bounded size, read so that
// neither a named pipe nor a cancelled request can hold the reader. It
// also holds the one lexical containment test, Within, that every
// comparison of a path with a directory uses.
package fsguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// ErrOutsideWorkspace is the error for a path that, its symbolic links
// resolved, leaves the workspace: a markdown link to /etc/hostname must not
// show that file's text in hovers, catalogs and searches.
var ErrOutsideWorkspace = errors.New("symbolic link points outside the workspace")

// ErrNotRegular is wrapped by the error for a file that is not a regular
// file: reading a named pipe would block until some other process writes
// to it, and a device may never end. A file of a kernel file system
// (/proc, /sys) is no regular file either, whatever its mode says: its
// content is the process's environment, memory or keys.
var ErrNotRegular = errors.New("not a regular file")

// ErrChanged is the error of a read that found another file at the path
// than the check before it: the file was replaced meanwhile.
var ErrChanged = errors.New("file replaced while it was read")

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
	// dirs, when set, holds the folders resolved so far (see Memo).
	dirs *dirMemo
	// listed, when set, holds the folders a walk listed (see Listed).
	listed Lister
}

// Lister is what a walk of the workspace read of its folders.
type Lister interface {
	// EntryType returns the type of the entry name of the folder dir,
	// as the listing of dir gave it, and false when no walk listed dir
	// or dir has no such entry.
	EntryType(dir, name string) (fs.FileMode, bool)
}

// dirMemo holds folders with their symbolic links resolved, or the error
// of resolving them.
type dirMemo struct {
	mu    sync.Mutex
	dirs  map[string]resolvedDir
	files map[string]lstatResult
	// walked holds whether a folder was reached by a walk from the
	// workspace's directory through folders alone (see Listed).
	walked map[string]bool
	// kernel holds, by device, whether its file system is one of the
	// kernel's (the error special gives, or nil).
	kernel map[uint64]error
}

type lstatResult struct {
	fi  fs.FileInfo
	err error
}

type resolvedDir struct {
	real string
	err  error
}

// Memo returns a root for the same workspace that resolves each folder
// once: for one request that looks at many files of few folders (a memory
// file importing a hundred thousand files looks at each in one call
// rather than one per folder on its path, and at a missing file once). A
// folder or file replaced after its first look is not seen, so a memo
// serves one request and is then dropped; a read still opens the file
// without following a link, and only when it is the file looked at, as
// Root's reads do. It is safe for
// concurrent use.
func (r *Root) Memo() *Root {
	m := *r
	m.dirs = &dirMemo{dirs: map[string]resolvedDir{}, files: map[string]lstatResult{}, kernel: map[uint64]error{}, walked: map[string]bool{}}
	return &m
}

// Listed returns a memo (see Memo) that also trusts what a walk of the
// workspace listed, for one command that reads files the walk found: a
// file listed as a regular file, in a folder listed in its parent as a
// folder (not a link) and so on up to the workspace's directory, is read
// without a look at its folders. The walk saw each of them as a folder,
// so that a link put on the way since is not noticed, as ReadWalked does
// not notice it; the open still refuses a link at the file's own name,
// and what it opened is checked as ever. Any other path is read as the
// memo reads it.
func (r *Root) Listed(l Lister) *Root {
	m := r.Memo()
	m.listed = l
	return m
}

// walkedDir reports whether dir is the workspace's directory or a folder
// that the listing of its parent, itself walked, gives as a folder.
func (r *Root) walkedDir(dir string) bool {
	if dir == r.dir {
		return true
	}
	m := r.dirs
	m.mu.Lock()
	ok, known := m.walked[dir]
	m.mu.Unlock()
	if known {
		return ok
	}
	parent := filepath.Dir(dir)
	ok = parent != dir && Within(r.dir, parent)
	if ok {
		typ, listed := r.listed.EntryType(parent, filepath.Base(dir))
		ok = listed && typ == fs.ModeDir && r.walkedDir(parent)
	}
	m.mu.Lock()
	m.walked[dir] = ok
	m.mu.Unlock()
	return ok
}

// readListed is ReadFileInfo of a file a walk listed (see Listed); ok is
// false for any other path, or when the open fails other than for a
// missing file: ReadFileInfo then reads p as it reads it without a
// listing.
func (r *Root) readListed(ctx context.Context, p string, limit int64) (data []byte, fi fs.FileInfo, err error, ok bool) {
	dir, base := filepath.Split(p)
	if base == "" || p != filepath.Clean(p) {
		return nil, nil, nil, false
	}
	dir = filepath.Clean(dir)
	if typ, listed := r.listed.EntryType(dir, base); !listed || !typ.IsRegular() || !r.walkedDir(dir) {
		return nil, nil, nil, false
	}
	data, fi, err = readFile(ctx, p, p, limit, openNoFollow, nil, r.dirs)
	return shortcutResult(p, data, fi, err)
}

// shortcutResult is what a read of p that took a shortcut gives: its
// result, with a missing file the error of a read of p, or ok false when
// p could not be opened for another reason, which the careful read then
// decides.
func shortcutResult(p string, data []byte, fi fs.FileInfo, err error) ([]byte, fs.FileInfo, error, bool) {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "open" {
		if !errors.Is(pe.Err, fs.ErrNotExist) {
			return nil, nil, nil, false
		}
		return nil, nil, &fs.PathError{Op: "read", Path: p, Err: pe.Err}, true
	}
	return data, fi, err, true
}

// lstat is os.Lstat of p, looked at once.
func (m *dirMemo) lstat(p string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.files[p]; ok {
		return r.fi, r.err
	}
	fi, err := os.Lstat(p)
	m.files[p] = lstatResult{fi, err}
	return fi, err
}

// dir returns dir with its symbolic links resolved, resolving it once.
func (m *dirMemo) dir(dir string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dirLocked(dir)
}

// dirLocked is dir with m.mu held. A folder is resolved from its parent's
// resolution and one look at its own name: the thousands of folders of a
// large tree cost a look each rather than one per folder on their path.
// A name that is a link, or no folder, is resolved the whole way.
func (m *dirMemo) dirLocked(dir string) (string, error) {
	if d, ok := m.dirs[dir]; ok {
		return d.real, d.err
	}
	var real string
	var err error
	if parent := filepath.Dir(dir); parent == dir {
		real, err = filepath.EvalSymlinks(dir)
	} else if rp, perr := m.dirLocked(parent); perr != nil {
		real, err = "", perr
	} else if fi, lerr := os.Lstat(filepath.Join(rp, filepath.Base(dir))); lerr == nil && fi.IsDir() {
		real = filepath.Join(rp, filepath.Base(dir))
	} else {
		real, err = filepath.EvalSymlinks(dir)
	}
	m.dirs[dir] = resolvedDir{real, err}
	return real, err
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

// Real returns the workspace directory with its symbolic links resolved:
// the same workspace reached by two paths has one Real.
func (r *Root) Real() string { return r.real }

// Contains reports whether p, absolute and clean, is the workspace
// directory or lies below it by its name, through either the directory's
// own path (Dir) or its path with links resolved (Real). It does not
// resolve p's links: Check and Target do.
func (r *Root) Contains(p string) bool { return Within(r.dir, p) || Within(r.real, p) }

// Target returns the file p leads to, its symbolic links resolved, and
// that file's path relative to the workspace with forward slashes, as Rel
// gives it, when it lies in the workspace; whatever its type and whether
// or not p itself lies in the workspace by its name. A link out of the
// workspace fails with ErrOutsideWorkspace; otherwise the error is the one
// of resolving p: a loop of links (IsLoop tells), or one wrapping
// fs.ErrNotExist. Errors are wrapped with p.
func (r *Root) Target(p string) (target, rel string, err error) {
	target, err = filepath.EvalSymlinks(p)
	if err != nil {
		return "", "", &fs.PathError{Op: "resolve", Path: p, Err: unwrapPath(err)}
	}
	if rel, ok := Rel(r.real, target); ok {
		return target, rel, nil
	}
	if rel, ok := Rel(r.dir, target); ok {
		return target, rel, nil
	}
	return "", "", &fs.PathError{Op: "resolve", Path: p, Err: ErrOutsideWorkspace}
}

// Stat returns the information of what p leads to, its symbolic links
// resolved, when that lies in the workspace, whatever its type; it fails
// as Check does.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	_, fi, err := r.resolve(p)
	return fi, err
}

// Lstat returns the information of p itself, a symbolic link at its name
// not followed, when p lies in the workspace, links in its directories
// resolved: for the looks that, as the walk of the workspace, do not
// follow links (Stat follows them). It fails with ErrOutsideWorkspace
// when p or a link in its directories leads out of the workspace, and
// with the error of the look otherwise, wrapped with p.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	p = filepath.Clean(p)
	if p == r.dir {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: p, Err: unwrapPath(err)}
		}
		return fi, nil
	}
	dir, base := filepath.Split(p)
	if !Within(r.dir, p) {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: ErrOutsideWorkspace}
	}
	var real string
	var err error
	if r.dirs != nil {
		real, err = r.dirs.dir(filepath.Clean(dir))
	} else {
		real, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: unwrapPath(err)}
	}
	if !r.Contains(real) {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: ErrOutsideWorkspace}
	}
	target := filepath.Join(real, base)
	var fi fs.FileInfo
	if r.dirs != nil {
		fi, err = r.dirs.lstat(target)
	} else {
		fi, err = os.Lstat(target)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: unwrapPath(err)}
	}
	return fi, nil
}

// resolve returns the file p leads to, its symbolic links resolved, and
// its information, when it lies in the workspace.
func (r *Root) resolve(p string) (string, fs.FileInfo, error) {
	p = filepath.Clean(p)
	if !Within(r.dir, p) {
		return "", nil, ErrOutsideWorkspace
	}
	if r.dirs != nil {
		if target, fi, err, ok := r.resolveMemo(p); ok {
			return target, fi, err
		}
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", nil, unwrapPath(err)
	}
	if !r.Contains(target) {
		return "", nil, ErrOutsideWorkspace
	}
	fi, err := os.Stat(target)
	if err != nil {
		return "", nil, unwrapPath(err)
	}
	return target, fi, nil
}

// resolveMemo is resolve through the folders resolved so far; ok is false
// when p's own name is a symbolic link, or p is the file system's root,
// which resolve follows the whole way.
func (r *Root) resolveMemo(p string) (target string, fi fs.FileInfo, err error, ok bool) {
	p = filepath.Clean(p)
	dir, base := filepath.Split(p)
	if base == "" {
		return "", nil, nil, false
	}
	real, err := r.dirs.dir(filepath.Clean(dir))
	if err != nil {
		return "", nil, unwrapPath(err), true
	}
	target = filepath.Join(real, base)
	fi, err = r.dirs.lstat(target)
	switch {
	case err != nil:
		return "", nil, unwrapPath(err), true
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", nil, nil, false
	case !r.Contains(target):
		return "", nil, ErrOutsideWorkspace, true
	}
	return target, fi, nil, true
}

// ReadFile reads the file at p when Check lets it through and it holds at
// most limit bytes. It opens the file the check resolved, without
// following a link there, and reads only when what it opened is that
// file: a link swapped in between the check and the read is not
// followed. Errors name p, never where a link leads, and fail as Check
// and the package's ReadFile do.
func (r *Root) ReadFile(ctx context.Context, p string, limit int64) ([]byte, error) {
	data, _, err := r.ReadFileInfo(ctx, p, limit)
	return data, err
}

// ReadFileInfo is Root.ReadFile that also returns the information of the
// file it read, taken from the open file.
func (r *Root) ReadFileInfo(ctx context.Context, p string, limit int64) ([]byte, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if r.dirs != nil && openNoFollow != 0 && Within(r.dir, p) {
		if r.listed != nil {
			if data, fi, err, ok := r.readListed(ctx, p, limit); ok {
				return data, fi, err
			}
		}
		if data, fi, err, ok := r.readMemo(ctx, p, limit); ok {
			return data, fi, err
		}
	}
	target, checked, err := r.resolve(p)
	if err == nil && !checked.Mode().IsRegular() {
		err = NotRegular(checked.Mode())
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return readFile(ctx, target, p, limit, openNoFollow, checked, r.dirs)
}

// readMemo is ReadFileInfo through the folders resolved so far, without a
// look at p's own name before the open: the open refuses a link there,
// and what it opened is checked as ever. ok is false when p's name is a
// link, its folder leads out of the workspace, or the open fails other
// than for a missing file: ReadFileInfo then resolves p as it resolves
// it without a memo, and fails as it does.
func (r *Root) readMemo(ctx context.Context, p string, limit int64) (data []byte, fi fs.FileInfo, err error, ok bool) {
	p = filepath.Clean(p)
	dir, base := filepath.Split(p)
	if base == "" {
		return nil, nil, nil, false
	}
	real, err := r.dirs.dir(filepath.Clean(dir))
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: p, Err: unwrapPath(err)}, true
	}
	target := filepath.Join(real, base)
	if !r.Contains(target) {
		return nil, nil, nil, false
	}
	data, fi, err = readFile(ctx, target, p, limit, openNoFollow, nil, r.dirs)
	return shortcutResult(p, data, fi, err)
}

// ReadWalked reads the file at p, in the workspace, that a walk from the
// workspace's directory which does not follow links (filepath.WalkDir)
// found as a regular file, when it holds at most limit bytes. The walk
// has seen every directory on the way as a directory, so only p itself is
// looked at again: the open does not follow a link put there since, and
// a named pipe or a file of a kernel file system is refused as ReadFile
// refuses it. It costs a fraction of ReadFile, which resolves every
// directory again, for walks that read every file.
func (r *Root) ReadWalked(ctx context.Context, p string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !Within(r.dir, p) {
		return nil, &fs.PathError{Op: "read", Path: p, Err: ErrOutsideWorkspace}
	}
	data, _, err := read(ctx, p, p, limit, openNoFollow, nil)
	return data, err
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
	return read(ctx, p, p, limit, 0, nil)
}

// Open opens the file at p for reading, its links followed, when it is a
// regular file of no kernel file system, as ReadFile reads it, and
// returns it with its information: for a file too large to hold, which
// the caller streams (a program whose content it digests). The caller
// closes the file. Errors are wrapped with the path.
func Open(p string) (*os.File, fs.FileInfo, error) {
	return open(p, p, 0, nil)
}

// read reads the file at p, naming it shown in errors. flags are added
// to those of the open; want, when set, is the file the open must find.
func read(ctx context.Context, p, shown string, limit int64, flags int, want fs.FileInfo) ([]byte, fs.FileInfo, error) {
	return readFile(ctx, p, shown, limit, flags, want, nil)
}

// readOpened reads the file at p through an *os.File, as read does.
func readOpened(ctx context.Context, p, shown string, limit int64, flags int, want fs.FileInfo) ([]byte, fs.FileInfo, error) {
	f, fi, err := open(p, shown, flags, want)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, nil, &fs.PathError{Op: "read", Path: shown, Err: &TooLargeError{Size: fi.Size(), Limit: limit}}
	}
	buf, err := readAll(ctx, fi.Size(), limit, f.Read)
	if err != nil {
		return nil, nil, readError(shown, err)
	}
	return buf, fi, nil
}

// readAll reads with rd until the end of the file, size bytes expected,
// looking at ctx between chunks: more than limit bytes fail with a
// *TooLargeError.
func readAll(ctx context.Context, size, limit int64, rd func([]byte) (int, error)) ([]byte, error) {
	// Room for one byte more than the file holds tells a file that grew
	// since Stat.
	buf := make([]byte, 0, size+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Size: int64(len(buf)), Limit: limit}
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(readChunk, limit+1-int64(len(buf)))))
		}
		end := int(min(int64(cap(buf)), int64(len(buf))+readChunk, limit+1))
		m, err := rd(buf[len(buf):end])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readError is the error of readAll for the file shown: a cancelled
// context as it is, the rest wrapped with the path.
func readError(shown string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &fs.PathError{Op: "read", Path: shown, Err: unwrapPath(err)}
}

// open opens the file at p for reading, naming it shown in errors, when it
// is a regular file of no kernel file system (and, with want, that file).
func open(p, shown string, flags int, want fs.FileInfo) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openNonblock|flags, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: shown, Err: unwrapPath(err)}
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = unwrapPath(err)
	case !fi.Mode().IsRegular():
		err = NotRegular(fi.Mode())
	case want != nil && !os.SameFile(fi, want):
		err = ErrChanged
	default:
		err = special(f)
	}
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: shown, Err: err}
	}
	return f, fi, nil
}

// ReadHead returns at most the first n bytes of the file at p, as
// Root.ReadFile reads it: for what a file starts with (its frontmatter),
// whatever its size.
func (r *Root) ReadHead(p string, n int64) ([]byte, error) {
	target, checked, err := r.resolve(p)
	if err == nil && !checked.Mode().IsRegular() {
		err = NotRegular(checked.Mode())
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	f, _, err := open(target, p, openNoFollow, checked)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: unwrapPath(err)}
	}
	return b, nil
}

// IsLoop reports whether err comes from a loop of symbolic links, which
// filepath.EvalSymlinks reports without an errno.
func IsLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links")
}

// Within reports whether p is dir or lies below it, by their names alone
// (Root.Check also resolves links). Both must be clean, as filepath.Clean
// leaves them, and absolute or relative to one folder; "/x" does not lie
// in "/x-y". A p that climbs back out with a ".." element below dir
// ("/x/../y") is not within: it is not clean, and a guard does not guess.
// Slash paths are paths on every system. The directory comes first:
// Within(p, dir) asks the opposite.
func Within(dir, p string) bool {
	if dir == "" || !strings.HasPrefix(p, dir) {
		return false
	}
	if len(p) > len(dir) && !os.IsPathSeparator(p[len(dir)]) && !os.IsPathSeparator(dir[len(dir)-1]) {
		return false
	}
	return !hasDotDot(p[len(dir):])
}

// hasDotDot reports whether one of the elements of p is "..".
func hasDotDot(p string) bool {
	for i := 0; i < len(p); {
		for i < len(p) && os.IsPathSeparator(p[i]) {
			i++
		}
		j := i
		for j < len(p) && !os.IsPathSeparator(p[j]) {
			j++
		}
		if j-i == 2 && p[i] == '.' && p[i+1] == '.' {
			return true
		}
		i = j
	}
	return false
}

// Rel returns p relative to dir with forward slashes ("." for dir
// itself) when p lies within dir by their names, as Within tells.
func Rel(dir, p string) (string, bool) {
	if !Within(dir, p) {
		return "", false
	}
	rest := strings.TrimLeft(p[len(dir):], string(filepath.Separator))
	if rest == "" {
		return ".", true
	}
	return filepath.ToSlash(rest), true
}

// RelSlash returns p relative to dir with forward slashes, as ctxls names
// the files of a workspace to the user: "." for dir itself, a path with
// ".." for one outside it (unlike Rel), and p itself with forward slashes
// when it has no path relative to dir.
func RelSlash(dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// Climbs reports whether the relative slash path p, once cleaned, leaves
// the folder it is relative to: it is ".." or starts with "../". A name
// that merely starts with two dots ("..notes") stays inside.
func Climbs(p string) bool {
	p = path.Clean(p)
	return p == ".." || strings.HasPrefix(p, "../")
}

// unwrapPath returns the error of a *fs.PathError, without the path that
// the caller names itself.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
