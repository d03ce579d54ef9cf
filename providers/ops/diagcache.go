package ops

import (
	"context"
	"maps"
	"path/filepath"
	"sync"

	"github.com/ctxls/ctxls/providers/context/library"
)

// Diagnostics keeps the diagnostics of every file of a live workspace
// between checks, so that checking a library of 10,000 topics again costs
// the files that changed rather than all of them. Whoever follows the
// workspace's updates invalidates the files an update affected. It is safe
// for concurrent use.
type Diagnostics struct {
	mu sync.Mutex
	// lib is the library byPath was computed for; a new library (a
	// reload) makes every entry stale.
	lib *library.Library
	// byPath is replaced, never changed, so that callers may keep it.
	byPath map[string][]library.Diagnostic
	stale  map[string]bool
	all    bool // every file is stale
}

// NewDiagnostics returns an empty cache: the first check computes every
// file's diagnostics.
func NewDiagnostics() *Diagnostics { return &Diagnostics{all: true, stale: map[string]bool{}} }

// Invalidate marks paths stale, or every file when all is set.
func (d *Diagnostics) Invalidate(paths []string, all bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if all {
		d.all = true
		clear(d.stale)
		return
	}
	for _, p := range paths {
		d.stale[filepath.Clean(p)] = true
	}
}

// of returns the diagnostics of every file of lib that has some, keyed by
// path. The map must not be changed.
func (d *Diagnostics) of(ctx context.Context, lib *library.Library) map[string][]library.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.all || d.lib != lib {
		m := lib.DiagnoseAll(ctx)
		if ctx.Err() != nil {
			return m // cut short: not kept
		}
		d.lib, d.byPath, d.all = lib, m, false
		clear(d.stale)
		return m
	}
	if len(d.stale) == 0 {
		return d.byPath
	}
	m := maps.Clone(d.byPath)
	for p := range d.stale {
		if ds := lib.Diagnose(p); len(ds) > 0 {
			m[p] = ds
		} else {
			delete(m, p)
		}
	}
	d.byPath = m
	clear(d.stale)
	return m
}

// diagnoseAll returns the diagnostics a check of path needs, keyed by
// path: of that one file when path names a file of the library, else of
// every file, from the cache when the Ops has one.
func (o *Ops) diagnoseAll(ctx context.Context, lib *library.Library, path string) map[string][]library.Diagnostic {
	if path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(lib.Dir(), path)
		}
		path = filepath.Clean(path)
		if _, ok := lib.File(path); ok {
			m := map[string][]library.Diagnostic{}
			if ds := lib.Diagnose(path); len(ds) > 0 {
				m[path] = ds
			}
			return m
		}
	}
	if o.opts.Diagnostics != nil {
		return o.opts.Diagnostics.of(ctx, lib)
	}
	return lib.DiagnoseAll(ctx)
}
