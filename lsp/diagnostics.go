package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/workspace"
)

// diagnostics publishes the library's diagnostics: for the whole workspace
// after the initial index, and, rate-limited, for every file a change may
// have affected (the changed files and the files referring to them). A
// file whose problems are fixed gets an empty list once.
type diagnostics struct {
	s *Server

	mu        sync.Mutex
	pending   map[string]bool
	reload    bool
	timer     *time.Timer     // the next flush, when one is due
	idle      *time.Timer     // the next run of Options.Idle, when one is due
	last      time.Time       // when the last flush started
	published map[string]bool // files whose last published list was not empty
	stopped   bool
}

func newDiagnostics(s *Server) *diagnostics {
	return &diagnostics{s: s, pending: map[string]bool{}, published: map[string]bool{}}
}

// onUpdate is called by the workspace after every applied change.
func (d *diagnostics) onUpdate(u workspace.Update) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	for _, p := range u.Affected {
		d.pending[p] = true
	}
	for _, p := range u.Changed {
		d.pending[p] = true
	}
	if u.Reloaded {
		d.reload = true
	}
	if d.idle != nil {
		d.idle.Stop() // not idle after all
		d.idle = nil
	}
	if d.timer != nil {
		return // a flush is due; it takes these too
	}
	// The first change after a quiet spell is published at once (after a
	// moment that gathers the rest of its burst); while changes keep
	// coming, at most once per DiagnosticsDelay.
	wait := minWait
	if since := time.Since(d.last); since < d.s.opts.DiagnosticsDelay {
		wait = max(wait, d.s.opts.DiagnosticsDelay-since)
	}
	d.timer = time.AfterFunc(wait, d.flush)
}

// minWait gathers the updates of one burst (a file and the files that
// refer to it arrive in one update, a rescan in a few) into one flush.
const minWait = 2 * time.Millisecond

// flush publishes what is pending.
func (d *diagnostics) flush() {
	d.mu.Lock()
	pending, reload := d.pending, d.reload
	d.pending, d.reload = map[string]bool{}, false
	d.timer = nil
	d.last = time.Now()
	stopped := d.stopped
	d.mu.Unlock()
	if stopped {
		return
	}
	ctx := d.s.ctx
	ws, err := d.s.workspaceCtx(ctx)
	if err != nil {
		return
	}
	select {
	case <-d.s.initialized:
	default:
		return // the initial publication will cover it
	}
	if reload {
		d.publishAll(ctx)
		return
	}
	lib := ws.Library()
	for p := range pending {
		if filepath.Base(p) == config.FileName {
			d.publishConfig(ctx, lib)
			continue
		}
		d.publish(ctx, ws, lib, p, lib.Diagnose(p))
	}
	d.scheduleIdle()
}

// scheduleIdle runs Options.Idle after IdleDelay unless a change comes
// first.
func (d *diagnostics) scheduleIdle() {
	idle := d.s.opts.Idle
	if idle == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.timer != nil {
		return // more is pending: that flush schedules it
	}
	if d.idle != nil {
		d.idle.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(IdleDelay, func() {
		d.mu.Lock()
		due := d.idle == t && !d.stopped
		d.idle = nil
		d.mu.Unlock()
		if due {
			idle()
		}
	})
	d.idle = t
}

// publishAll publishes the diagnostics of every file and clears those of
// files that no longer have any. Diagnosing every file reads each
// frontmatter again and leaves that garbage to Options.Reclaim.
func (d *diagnostics) publishAll(ctx context.Context) {
	ws, err := d.s.workspaceCtx(ctx)
	if err != nil {
		return
	}
	lib := ws.Library()
	all := lib.DiagnoseAll(ctx)
	d.mu.Lock()
	var stale []string
	for p := range d.published {
		if _, ok := all[p]; !ok {
			stale = append(stale, p)
		}
	}
	d.mu.Unlock()
	for p, ds := range all {
		if ctx.Err() != nil {
			return
		}
		d.publish(ctx, ws, lib, p, ds)
	}
	for _, p := range stale {
		d.publish(ctx, ws, lib, p, nil)
	}
	d.publishConfig(ctx, lib)
	if r := d.s.opts.Reclaim; r != nil {
		r()
	}
}

// publishConfig publishes the problems of .ctxls.yaml on that file.
func (d *diagnostics) publishConfig(ctx context.Context, lib *library.Library) {
	path := filepath.Join(lib.Dir(), config.FileName)
	problems := lib.ConfigProblems()
	d.mu.Lock()
	had := d.published[path]
	if len(problems) > 0 {
		d.published[path] = true
	} else {
		delete(d.published, path)
	}
	d.mu.Unlock()
	if len(problems) == 0 && !had {
		return
	}
	params := &protocol.PublishDiagnosticsParams{URI: uriOf(path), Diagnostics: []protocol.Diagnostic{}}
	for _, p := range problems {
		line := uint32(max(p.Line, 0))
		sev := protocol.DiagnosticSeverityWarning
		if p.Severity == "error" {
			sev = protocol.DiagnosticSeverityError
		}
		params.Diagnostics = append(params.Diagnostics, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line + 1}},
			Severity: sev,
			Code:     protocol.String(config.ProblemCode),
			Source:   protocol.NewOptional("ctxls"),
			Message:  protocol.String(p.Message),
		})
	}
	if err := d.s.client.PublishDiagnostics(context.WithoutCancel(ctx), params); err != nil {
		d.s.stderr.Debug("publish diagnostics", "path", path, "err", err)
	}
}

// publish sends one file's diagnostics, unless it has none now and had
// none before.
func (d *diagnostics) publish(ctx context.Context, ws *workspace.Workspace, lib *library.Library, path string, ds []library.Diagnostic) {
	d.mu.Lock()
	had := d.published[path]
	if len(ds) > 0 {
		d.published[path] = true
	} else {
		delete(d.published, path)
	}
	d.mu.Unlock()
	if len(ds) == 0 && !had {
		return
	}
	params := &protocol.PublishDiagnosticsParams{URI: uriOf(path), Diagnostics: []protocol.Diagnostic{}}
	if _, version, open := ws.Overlay(path); open {
		params.Version = protocol.NewOptional(version)
	}
	if f, ok := lib.File(path); ok {
		enc := d.s.encoding()
		for _, dg := range ds {
			params.Diagnostics = append(params.Diagnostics, toDiagnostic(f, dg, enc))
		}
	}
	if err := d.s.client.PublishDiagnostics(context.WithoutCancel(ctx), params); err != nil {
		d.s.stderr.Debug("publish diagnostics", "path", path, "err", err)
	}
}

// diagData is what a diagnostic carries for the code actions that fix it.
type diagData struct {
	Code string       `json:"code"`
	Fix  *library.Fix `json:"fix,omitempty"`
}

func toDiagnostic(f *library.File, dg library.Diagnostic, enc document.Encoding) protocol.Diagnostic {
	var rg protocol.Range // a skipped file has no text: its start
	if f.Doc != nil {
		rg = toRange(f.Doc, dg.Span, enc)
	}
	out := protocol.Diagnostic{
		Range:    rg,
		Severity: protocol.DiagnosticSeverity(dg.Severity),
		Code:     protocol.String(dg.Code),
		Source:   protocol.NewOptional("ctxls"),
		Message:  protocol.String(dg.Message),
	}
	if raw, err := json.Marshal(diagData{Code: dg.Code, Fix: dg.Fix}); err == nil {
		out.Data = raw
	}
	return out
}

// stop ends publishing.
func (d *diagnostics) stop() {
	d.mu.Lock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
	if d.idle != nil {
		d.idle.Stop()
	}
	d.mu.Unlock()
}

// formatCount renders "12 of 340 files".
func formatCount(done, total int64) string {
	return fmt.Sprintf("%d of %d files", done, total)
}
