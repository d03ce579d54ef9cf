package lsp

import (
	"context"

	"github.com/ctxls/ctxls/providers/workspace"
)

// Notifications the server sends so that the client refreshes its views
// when something changed instead of polling.
const (
	// notifyLibraryChanged: topics, commands or the configuration changed
	// on disk or in the settings, or a document was saved.
	notifyLibraryChanged = "ctxls/libraryChanged"
	// notifyExecutionsChanged: this server created, recorded, ran, made
	// current or deleted an execution.
	notifyExecutionsChanged = "ctxls/executionsChanged"
	// notifyAgentFilesChanged: agent files changed on disk, or in the
	// editor and not saved, or the configuration changed; the session
	// costs are stale.
	notifyAgentFilesChanged = "ctxls/agentFilesChanged"
)

// staleViews holds the notifications waiting to be sent, one of each at
// most: changes that come while one waits are told by it.
type staleViews struct {
	library    chan struct{}
	executions chan struct{}
	agents     chan struct{}
}

func newStaleViews() staleViews {
	return staleViews{library: make(chan struct{}, 1), executions: make(chan struct{}, 1), agents: make(chan struct{}, 1)}
}

// mark queues the notification of ch unless one is queued already. It
// never waits, so that the workspace and the operations that call it do
// not wait for a slow client.
func mark(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// sendStale sends the queued notifications, once the client has confirmed
// initialization, until ctx is done.
func (s *Server) sendStale(ctx context.Context) {
	if !s.awaitInitialized(ctx) {
		return
	}
	for {
		method := ""
		select {
		case <-ctx.Done():
			return
		case <-s.stale.library:
			method = notifyLibraryChanged
		case <-s.stale.executions:
			method = notifyExecutionsChanged
		case <-s.stale.agents:
			method = notifyAgentFilesChanged
		}
		if err := s.conn.Notify(ctx, method, struct{}{}); err != nil {
			s.stderr.Debug("notify the client", "method", method, "err", err)
		}
	}
}

// onUpdate follows the workspace's changes: the diagnostics of every one,
// and the library views for changes on disk and reloads. Edits of open
// documents reach the views when the document is saved, as a refresh at
// every keystroke would cost more than it shows.
func (s *Server) onUpdate(u workspace.Update) {
	s.diags.onUpdate(u)
	if u.Reloaded {
		mark(s.stale.library)
		mark(s.stale.agents)
		return
	}
	for _, p := range u.Changed {
		if _, _, open := u.Snapshot.Overlay(p); !open {
			mark(s.stale.library)
			// A memory file's imports are files of the library.
			mark(s.stale.agents)
			return
		}
	}
}
