package lsp

import (
	"context"

	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
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
		var n ops.Notification[ops.Empty]
		select {
		case <-ctx.Done():
			return
		case <-s.stale.library:
			n = ops.NotifyLibraryChanged
		case <-s.stale.executions:
			n = ops.NotifyExecutionsChanged
		case <-s.stale.agents:
			n = ops.NotifyAgentFilesChanged
		}
		if err := s.conn.Notify(ctx, string(n), ops.Empty{}); err != nil {
			s.stderr.Debug("notify the client", "method", n, "err", err)
		}
	}
}

// onUpdate follows the workspace's changes: the diagnostics of every one,
// and the library views for changes on disk and reloads. Edits of open
// documents reach the views when the document is saved, as a refresh at
// every keystroke would cost more than it shows.
func (s *Server) onUpdate(u workspace.Update) {
	s.diags.onUpdate(u)
	if u.Snapshot != nil {
		s.touchSkillUsers(u.Snapshot, u.Changed)
	}
	if u.Reloaded {
		mark(s.stale.library)
		mark(s.stale.agents)
		return
	}
	for _, p := range u.Changed {
		if u.Snapshot == nil {
			break
		}
		if _, _, open := u.Snapshot.Overlay(p); !open {
			mark(s.stale.library)
			// A memory file's imports are files of the library.
			mark(s.stale.agents)
			return
		}
	}
}
