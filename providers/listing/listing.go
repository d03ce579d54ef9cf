// Package listing walks a tree as filepath.WalkDir does, keeping each
// folder's listing so that a second walk of the same tree in the same
// short-lived process (the library's scan and the agent files' walk of
// one check) reads no folder twice. A folder the first walk skipped is
// read when the second enters it.
package listing

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Listings holds the folder listings walks have read. Its zero value is
// not usable; a nil *Listings keeps nothing, and WalkDir then reads every
// folder as filepath.WalkDir does. It is safe for concurrent use. The
// listings are never refreshed: keep one only as long as the tree can be
// taken not to change (one run of a command).
type Listings struct {
	mu   sync.Mutex
	dirs map[string]listed
}

type listed struct {
	ents []entry
	err  error
}

// entry is one entry of a folder's listing. Its path and name are slices
// of one string per folder, so that listing a folder allocates the few
// values of the folder rather than some for each entry, and a walk hands
// its function the paths without joining them again.
type entry struct {
	path, name string
	typ        fs.FileMode
}

func (e *entry) Name() string               { return e.name }
func (e *entry) IsDir() bool                { return e.typ.IsDir() }
func (e *entry) Type() fs.FileMode          { return e.typ }
func (e *entry) Info() (fs.FileInfo, error) { return os.Lstat(e.path) }
func (e *entry) String() string             { return fs.FormatDirEntry(e) }

// New returns an empty set of listings.
func New() *Listings { return &Listings{dirs: map[string]listed{}} }

// scratch is room for the reads of the disk that a walk reuses from
// folder to folder: the buffer the system fills, and the names, ends and
// types of the folder being read, which build copies.
type scratch struct {
	buf   []byte
	names []byte
	ends  []int
	types []fs.FileMode
}

// readDir returns the entries of dir, sorted by name, from l when a walk
// read them before, else from the disk (keeping them in l), with the
// room s.
func (l *Listings) readDir(dir string, s *scratch) ([]entry, error) {
	if l == nil {
		return readEntries(dir, s)
	}
	l.mu.Lock()
	got, ok := l.dirs[dir]
	l.mu.Unlock()
	if ok {
		return got.ents, got.err
	}
	ents, err := readEntries(dir, s)
	l.mu.Lock()
	l.dirs[dir] = listed{ents, err}
	l.mu.Unlock()
	return ents, err
}

// build returns the entries of the folder dir, sorted by name: the
// names, in the order read, lie one after another in names, the i-th
// ending at ends[i], and types[i] is the i-th's type. Their paths are
// joined to dir as filepath.Join joins them.
func build(dir string, names []byte, ends []int, types []fs.FileMode) []entry {
	if len(ends) == 0 {
		return nil
	}
	prefix := filepath.Clean(dir)
	switch {
	case prefix == ".":
		prefix = ""
	case !os.IsPathSeparator(prefix[len(prefix)-1]):
		prefix += string(filepath.Separator)
	}
	var b strings.Builder
	b.Grow(len(ends)*len(prefix) + len(names))
	start := 0
	for _, end := range ends {
		b.WriteString(prefix)
		b.Write(names[start:end])
		start = end
	}
	all := b.String()
	ents := make([]entry, len(ends))
	at, start := 0, 0
	for i, end := range ends {
		stop := at + len(prefix) + end - start
		ents[i] = entry{path: all[at:stop], name: all[at+len(prefix) : stop], typ: types[i]}
		at, start = stop, end
	}
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return ents
}

// Has reports whether a walk listed the folder dir, and if so whether it
// holds an entry of that name.
func (l *Listings) Has(dir, name string) (has, known bool) {
	if l == nil {
		return false, false
	}
	l.mu.Lock()
	got, ok := l.dirs[dir]
	l.mu.Unlock()
	if !ok || got.err != nil {
		return false, false
	}
	_, found := slices.BinarySearchFunc(got.ents, name, func(e entry, name string) int {
		return strings.Compare(e.name, name)
	})
	return found, true
}

// EntryType returns the type of the entry name of the folder dir as the
// folder's listing gave it (a symbolic link is a link, whatever it leads
// to), and false when no walk listed dir or it holds no such entry.
func (l *Listings) EntryType(dir, name string) (fs.FileMode, bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	got, ok := l.dirs[dir]
	l.mu.Unlock()
	if !ok || got.err != nil {
		return 0, false
	}
	i, found := slices.BinarySearchFunc(got.ents, name, func(e entry, name string) int {
		return strings.Compare(e.name, name)
	})
	if !found {
		return 0, false
	}
	return got.ents[i].typ, true
}

// WalkDir is filepath.WalkDir with its folders read through l: the same
// order, the same calls of fn, the same meaning of fs.SkipDir and
// fs.SkipAll.
func (l *Listings) WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = l.walkDir(root, fs.FileInfoToDirEntry(info), fn, &scratch{})
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func (l *Listings) walkDir(p string, d fs.DirEntry, fn fs.WalkDirFunc, s *scratch) error {
	if err := fn(p, d, nil); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			err = nil // the folder is skipped
		}
		return err
	}
	ents, err := l.readDir(p, s)
	if err != nil {
		// As filepath.WalkDir: a second call reports the error.
		if err = fn(p, d, err); err != nil {
			if errors.Is(err, fs.SkipDir) && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for i := range ents {
		e := &ents[i]
		if err := l.walkDir(e.path, e, fn, s); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break
			}
			return err
		}
	}
	return nil
}
