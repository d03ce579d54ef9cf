package lsp

import (
	"github.com/ctxls/ctxls/providers/context/workspace"
)

// Notifications the server sends so that the client refreshes its views
// when something changed instead of polling.
const (
	// notifyLibraryChanged: topics, commands or the configuration changed
	// on disk, or a document was saved.
	notifyLibraryChanged = "ctxls/libraryChanged"
	// notifyExecutionsChanged: this server created, recorded, ran, made
	// current or deleted an execution.
	notifyExecutionsChanged = "ctxls/executionsChanged"
)

// notify sends a notification without params to the client, once it has
// confirmed initialization. A failure to send is logged only: the views
// refresh on the next change.
func (s *Server) notify(method string) {
	if s.conn == nil {
		return
	}
	select {
	case <-s.initialized:
	default:
		return
	}
	if err := s.conn.Notify(s.ctx, method, struct{}{}); err != nil {
		s.stderr.Debug("notify the client", "method", method, "err", err)
	}
}

// onUpdate follows the workspace's changes: the diagnostics of every one,
// and the library views for changes on disk. Edits of open documents
// reach the views when the document is saved, as a reload of every
// keystroke would cost more than it shows.
func (s *Server) onUpdate(u workspace.Update) {
	s.diags.onUpdate(u)
	if u.Reloaded {
		s.notify(notifyLibraryChanged)
		return
	}
	ws := s.live.Load()
	for _, p := range u.Changed {
		if ws == nil {
			break
		}
		if _, _, open := ws.Overlay(p); !open {
			s.notify(notifyLibraryChanged)
			return
		}
	}
}
