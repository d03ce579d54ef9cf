// Package agentwatch follows the hidden folders at a workspace's root
// where coding agents keep skills, rules, commands and instructions
// (.claude, .cursor, .github and the others of [agentfiles.HiddenDirs]).
// The workspace's watcher skips hidden folders, as the library does, so
// the language server and the MCP server, which check and serve agent
// files, follow these besides.
package agentwatch

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/watcher"
)

// Options configure a Watcher. The zero value is the watcher package's
// defaults.
type Options struct {
	// Debounce is the quiet time after the last event before the changes
	// are reported (see watcher.Options).
	Debounce time.Duration
	// PollInterval is how often a folder that does not exist yet is looked
	// for (see watcher.Options).
	PollInterval time.Duration
	// Logger receives the watcher's warnings; nil discards them.
	Logger *slog.Logger
}

// Watcher follows the agent folders of one workspace.
type Watcher struct {
	w    *watcher.Watcher
	done chan struct{}
}

// Watch follows the agent folders below the workspace dir and, after each
// burst of changes, calls changed with the absolute paths of the files
// created, changed or removed that may be agent files (see
// agentfiles.MaybeFile). Calls come one at a time from a goroutine of the
// Watcher. A folder that does not exist yet is looked for every
// PollInterval until it appears; node_modules folders are skipped.
func Watch(dir string, opts Options, changed func(paths []string)) (*Watcher, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var roots []string
	for _, d := range agentfiles.HiddenDirs() {
		roots = append(roots, filepath.Join(dir, d))
	}
	w, err := watcher.New(watcher.Options{
		Roots:        roots,
		Debounce:     opts.Debounce,
		PollInterval: opts.PollInterval,
		Logger:       log,
		Match:        agentfiles.MaybeFile,
		IgnoreDir:    func(p string) bool { return filepath.Base(p) == "node_modules" },
	})
	if err != nil {
		return nil, fmt.Errorf("watch the agent folders of %s: %w", dir, err)
	}
	aw := &Watcher{w: w, done: make(chan struct{})}
	go func() {
		defer close(aw.done)
		for b := range w.Batches() {
			var paths []string
			for _, c := range b.Changes {
				if !c.IsDir {
					paths = append(paths, c.Path)
				}
			}
			if len(paths) > 0 {
				changed(paths)
			}
		}
	}()
	return aw, nil
}

// Close stops following the folders and returns once a call of changed
// in progress has returned; none follows. It is safe to call more than
// once.
func (w *Watcher) Close() error {
	err := w.w.Close()
	<-w.done
	return err
}
