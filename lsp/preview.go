package lsp

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/workspace"
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
	root := s.rootDir()
	// The preview lists the whole workspace; the agent files the editor
	// opens are checked against what they name meanwhile, which takes a
	// few reads whatever the size of the repository.
	type previewed struct {
		p   *library.Preview
		err error
	}
	ready := make(chan previewed, 1)
	listed := make(chan struct{})
	// The index starts once the preview is built, so this waits for a
	// preview only when the server stops meanwhile, which cancels it.
	defer func() { <-listed }()
	go func() {
		defer close(listed)
		if g := s.opts.previewGate; g != nil {
			select {
			case <-g:
			case <-ctx.Done():
			}
		}
		p, err := workspace.Preview(ctx, root, workspace.Options{
			Settings: settings, Logger: s.stderr,
			CacheDir: s.opts.CacheDir, CacheVersion: s.opts.CacheVersion,
		})
		close(built)
		ready <- previewed{p, err}
	}()
	cfg, err := workspace.Config(root, settings)
	if err != nil {
		s.stderr.Debug("configuration of the agent files' preview", "err", err)
		cfg = nil // the defaults: the index reports the configuration's problems
	}
	limit := config.DefaultFileDiagnostics
	if cfg != nil {
		limit = cfg.Limits.FileDiagnostics
	}
	if !s.awaitInitialized(ctx) {
		return
	}
	var p *library.Preview
	waiting := (<-chan previewed)(ready)
	sent := map[string]int32{}      // the library preview's diagnostics published
	agentSent := map[string]int32{} // the agent files' early diagnostics computed
	agents := map[string]earlyAgent{}
	for {
		var todo []previewDoc
		s.mu.Lock()
		if s.docsLive {
			s.mu.Unlock()
			return
		}
		for _, path := range s.earlyOrder {
			d := s.early[path]
			if !d.open {
				continue
			}
			v, libDone := sent[path]
			av, agentDone := agentSent[path]
			if p != nil && (!libDone || v != d.version) || !agentDone || av != d.version {
				todo = append(todo, previewDoc{path, d.text, d.version})
			}
		}
		s.mu.Unlock()
		var fresh []previewDoc
		for _, d := range todo {
			if v, ok := agentSent[d.path]; !ok || v != d.version {
				fresh = append(fresh, d)
			}
		}
		if len(fresh) > 0 {
			texts := make(map[string][]byte, len(fresh))
			for _, d := range fresh {
				agentSent[d.path] = d.version
				if rel, ok := fsguard.Rel(root, d.path); ok && len(d.text) <= maxPreviewDocument && agentfiles.Classify(rel, nil) != agentfiles.KindUnknown {
					texts[d.path] = []byte(d.text)
				}
			}
			for path, a := range s.previewAgents(ctx, root, cfg, texts) {
				agents[path] = a
				if p == nil {
					// The agent file's own diagnostics go out at once;
					// the library's join them when the preview is built.
					s.diags.publishPreview(ctx, path, versionOf(fresh, path), nil, nil, a, limit)
				}
			}
		}
		if p != nil {
			for _, d := range todo {
				if ctx.Err() != nil {
					return
				}
				if v, ok := sent[d.path]; ok && v == d.version {
					continue
				}
				sent[d.path] = d.version
				if len(d.text) > maxPreviewDocument {
					// The index publishes its diagnostics soon: scanning it
					// here as well would hold it twice at once.
					continue
				}
				f, ds, err := diagnosePreview(p, d.path, d.text)
				if err != nil {
					s.stderr.Debug("preview diagnostics", "path", d.path, "err", err)
					continue
				}
				s.diags.publishPreview(ctx, d.path, d.version, f, ds, agents[d.path], limit)
			}
			passed()
		}
		select {
		case <-s.earlyWake:
		case r := <-waiting:
			waiting = nil
			if r.err != nil {
				if ctx.Err() == nil {
					s.stderr.Debug("preview the workspace", "err", r.err)
				}
				passed()
				continue
			}
			p = r.p
			s.stderr.Debug("previewed the workspace", "files", p.Files(), "fromCache", p.FromCache)
		case <-ctx.Done():
			return
		}
	}
}

// earlyAgent is an open agent file as checked before the index is built.
type earlyAgent struct {
	file *agentfiles.File
	ds   []diag.Diagnostic
}

// previewAgents checks the agent files among texts, the open documents'
// texts by path, against what they name (see agentfiles.LoadFor).
func (s *Server) previewAgents(ctx context.Context, root string, cfg *config.Config, texts map[string][]byte) map[string]earlyAgent {
	if len(texts) == 0 {
		return nil
	}
	paths := make([]string, 0, len(texts))
	for p := range texts {
		paths = append(paths, p)
	}
	set, err := agentfiles.LoadFor(ctx, root, cfg, paths)
	if err != nil {
		s.stderr.Debug("preview the agent files", "err", err)
		return nil
	}
	set = set.WithTexts(ctx, texts)
	out := map[string]earlyAgent{}
	for _, p := range paths {
		f, ds := set.CheckFile(ctx, p, texts[p])
		if f != nil {
			out[p] = earlyAgent{f, ds}
		}
	}
	return out
}

// previewDoc is an open document as the preview sees it.
type previewDoc struct {
	path, text string
	version    int32
}

// versionOf returns the version of the document at path among docs.
func versionOf(docs []previewDoc, path string) int32 {
	for _, d := range docs {
		if d.path == path {
			return d.version
		}
	}
	return 0
}

// maxPreviewDocument is the largest open document the preview diagnoses:
// a larger one is scanned by the index at the same time, and two scans of
// a document of hundreds of thousands of references at once are most of
// the server's peak memory.
const maxPreviewDocument = 1 << 20

// diagnosePreview diagnoses a document against the preview. The preview's
// topics have no text: should a check ever reach for one, the document
// waits for the index rather than take the server down.
func diagnosePreview(p *library.Preview, path, text string) (f *library.File, ds []diag.Diagnostic, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ds, err = nil, nil, fmt.Errorf("preview diagnostics of %s: %v", path, r)
		}
	}()
	return p.Diagnose(path, []byte(text))
}

// publishPreview sends the preview's diagnostics of an open document:
// those of the library's file f, when the library preview has it, with
// those of the agent file a, when it is one, at most limit of them.
func (d *diagnostics) publishPreview(ctx context.Context, path string, version int32, f *library.File, ds []diag.Diagnostic, a earlyAgent, limit int) {
	if a.file != nil {
		// As publish does: the agent file's check judges its YAML.
		ds = slices.DeleteFunc(slices.Clone(ds), func(l diag.Diagnostic) bool { return l.Code == library.CodeParseError })
	}
	n := len(ds) + len(a.ds)
	d.mu.Lock()
	had := d.setPublished(path, n > 0)
	d.mu.Unlock()
	if n == 0 && !had || (f == nil || f.Doc == nil) && a.file == nil {
		return
	}
	params := &protocol.PublishDiagnosticsParams{URI: uriOf(path), Version: protocol.NewOptional(version)}
	var libLines, agentLines *document.Lines
	if f != nil && f.Doc != nil {
		libLines = f.Doc.Lines
	} else {
		ds = nil
	}
	if a.file != nil {
		agentLines = a.file.Lines
	}
	params.Diagnostics = fileDiagnostics(path, libLines, ds, agentLines, a.ds, limit, d.s.encoding(), nil)
	if err := d.s.client.PublishDiagnostics(context.WithoutCancel(ctx), params); err != nil {
		d.s.stderr.Debug("publish diagnostics", "path", path, "err", err)
	}
}
