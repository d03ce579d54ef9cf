package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
)

// diagnostics publishes the library's diagnostics: for the whole workspace
// after the initial index, and, rate-limited, for every file a change may
// have affected (the changed files and the files referring to them). A
// file whose problems are fixed gets an empty list once.
type diagnostics struct {
	s *Server

	// publishing is held by a whole flush or publishAll, each of which takes
	// the workspace's snapshot once it holds it: publications run one at a
	// time, in the order of the snapshots they read, so that a slow
	// publication of an older snapshot cannot land after a newer one.
	publishing sync.Mutex

	mu        sync.Mutex
	pending   map[string]bool
	reload    bool
	timer     *time.Timer     // the next flush, when one is due
	idle      *time.Timer     // the next run of Options.Idle, when one is due
	last      time.Time       // when the last flush started
	published map[string]bool // files whose last published list was not empty
	stopped   bool
	// config are the diagnostics of .ctxls.yaml as last published.
	config []diag.Diagnostic
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

// touch schedules the diagnostics of an agent file the library does not
// index (agent files live in hidden folders such as .claude).
func (d *diagnostics) touch(path string) {
	d.onUpdate(workspace.Update{Changed: []string{path}})
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
	d.publishing.Lock()
	defer d.publishing.Unlock()
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
		d.publishAllLocked(ctx)
		return
	}
	// One state for the whole list: the snapshot and its agent files,
	// taken once and passed down.
	snap := ws.Snapshot()
	lib := snap.Library()
	set := d.s.agentSet(ctx, snap)
	for p := range pending {
		if filepath.Base(p) == config.FileName {
			d.publishConfig(ctx, lib, false)
			continue
		}
		d.publish(ctx, snap, set, p, lib.Diagnose(p))
	}
	// A command added or removed changes which chains name no command.
	if len(lib.Config().Chains) > 0 {
		d.publishConfig(ctx, lib, true)
	}
	d.scheduleIdle()
}

// scheduleIdle runs Options.Idle after idleDelay unless a change comes
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
	t = time.AfterFunc(idleDelay, func() {
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
// files that no longer have any, those of the open documents first: the
// user looks at them, and diagnosing a whole library takes a while. The
// snapshot keeps what it diagnosed, so the open documents are diagnosed
// once. Diagnosing every file reads each frontmatter again and leaves that
// garbage to Options.Reclaim.
func (d *diagnostics) publishAll(ctx context.Context) {
	d.publishing.Lock()
	defer d.publishing.Unlock()
	d.publishAllLocked(ctx)
}

// publishAllLocked is publishAll with d.publishing held.
func (d *diagnostics) publishAllLocked(ctx context.Context) {
	ws, err := d.s.workspaceCtx(ctx)
	if err != nil {
		return
	}
	snap := ws.Snapshot()
	lib := snap.Library()
	set := d.s.agentSet(ctx, snap)
	open := map[string]bool{}
	for _, p := range snap.OpenPaths() {
		open[p] = true
		d.publish(ctx, snap, set, p, lib.Diagnose(p))
	}
	all := lib.DiagnoseAll(ctx)
	agents := d.s.agentPaths(ctx, snap, set)
	d.mu.Lock()
	var stale []string
	for p := range d.published {
		if _, ok := all[p]; !ok && !slices.Contains(agents, p) {
			stale = append(stale, p)
		}
	}
	d.mu.Unlock()
	for p, ds := range all {
		if ctx.Err() != nil {
			return
		}
		if open[p] {
			continue
		}
		d.publish(ctx, snap, set, p, ds)
	}
	for _, p := range agents {
		if _, done := all[p]; !done && ctx.Err() == nil {
			d.publish(ctx, snap, set, p, nil)
		}
	}
	for _, p := range stale {
		d.publish(ctx, snap, set, p, nil)
	}
	d.publishConfig(ctx, lib, false)
	if r := d.s.opts.Reclaim; r != nil {
		r()
	}
}

// publishConfig publishes the diagnostics of .ctxls.yaml that ops gives;
// with changed, only when they differ from those published last.
func (d *diagnostics) publishConfig(ctx context.Context, lib *library.Snapshot, changed bool) {
	path := filepath.Join(lib.Dir(), config.FileName)
	lines, ds := ops.ConfigDiagnostics(lib)
	d.mu.Lock()
	if changed && slices.EqualFunc(ds, d.config, sameDiagnostic) {
		d.mu.Unlock()
		return
	}
	d.config = ds
	had := d.setPublished(path, len(ds) > 0)
	d.mu.Unlock()
	if len(ds) == 0 && !had {
		return
	}
	params := &protocol.PublishDiagnosticsParams{URI: uriOf(path), Diagnostics: []protocol.Diagnostic{}}
	for i := range ds {
		params.Diagnostics = append(params.Diagnostics, toDiagnostic(lines, &ds[i], d.s.encoding(), nil))
	}
	if err := d.s.client.PublishDiagnostics(context.WithoutCancel(ctx), params); err != nil {
		d.s.stderr.Debug("publish diagnostics", "path", path, "err", err)
	}
}

// sameDiagnostic reports whether a and b say the same at the same place.
func sameDiagnostic(a, b diag.Diagnostic) bool {
	return a.Span == b.Span && a.Severity == b.Severity && a.Code == b.Code && a.Message == b.Message
}

// setPublished records whether the list published for path is not empty,
// and reports whether the last one was not. d.mu is held.
func (d *diagnostics) setPublished(path string, some bool) bool {
	had := d.published[path]
	if some {
		d.published[path] = true
	} else {
		delete(d.published, path)
	}
	return had
}

// publish sends one file's diagnostics, ds of snap, with those of the
// agent files of set, snap's, unless it has none now and had none before.
func (d *diagnostics) publish(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set, path string, ds []diag.Diagnostic) {
	// An agent file may be a library file too: one list holds both.
	var agentLines *document.Lines
	af, ads := d.s.agentDiagnostics(ctx, snap, set, path)
	if af != nil {
		agentLines = af.Lines
		// The agent file's own check judges its YAML as the agent reads
		// it, with the cause and a fix; the library's would repeat it, or
		// call an error what the agent reads.
		ds = slices.DeleteFunc(slices.Clone(ds), func(l diag.Diagnostic) bool { return l.Code == library.CodeParseError })
	}
	var libLines *document.Lines
	if f, ok := snap.Library().File(path); ok {
		libLines = fileLines(f)
	} else {
		ds = nil
	}
	n := len(ds) + len(ads)
	d.mu.Lock()
	had := d.setPublished(path, n > 0)
	d.mu.Unlock()
	if n == 0 && !had {
		return
	}
	params := &protocol.PublishDiagnosticsParams{URI: uriOf(path)}
	if _, version, open := snap.Overlay(path); open {
		params.Version = protocol.NewOptional(version)
	}
	lib := snap.Library()
	params.Diagnostics = fileDiagnostics(path, libLines, ds, agentLines, ads, lib.Config().Limits.FileDiagnostics, d.s.encoding(), ops.FileLines(lib, set))
	if err := d.s.client.PublishDiagnostics(context.WithoutCancel(ctx), params); err != nil {
		d.s.stderr.Debug("publish diagnostics", "path", path, "err", err)
	}
}

// fileDiagnostics converts the diagnostics of the file at path to the
// protocol: lib, the library's, whose spans are in the text of libLines,
// and agent, the agent file's, in that of agentLines; at most limit of
// them, bounded together as every front end bounds them, and one that
// says how many are left out. linesOf returns the lines of the file a
// related place is in, or nil; linesOf may be nil.
func fileDiagnostics(path string, libLines *document.Lines, lib []diag.Diagnostic, agentLines *document.Lines, agent []diag.Diagnostic, limit int, enc document.Encoding, linesOf func(string) *document.Lines) []protocol.Diagnostic {
	// The bound reorders what it is given: a list of places, not of the
	// diagnostics, which the library shares with other readers.
	type placed struct {
		d     *diag.Diagnostic
		lines *document.Lines
	}
	all := make([]placed, 0, len(lib)+len(agent))
	for i := range lib {
		all = append(all, placed{&lib[i], libLines})
	}
	for i := range agent {
		all = append(all, placed{&agent[i], agentLines})
	}
	all = diag.Cap(all, limit, func(p *placed) *diag.Diagnostic { return p.d }, func(n int) placed {
		d := diag.LeftOut(path, n, limit)
		return placed{d: &d}
	})
	out := make([]protocol.Diagnostic, 0, len(all))
	for _, p := range all {
		out = append(out, toDiagnostic(p.lines, p.d, enc, linesOf))
	}
	return out
}

// diagData is what a diagnostic carries: its code. Code actions recompute
// the fixes from the file's text rather than trust data the client keeps.
type diagData struct {
	Code string `json:"code"`
}

// toDiagnostic converts d, a diagnostic of a file whose text has lines
// (nil for a file without text: its start), to the protocol. It is the
// one conversion of every checker's diagnostics. linesOf returns the lines
// of the file a related place is in, or nil; linesOf may be nil.
func toDiagnostic(lines *document.Lines, d *diag.Diagnostic, enc document.Encoding, linesOf func(string) *document.Lines) protocol.Diagnostic {
	out := protocol.Diagnostic{
		Range:           rangeIn(lines, d.Span, enc),
		Severity:        protocol.DiagnosticSeverity(d.Severity),
		Code:            protocol.String(d.Code),
		CodeDescription: codeLink(d.Code),
		Source:          protocol.NewOptional("ctxls"),
		Message:         protocol.String(d.Message),
	}
	for _, r := range d.Related {
		var rl *document.Lines
		if linesOf != nil {
			rl = linesOf(r.Path)
		}
		out.RelatedInformation = append(out.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uriOf(r.Path), Range: rangeIn(rl, r.Span, enc)},
			Message:  r.Message,
		})
	}
	if raw, err := json.Marshal(diagData{Code: d.Code}); err == nil {
		out.Data = raw
	}
	return out
}

// rangeIn converts a byte span of a text with lines into a protocol
// range; the start of the text when lines is nil.
func rangeIn(lines *document.Lines, sp document.Span, enc document.Encoding) protocol.Range {
	if lines == nil {
		return protocol.Range{}
	}
	r := lines.Range(sp, enc)
	return protocol.Range{Start: toPos(r.Start), End: toPos(r.End)}
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
