package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/workspace"
)

// DidOpen makes the editor's text the source of truth for a document.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	return s.docEvent(ctx, td.URI, func(d *earlyDoc, _ string) error {
		d.text, d.version, d.open = td.Text, td.Version, true
		return nil
	}, func(ws *workspace.Workspace, _ *workspace.Snapshot, path string) error {
		ws.DidOpen(path, td.Text, td.Version)
		return nil
	})
}

// DidChange applies the editor's changes, in order, to the open text.
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	return s.docEvent(ctx, params.TextDocument.URI, func(d *earlyDoc, path string) error {
		if !d.open {
			return invalidParams("didChange for %s, which is not open", path)
		}
		text, err := applyChanges(d.text, params.ContentChanges, s.encodingLocked())
		if err == nil {
			d.text, d.version = text, params.TextDocument.Version
		}
		return err
	}, func(ws *workspace.Workspace, snap *workspace.Snapshot, path string) error {
		text, _, open := snap.Overlay(path)
		if !open {
			return invalidParams("didChange for %s, which is not open", path)
		}
		text, err := applyChanges(text, params.ContentChanges, s.encoding())
		if err != nil {
			return err
		}
		ws.DidChange(path, text, params.TextDocument.Version)
		return nil
	})
}

// docEvent applies an event of the document at u: to its early record
// (under the server's lock) while the initial index is built, and to the
// workspace after, with the snapshot the event starts from; both are
// given the path u names. The inlay marks of the document go with any
// event, and the diagnostics of an agent file follow its new text.
func (s *Server) docEvent(ctx context.Context, u uri.URI, early func(d *earlyDoc, path string) error, live func(ws *workspace.Workspace, snap *workspace.Snapshot, path string) error) error {
	path, err := pathOf(u)
	if err != nil {
		return err
	}
	s.inlays.drop(path)
	if queued, err := s.deferDoc(path, func(d *earlyDoc) error { return early(d, path) }); queued {
		return err
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return err
	}
	// Whether the document is an agent file is the same before its event
	// as after: its path and the workspace's other files say.
	snap := ws.Snapshot()
	if err := live(ws, snap, path); err != nil {
		return err
	}
	if s.isAgentFile(snap, path) {
		s.diags.touch(path)
		mark(s.stale.agents)
	}
	return nil
}

// applyChanges applies content changes to text with
// document.ApplyChanges. A change of an unknown type is an error once the
// changes before it are applied.
func applyChanges(text string, changes []protocol.TextDocumentContentChangeEvent, enc document.Encoding) (string, error) {
	cs := make([]document.Change, 0, len(changes))
	unknown := false
loop:
	for _, c := range changes {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			cs = append(cs, document.Change{Text: c.Text})
		case *protocol.TextDocumentContentChangePartial:
			r := document.Range{
				Start: document.Position{Line: int(c.Range.Start.Line), Character: int(c.Range.Start.Character)},
				End:   document.Position{Line: int(c.Range.End.Line), Character: int(c.Range.End.Character)},
			}
			cs = append(cs, document.Change{Range: &r, Text: c.Text})
		default:
			unknown = true
			break loop
		}
	}
	text, err := document.ApplyChanges(text, cs, enc)
	if err != nil {
		return "", invalidParams("%v", err)
	}
	if unknown {
		return "", invalidParams("unknown content change")
	}
	return text, nil
}

// DidSave tells the client to refresh its library views: the open text is
// already the truth, and the watcher sees the file on disk, but the views
// follow the edits of open documents only when they are saved.
func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	mark(s.stale.library)
	return nil
}

// DidClose hands a document back to the disk, whose text is the truth
// again.
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	return s.docEvent(ctx, params.TextDocument.URI, func(d *earlyDoc, _ string) error {
		d.open = false
		return nil
	}, func(ws *workspace.Workspace, _ *workspace.Snapshot, path string) error {
		ws.DidClose(path)
		return nil
	})
}

// DidChangeWatchedFiles forwards the client's file events to the
// workspace, which dedupes them with its own watcher.
func (s *Server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	var paths []string
	for _, c := range params.Changes {
		if p, err := pathOf(c.URI); err == nil {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	if s.keepEarly(func() {
		s.earlyWatched = append(s.earlyWatched, paths...) // applied when the index is ready
	}) {
		return nil
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return err
	}
	ws.NotifyWatched(paths)
	// The library's watcher does not see the hidden folders agent files
	// live in: the client's events tell of them too.
	s.agentFilesChanged(ws, paths)
	return nil
}

// DidChangeConfiguration applies the client's ctxls.* settings over
// .ctxls.yaml.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	raw := settingsOf(params.Settings)
	if raw == nil || string(raw) == "{}" {
		// The pull model: the notification only says something changed.
		s.mu.Lock()
		pull := s.caps.configuration
		s.mu.Unlock()
		if pull {
			go s.pullSettings()
		}
		return nil
	}
	if s.keepEarly(func() {
		s.earlySettings = raw // the latest wins; applied when the index is ready
	}) {
		return nil
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return err
	}
	if err := ws.SetSettings(context.WithoutCancel(ctx), raw); err != nil {
		s.log.Warn("apply the ctxls settings", "err", err)
	}
	return nil
}

// keepEarly runs keep under the server's lock while the initial index is
// built, and reports whether it did.
func (s *Server) keepEarly(keep func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docsLive {
		return false
	}
	keep()
	return true
}

// earlyDoc is a document the editor opened before the workspace was ready.
type earlyDoc struct {
	text    string
	version int32
	open    bool
}

// deferDoc records a document event while the initial index is built, so
// that the read loop does not wait for it; it reports false once the
// workspace takes events itself. f runs under the server's lock.
func (s *Server) deferDoc(path string, f func(d *earlyDoc) error) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docsLive {
		return false, nil
	}
	if s.early == nil {
		s.early = map[string]*earlyDoc{}
	}
	d, ok := s.early[path]
	if !ok {
		d = &earlyDoc{}
		s.early[path] = d
		s.earlyOrder = append(s.earlyOrder, path)
	}
	select {
	case s.earlyWake <- struct{}{}:
	default:
	}
	return true, f(d)
}
