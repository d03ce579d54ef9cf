package lsp

import (
	"context"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/workspace"
)

// startPreview publishes the diagnostics of documents the editor opens
// while the workspace is indexed, against a preview of the workspace (see
// library.Preview): the user sees the problems of the file in front of
// them in a fraction of the index's time. built is closed once the
// preview is ready (or failed), first once it has published the documents
// open at its first pass (or ended): the index waits for them rather than
// slow them down. stop ends the preview and returns once it publishes
// nothing more; the workspace's own diagnostics follow.
func (s *Server) startPreview(ctx context.Context) (built, first <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	exited := make(chan struct{})
	ready := make(chan struct{})
	passed := make(chan struct{})
	go func() {
		defer close(exited)
		s.runPreview(ctx, ready, sync.OnceFunc(func() { close(passed) }))
	}()
	return ready, passed, func() {
		cancel()
		<-exited
	}
}

func (s *Server) runPreview(ctx context.Context, built chan<- struct{}, passed func()) {
	defer passed()
	s.mu.Lock()
	settings := s.settings
	s.mu.Unlock()
	p, err := workspace.Preview(ctx, s.rootDir(), workspace.Options{
		Settings: settings, Logger: s.stderr,
		CacheDir: s.opts.CacheDir, CacheVersion: s.opts.CacheVersion,
	})
	close(built)
	if err != nil {
		if ctx.Err() == nil {
			s.stderr.Debug("preview the workspace", "err", err)
		}
		return
	}
	s.stderr.Debug("previewed the workspace", "files", p.Files(), "fromCache", p.FromCache)
	if !s.awaitInitialized(ctx) {
		return
	}
	type doc struct {
		path, text string
		version    int32
	}
	sent := map[string]int32{}
	for {
		var todo []doc
		s.mu.Lock()
		if s.docsLive {
			s.mu.Unlock()
			return
		}
		for _, path := range s.earlyOrder {
			d := s.early[path]
			if v, ok := sent[path]; d.open && (!ok || v != d.version) {
				todo = append(todo, doc{path, d.text, d.version})
			}
		}
		s.mu.Unlock()
		for _, d := range todo {
			if ctx.Err() != nil {
				return
			}
			if len(d.text) > maxPreviewDocument {
				// The index publishes its diagnostics soon: scanning it
				// here as well would hold it twice at once.
				sent[d.path] = d.version
				continue
			}
			f, ds, err := diagnosePreview(p, d.path, d.text)
			if err != nil {
				s.stderr.Debug("preview diagnostics", "path", d.path, "err", err)
				continue
			}
			sent[d.path] = d.version
			s.diags.publishPreview(ctx, d.path, d.version, f, ds)
		}
		passed()
		select {
		case <-s.earlyWake:
		case <-ctx.Done():
			return
		}
	}
}

// maxPreviewDocument is the largest open document the preview diagnoses:
// a larger one is scanned by the index at the same time, and two scans of
// a document of hundreds of thousands of references at once are most of
// the server's peak memory.
const maxPreviewDocument = 1 << 20

// diagnosePreview diagnoses a document against the preview. The preview's
// topics have no text: should a check ever reach for one, the document
// waits for the index rather than take the server down.
func diagnosePreview(p *library.Preview, path, text string) (f *library.File, ds []library.Diagnostic, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ds, err = nil, nil, fmt.Errorf("preview diagnostics of %s: %v", path, r)
		}
	}()
	return p.Diagnose(path, []byte(text))
}

// publishPreview sends the preview's diagnostics of an open document.
func (d *diagnostics) publishPreview(ctx context.Context, path string, version int32, f *library.File, ds []library.Diagnostic) {
	d.mu.Lock()
	had := d.setPublished(path, len(ds) > 0)
	d.mu.Unlock()
	if len(ds) == 0 && !had || f.Doc == nil {
		return
	}
	params := &protocol.PublishDiagnosticsParams{URI: uriOf(path), Version: protocol.NewOptional(version), Diagnostics: []protocol.Diagnostic{}}
	params.Diagnostics = appendFileDiagnostics(params.Diagnostics, f, ds, d.s.encoding())
	if err := d.s.client.PublishDiagnostics(context.WithoutCancel(ctx), params); err != nil {
		d.s.stderr.Debug("publish diagnostics", "path", path, "err", err)
	}
}
