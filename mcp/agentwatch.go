package mcp

import (
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/watcher"
)

// agentDirs are the hidden folders at the workspace root where agents keep
// skills, rules and commands. The workspace's watcher skips hidden
// folders, as the library does, so the server watches these itself.
var agentDirs = []string{".claude", ".cursor", ".github"}

// watchAgentDirs reads the agent files again and resyncs the resources
// after each change below the agent folders, until the server closes. A
// folder that does not exist yet is polled until it appears.
func (s *Server) watchAgentDirs(opts Options) error {
	var roots []string
	for _, d := range agentDirs {
		roots = append(roots, filepath.Join(s.ws.Dir(), d))
	}
	w, err := watcher.New(watcher.Options{
		Roots:    roots,
		Debounce: opts.Debounce,
		Logger:   s.log,
		Match: func(p string) bool {
			return strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdc") || strings.HasSuffix(p, ".json")
		},
		IgnoreDir: func(p string) bool { return filepath.Base(p) == "node_modules" },
	})
	if err != nil {
		return err
	}
	s.agentWatch = w
	go func() {
		for range w.Batches() {
			s.refresh()
		}
	}()
	return nil
}
