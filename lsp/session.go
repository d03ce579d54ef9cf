package lsp

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
)

// update says what a change to the workspace touched.
type update struct {
	Changed  []string
	Affected []string
	Reloaded bool
}

// sessionOptions configure a session.
type sessionOptions struct {
	Settings json.RawMessage
	Logger   *slog.Logger
	OnUpdate func(update)
	Progress func(done, total int)
}

// session is the live workspace: the library plus the text of the
// documents open in the editor, which win over the disk until closed.
type session struct {
	lib  *library.Library
	opts sessionOptions

	mu       sync.Mutex
	overlays map[string]overlay
}

type overlay struct {
	text    string
	version int32
}

func openSession(ctx context.Context, dir string, opts sessionOptions) (*session, error) {
	cfg, problems, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	if len(opts.Settings) > 0 {
		if st, err := config.ParseSettings(opts.Settings); err == nil {
			var more []config.Problem
			cfg, more = cfg.Apply(st)
			problems = append(problems, more...)
		}
	}
	for _, p := range problems {
		opts.Logger.Warn(p.String())
	}
	lib, err := library.Load(ctx, dir, cfg, library.Options{Logger: opts.Logger, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	return &session{lib: lib, opts: opts, overlays: map[string]overlay{}}, nil
}

// Library returns the current snapshot.
func (w *session) Library() *library.Library { return w.lib }

// DidOpen records an editor's text for path.
func (w *session) DidOpen(path, text string, version int32) { w.set(path, text, version) }

// DidChange records the full new text of an open document.
func (w *session) DidChange(path, text string, version int32) { w.set(path, text, version) }

func (w *session) set(path, text string, version int32) {
	w.mu.Lock()
	w.overlays[path] = overlay{text, version}
	w.mu.Unlock()
	w.apply([]library.Change{{Path: path, Content: []byte(text)}})
}

// DidClose makes the disk the source of truth for path again.
func (w *session) DidClose(path string) {
	w.mu.Lock()
	delete(w.overlays, path)
	w.mu.Unlock()
	w.apply([]library.Change{{Path: path}})
}

// Overlay returns the editor's text of an open document.
func (w *session) Overlay(path string) (string, int32, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o, ok := w.overlays[path]
	return o.text, o.version, ok
}

// NotifyWatched re-reads files the client saw change on disk.
func (w *session) NotifyWatched(paths []string) {
	var changes []library.Change
	w.mu.Lock()
	for _, p := range paths {
		if _, open := w.overlays[p]; !open {
			changes = append(changes, library.Change{Path: p})
		}
	}
	w.mu.Unlock()
	w.apply(changes)
}

// SetSettings lays the editor's settings over .ctxls.yaml.
func (w *session) SetSettings(ctx context.Context, raw json.RawMessage) error {
	st, err := config.ParseSettings(raw)
	if err != nil {
		return err
	}
	base, problems, err := config.Load(w.lib.Dir())
	if err != nil {
		return err
	}
	cfg, more := base.Apply(st)
	if sameConfig(cfg, w.lib.Config()) {
		return nil // nothing changed: spare the workspace a full scan
	}
	res, err := w.lib.SetConfig(ctx, cfg, append(problems, more...))
	if err != nil {
		return err
	}
	w.notify(res)
	return nil
}

// Close releases the session.
func (w *session) Close() error { return nil }

func (w *session) apply(changes []library.Change) {
	if len(changes) == 0 {
		return
	}
	res, err := w.lib.Apply(context.Background(), changes)
	if err != nil {
		w.opts.Logger.Warn("update the index", "err", err)
		return
	}
	w.notify(res)
}

func (w *session) notify(res library.Result) {
	if w.opts.OnUpdate != nil {
		w.opts.OnUpdate(update{Changed: res.Changed, Affected: res.Affected, Reloaded: res.Reloaded})
	}
}

// sameConfig reports whether two configurations are equal.
func sameConfig(a, b *config.Config) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
