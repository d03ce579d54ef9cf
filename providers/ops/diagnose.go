package ops

import (
	"context"
	"path/filepath"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library"
)

// diagnoseAll returns the diagnostics a check of path needs, keyed by
// path: of that one file when path names a file of the library, else of
// every file. The library's snapshot keeps them, so that checking a live
// workspace again costs the files that changed since.
func diagnoseAll(ctx context.Context, lib *library.Snapshot, path string) map[string][]diag.Diagnostic {
	if path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(lib.Dir(), path)
		}
		path = filepath.Clean(path)
		if _, ok := lib.File(path); ok {
			m := map[string][]diag.Diagnostic{}
			if ds := lib.Diagnose(path); len(ds) > 0 {
				m[path] = ds
			}
			return m
		}
	}
	return lib.DiagnoseAll(ctx)
}
