package workspace

import (
	"context"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ctxls/ctxls/providers/context/library"
)

// DidOpen lays the editor's text of the document at path over the disk.
// From now on the document's text comes from the editor until DidClose.
func (w *Workspace) DidOpen(path, text string, version int32) {
	w.setOverlay(filepath.Clean(path), text, version)
}

// DidChange replaces the text of an open document; text is the full text
// after the edits. A document not opened before is opened.
func (w *Workspace) DidChange(path, text string, version int32) {
	w.setOverlay(filepath.Clean(path), text, version)
}

// DidClose closes a document: the disk becomes the source of truth again
// and is read at once.
func (w *Workspace) DidClose(path string) {
	path = filepath.Clean(path)
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	w.omu.Lock()
	_, ok := w.overlays[path]
	delete(w.overlays, path)
	w.omu.Unlock()
	if !ok || w.closed() {
		return
	}
	w.applyPaths(w.ctx, []string{path}, false)
}

// Overlay returns the editor's text of an open document.
func (w *Workspace) Overlay(path string) (text string, version int32, ok bool) {
	w.omu.RLock()
	defer w.omu.RUnlock()
	o, ok := w.overlays[filepath.Clean(path)]
	return o.text, o.version, ok
}

func (w *Workspace) setOverlay(path, text string, version int32) {
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	w.omu.Lock()
	w.overlays[path] = overlay{text: text, version: version}
	w.omu.Unlock()
	if w.closed() {
		return
	}
	lib := w.Library()
	if f, ok := lib.File(path); ok && f.Doc != nil && f.Doc.SameString(text) {
		return // the library already holds this text (opening an unchanged file)
	}
	res, err := lib.Apply(w.ctx, []library.Change{{Path: path, Content: []byte(text)}})
	if err != nil {
		w.log.Warn("workspace: cannot apply the editor's text", "path", path, "err", err)
		return
	}
	u := Update{Changed: res.Changed, Affected: res.Affected, Reloaded: res.Reloaded}
	if res.Reloaded {
		// A reload reads the disk: lay the open documents over it again.
		u.merge(w.restoreOverlays(w.ctx, lib))
	}
	w.publish(u)
}

// overlayChanges returns the open documents as library changes.
func (w *Workspace) overlayChanges() []library.Change {
	w.omu.RLock()
	defer w.omu.RUnlock()
	out := make([]library.Change, 0, len(w.overlays))
	for p, o := range w.overlays {
		out = append(out, library.Change{Path: p, Content: []byte(o.text)})
	}
	return out
}

// OpenPaths returns the paths of the open documents, in no particular
// order.
func (w *Workspace) OpenPaths() []string {
	w.omu.RLock()
	defer w.omu.RUnlock()
	return slices.Collect(maps.Keys(w.overlays))
}

func (w *Workspace) isOpen(path string) bool {
	w.omu.RLock()
	defer w.omu.RUnlock()
	_, ok := w.overlays[path]
	return ok
}

// restoreOverlays applies the open documents to lib after it read the disk
// (a reload, or a removed directory that held an open document). The caller
// holds applyMu.
func (w *Workspace) restoreOverlays(ctx context.Context, lib *library.Library) Update {
	var changes []library.Change
	for _, c := range w.overlayChanges() {
		if f, ok := lib.File(c.Path); ok && f.Doc != nil && f.Doc.SameText(c.Content) {
			continue
		}
		changes = append(changes, c)
	}
	if len(changes) == 0 {
		return Update{}
	}
	res, err := lib.Apply(ctx, changes)
	if err != nil {
		w.log.Warn("workspace: cannot apply the open documents", "err", err)
		return Update{}
	}
	return Update{Changed: res.Changed, Affected: res.Affected, Reloaded: res.Reloaded}
}
