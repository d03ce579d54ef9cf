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
	ents []fs.DirEntry
	err  error
}

// New returns an empty set of listings.
func New() *Listings { return &Listings{dirs: map[string]listed{}} }

// readDir returns the entries of dir, sorted by name, from l when a walk
// read them before, else from the disk (keeping them in l).
func (l *Listings) readDir(dir string) ([]fs.DirEntry, error) {
	if l == nil {
		return os.ReadDir(dir)
	}
	l.mu.Lock()
	got, ok := l.dirs[dir]
	l.mu.Unlock()
	if ok {
		return got.ents, got.err
	}
	ents, err := os.ReadDir(dir)
	l.mu.Lock()
	l.dirs[dir] = listed{ents, err}
	l.mu.Unlock()
	return ents, err
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
	_, found := slices.BinarySearchFunc(got.ents, name, func(e fs.DirEntry, name string) int {
		return strings.Compare(e.Name(), name)
	})
	return found, true
}

// WalkDir is filepath.WalkDir with its folders read through l: the same
// order, the same calls of fn, the same meaning of fs.SkipDir and
// fs.SkipAll.
func (l *Listings) WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = l.walkDir(root, fs.FileInfoToDirEntry(info), fn)
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func (l *Listings) walkDir(p string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(p, d, nil); err != nil || !d.IsDir() {
		if errors.Is(err, fs.SkipDir) && d.IsDir() {
			err = nil // the folder is skipped
		}
		return err
	}
	ents, err := l.readDir(p)
	if err != nil {
		// As filepath.WalkDir: a second call reports the error.
		if err = fn(p, d, err); err != nil {
			if errors.Is(err, fs.SkipDir) && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for _, e := range ents {
		if err := l.walkDir(filepath.Join(p, e.Name()), e, fn); err != nil {
			if errors.Is(err, fs.SkipDir) {
				break
			}
			return err
		}
	}
	return nil
}
