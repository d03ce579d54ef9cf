package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
)

// Initialize answers the initialize request: it negotiates the position
// encoding, records the client's capabilities and starts indexing the
// workspace in the background.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	caps := params.Capabilities
	enc := document.UTF16
	encKind := protocol.PositionEncodingKindUTF16
	if caps.General != nil && slices.Contains(caps.General.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		enc, encKind = document.UTF8, protocol.PositionEncodingKindUTF8
	}
	var cc clientCaps
	if w := caps.Window; w != nil && w.WorkDoneProgress != nil {
		cc.workDoneProgress = *w.WorkDoneProgress
	}
	if w := caps.Workspace; w != nil {
		if we := w.WorkspaceEdit; we != nil {
			cc.documentChanges = we.DocumentChanges != nil && *we.DocumentChanges
			cc.resourceRename = cc.documentChanges && slices.Contains(we.ResourceOperations, protocol.ResourceOperationKindRename)
		}
		cc.configuration = w.Configuration != nil && *w.Configuration
		if d := w.DidChangeWatchedFiles; d != nil && d.DynamicRegistration != nil {
			cc.watchedFiles = *d.DynamicRegistration
		}
	}
	if td := caps.TextDocument; td != nil {
		cc.markdown = true
		if h := td.Hover; h != nil && len(h.ContentFormat) > 0 {
			cc.markdown = slices.Contains(h.ContentFormat, protocol.MarkupKindMarkdown)
		}
		if c := td.Completion; c != nil && c.CompletionList != nil {
			cc.editRange = slices.Contains(c.CompletionList.ItemDefaults, "editRange")
		}
	} else {
		cc.markdown = true
	}

	root := ""
	if folders, ok := params.WorkspaceFolders.Get(); ok && len(folders) > 0 {
		if p, err := pathOf(folders[0].URI); err == nil {
			root = p
		}
		if len(folders) > 1 {
			s.log.Warn("ctxls serves the first workspace folder only", "folder", root, "ignored", len(folders)-1)
		}
	}
	if root == "" && params.RootURI != nil {
		if p, err := pathOf(*params.RootURI); err == nil {
			root = p
		}
	}
	if rp, ok := params.RootPath.Get(); root == "" && ok && rp != "" {
		root = rp
	}
	if root == "" {
		root = s.defaultDir()
	}

	s.mu.Lock()
	s.state = stateInitialized
	s.enc = enc
	s.caps = cc
	s.root = root
	s.settings = settingsOf(params.InitializationOptions)
	s.mu.Unlock()

	go s.openWorkspace()

	yes := true
	incremental := protocol.TextDocumentSyncKindIncremental
	// Imports and links name files of any kind (an image, a package.json),
	// and a move of any of them is a rename to follow.
	anyFile := protocol.FileOperationRegistrationOptions{Filters: []protocol.FileOperationFilter{
		{Scheme: ptr("file"), Pattern: protocol.FileOperationPattern{Glob: "**/*", Matches: protocol.FileOperationPatternKindFile}},
		{Scheme: ptr("file"), Pattern: protocol.FileOperationPattern{Glob: "**/*", Matches: protocol.FileOperationPatternKindFolder}},
	}}
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	return &protocol.InitializeResult{
		ServerInfo: protocol.ServerInfo{Name: "ctxls", Version: protocol.NewOptional(version)},
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: encKind,
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &yes,
				Change:    &incremental,
				Save:      protocol.Boolean(true),
			},
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{":", "#", "\"", "/", "@"},
				ResolveProvider:   &yes,
			},
			HoverProvider:           protocol.Boolean(true),
			DefinitionProvider:      protocol.Boolean(true),
			ReferencesProvider:      protocol.Boolean(true),
			DocumentSymbolProvider:  protocol.Boolean(true),
			WorkspaceSymbolProvider: protocol.Boolean(true),
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite},
			},
			CodeLensProvider:     &protocol.CodeLensOptions{},
			DocumentLinkProvider: &protocol.DocumentLinkOptions{},
			RenameProvider:       &protocol.RenameOptions{PrepareProvider: &yes},
			InlayHintProvider:    protocol.Boolean(true),
			Workspace: &protocol.WorkspaceOptions{
				FileOperations: &protocol.FileOperationOptions{WillRename: anyFile},
			},
		},
	}, nil
}

// settingsOf extracts the ctxls settings from initializationOptions, which
// the extension sends as {"settings": {"ctxls": {...}}}; other clients may
// send {"ctxls": {...}} or the bare object.
func settingsOf(raw []byte) []byte {
	if len(raw) == 0 {
		return nil
	}
	var wrapped struct {
		Settings json.RawMessage `json:"settings"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Settings) > 0 && string(wrapped.Settings) != "null" {
		return wrapped.Settings
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return raw
}

// Initialized is the client's confirmation; progress and diagnostics may
// flow from now on.
func (s *Server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	s.initOnce.Do(func() { close(s.initialized) })
	s.mu.Lock()
	pull := s.caps.configuration && len(s.settings) == 0
	watch := s.caps.watchedFiles
	s.mu.Unlock()
	if pull {
		go s.pullSettings()
	}
	if watch {
		go s.registerWatchers()
	}
	return nil
}

// registerWatchers asks the client to report changes to markdown files and
// .ctxls.yaml. The server's own watcher sees them too; a change reported
// both ways is applied once. It runs on its own goroutine: the answer
// comes through the read loop.
func (s *Server) registerWatchers() {
	reg := protocol.Registration{
		ID:              "ctxls-watched-files",
		Method:          "workspace/didChangeWatchedFiles",
		RegisterOptions: []byte(`{"watchers":[{"globPattern":"**/*.md"},{"globPattern":"**/.ctxls.yaml"}]}`),
	}
	err := s.client.RegisterCapability(s.ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{reg}})
	if err != nil {
		s.stderr.Info("the client declined file watchers; the server's own watcher goes on", "err", err)
	}
}

// pullSettings asks the client for the ctxls settings
// (workspace/configuration) and applies them. It runs on its own
// goroutine: the answer comes through the read loop.
func (s *Server) pullSettings() {
	ctx := s.ctx
	section := "ctxls"
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil || len(res) == 0 || len(res[0]) == 0 || string(res[0]) == "null" {
		return
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return
	}
	if err := ws.SetSettings(ctx, json.RawMessage(res[0])); err != nil {
		s.log.Warn("apply the ctxls settings", "err", err)
	}
}

// previewLead bounds how long the index waits for the preview's first
// diagnostics once the preview is built.
const previewLead = 250 * time.Millisecond

// openWorkspace indexes the workspace, reporting progress once the client
// has confirmed initialization, then publishes every file's diagnostics.
func (s *Server) openWorkspace() {
	ctx := s.ctx
	var done, total atomic.Int64
	loaded := make(chan struct{})
	go s.reportIndexProgress(ctx, loaded, &done, &total)
	previewed, firstPass, stopPreview := s.startPreview(ctx)
	select {
	case <-previewed:
	case <-ctx.Done():
	}
	// The diagnostics of the documents already open go out before the
	// index takes every core; a client slow to confirm initialization
	// does not hold the index back for long.
	lead := time.NewTimer(previewLead)
	select {
	case <-firstPass:
	case <-lead.C:
	case <-ctx.Done():
	}
	lead.Stop()
	if s.opts.Started != nil {
		s.opts.Started()
	}
	if g := s.opts.indexGate; g != nil {
		select {
		case <-g:
		case <-ctx.Done():
		}
	}
	ws, err := workspace.Open(ctx, s.rootDir(), workspace.Options{
		Settings:     s.settings,
		Watch:        !s.opts.NoWatch,
		Logger:       s.log,
		OnUpdate:     s.onUpdate,
		Progress:     func(d, t int) { done.Store(int64(d)); total.Store(int64(t)) },
		AfterIndex:   s.opts.Reclaim,
		CacheDir:     s.opts.CacheDir,
		CacheVersion: s.opts.CacheVersion,
		// The log has it too; this one the user sees without opening it.
		OnWatchLimit: func(msg string) { s.showMessage(ctx, protocol.MessageTypeWarning, msg) },
	})
	close(loaded)
	// From here on the workspace's diagnostics are the ones to publish.
	stopPreview()
	s.mu.Lock()
	s.docsLive = true
	if s.state == stateShutdown || ctx.Err() != nil {
		s.mu.Unlock()
		if ws != nil {
			ws.Close()
		}
		close(s.ready)
		return
	}
	s.ws, s.wsErr = ws, err
	if ws != nil {
		s.ops = ops.New(ops.Options{
			Snapshot:          func() ops.Snapshot { return ws.Snapshot() },
			Logger:            s.stderr,
			ExecutionsChanged: func() { mark(s.stale.executions) },
		})
		s.live.Store(ws)
		// Documents opened while the index was built join it now, under
		// the lock, so that no later change can overtake them.
		for _, p := range s.earlyOrder {
			if d := s.early[p]; d.open {
				ws.DidOpen(p, d.text, d.version)
			}
		}
	}
	s.early, s.earlyOrder = nil, nil
	settings, watched := s.earlySettings, s.earlyWatched
	s.earlySettings, s.earlyWatched = nil, nil
	s.mu.Unlock()
	// Changes the client announced during the index apply before any
	// request runs; later ones wait for ready and follow them.
	if ws != nil && settings != nil {
		if err := ws.SetSettings(ctx, settings); err != nil {
			s.log.Warn("apply the ctxls settings", "err", err)
		}
	}
	if ws != nil && len(watched) > 0 {
		ws.NotifyWatched(watched)
	}
	close(s.ready)
	if err != nil {
		s.log.Error("open the workspace", "dir", s.rootDir(), "err", err)
		// Every request fails without a workspace: the user is told why,
		// where they look, once the client is ready for it.
		if !s.awaitInitialized(ctx) {
			return
		}
		s.showMessage(ctx, protocol.MessageTypeError, err.Error()+"; nothing is served")
		return
	}
	for _, p := range ws.Snapshot().Library().ConfigProblems() {
		s.log.Warn(".ctxls.yaml: " + p.String())
	}
	if !s.awaitInitialized(ctx) {
		return
	}
	s.diags.publishAll(ctx)
}

// awaitInitialized waits for the client's initialized notification and
// reports whether it came before ctx was done.
func (s *Server) awaitInitialized(ctx context.Context) bool {
	select {
	case <-s.initialized:
		return true
	case <-ctx.Done():
		return false
	}
}

// showMessage shows msg to the user, when there is a client; it is sent
// even when the request that caused it is cancelled.
func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if s.client != nil {
		_ = s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: typ, Message: "ctxls: " + msg})
	}
}

// reportIndexProgress sends $/progress for the initial index, once the
// client has confirmed initialization: a begin, reports while files are
// parsed, and an end when the index is ready (at once when it already is).
func (s *Server) reportIndexProgress(ctx context.Context, loaded <-chan struct{}, done, total *atomic.Int64) {
	if !s.awaitInitialized(ctx) {
		return
	}
	p := s.progress(ctx, nil, "Indexing context library")
	if p == nil {
		return
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-loaded:
			msg := "Indexed"
			if t := total.Load(); t > 0 {
				msg = fmt.Sprintf("Indexed %d files", t)
			}
			p.end(ctx, msg)
			return
		case <-ctx.Done():
			p.end(ctx, "")
			return
		case <-tick.C:
			d, t := done.Load(), total.Load()
			if t > 0 {
				p.report(ctx, formatCount(d, t), int(d*100/t))
			}
		}
	}
}

// Shutdown stops the work of the server; only exit follows.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.state = stateShutdown
	s.shutdown = true
	s.mu.Unlock()
	s.diags.stop()
	s.closeResources()
	return nil
}

// Exit ends Serve.
func (s *Server) Exit(ctx context.Context) error {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}
