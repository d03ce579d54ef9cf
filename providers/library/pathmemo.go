package library

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library/discover"
)

// pathReading is what a path reference written in one directory may mean:
// its candidate files, whether any lies in a context root, and the index
// keys ("domain/topic") of those that do.
type pathReading struct {
	candidates []string
	inRoots    bool
	keys       []string
}

// pathMemo remembers the readings of path references per (directory,
// path). Indexing, linking and resolving a file ask for the same readings
// several times, and a command file of thousands of links asks for each
// on every keystroke; each reading costs several Join and Clean calls.
// A reading depends only on the context roots and the directories beside
// them, which are fixed for the memo's life: a reload makes a new memo.
//
// The memo keeps two generations of at most maxPathMemo readings each: a
// full pass over the workspace (diagnostics of every file) cycles through
// them, while the files being edited keep theirs in the current one.
type pathMemo struct {
	mu       sync.Mutex
	cur, old map[pathMemoKey]*pathReading
}

type pathMemoKey struct{ dir, path string }

// maxPathMemo bounds each generation of the memo.
const maxPathMemo = 4096

func newPathMemo() *pathMemo {
	return &pathMemo{cur: map[pathMemoKey]*pathReading{}}
}

// reading returns the reading of p written in a file of directory dir,
// computing it with b when it is not known. The result is shared: callers
// must not modify it.
func (pm *pathMemo) reading(b *builder, dir, p string) *pathReading {
	k := pathMemoKey{dir, p}
	pm.mu.Lock()
	r, ok := pm.cur[k]
	if !ok {
		if r, ok = pm.old[k]; ok {
			pm.keep(k, r)
		}
	}
	pm.mu.Unlock()
	if ok {
		return r
	}
	r = b.readPath(dir, p)
	pm.mu.Lock()
	pm.keep(pathMemoKey{strings.Clone(dir), strings.Clone(p)}, r)
	pm.mu.Unlock()
	return r
}

// keep stores a reading in the current generation, starting a new one
// when it is full; callers hold mu.
func (pm *pathMemo) keep(k pathMemoKey, r *pathReading) {
	if len(pm.cur) >= maxPathMemo {
		pm.old, pm.cur = pm.cur, make(map[pathMemoKey]*pathReading, maxPathMemo)
	}
	pm.cur[k] = r
}

// readPath computes the reading of the path reference p written in a file
// of directory dir; see pathCandidates.
func (b *builder) readPath(dir, p string) *pathReading {
	fp := filepath.FromSlash(p)
	if filepath.IsAbs(fp) {
		fp = strings.TrimLeft(fp, string(filepath.Separator))
	}
	first, _, _ := strings.Cut(filepath.ToSlash(fp), "/")
	r := &pathReading{candidates: []string{filepath.Join(dir, fp)}}
	// Readings often meet ("../context/x.md" from a folder beside the
	// root, read against the root): each candidate is looked up on disk
	// once.
	add := func(c string) {
		if !slices.Contains(r.candidates, c) {
			r.candidates = append(r.candidates, c)
		}
	}
	for _, root := range b.contextRoots {
		add(filepath.Join(filepath.Dir(root), fp))
		// dir stands for the referring file: a file is under root exactly
		// when its directory is.
		if b.beside[root][first] && discover.UnderAny(dir, []string{root}) == "" {
			continue
		}
		add(filepath.Join(root, fp))
	}
	seen := map[string]bool{}
	for _, c := range r.candidates {
		root := discover.UnderAny(c, b.contextRoots)
		if root == "" {
			continue
		}
		r.inRoots = true
		if k := strings.TrimSuffix(fsguard.RelSlash(root, c), path.Ext(c)); !seen[k] {
			seen[k] = true
			r.keys = append(r.keys, k)
		}
	}
	return r
}
