package workspace

import (
	"context"
	"maps"
	"path/filepath"
	"slices"

	"github.com/ctxls/ctxls/providers/library"
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
	if _, ok := w.cur.Load().snap.overlays[path]; !ok {
		return
	}
	w.editOverlays(func(m map[string]overlay) { delete(m, path) })
	if w.closed() {
		return
	}
	w.applyPaths(w.ctx, []string{path}, false)
}

func (w *Workspace) setOverlay(path, text string, version int32) {
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	w.editOverlays(func(m map[string]overlay) { m[path] = overlay{text: text, version: version} })
	if w.closed() {
		return
	}
	if f, ok := w.Snapshot().Library().File(path); ok && f.Doc != nil && f.Doc.SameString(text) {
		// The library already holds this text (opening an unchanged
		// file): the snapshot keeps its model and diagnostics.
		return
	}
	w.apply(w.ctx, []library.Change{{Path: path, Content: []byte(text)}})
}

// editOverlays publishes the next state with the open documents edit
// leaves in a copy of the current ones. The caller holds applyMu.
func (w *Workspace) editOverlays(edit func(map[string]overlay)) {
	cur := w.cur.Load()
	m := maps.Clone(cur.snap.overlays)
	if m == nil {
		m = make(map[string]overlay)
	}
	edit(m)
	w.cur.Store(&state{lib: cur.lib, snap: Snapshot{lib: cur.snap.lib, overlays: m, agents: w.agents(cur.snap.agents.disk)}})
}

// setLibrary publishes the next state with lib's snapshot, lib in place of
// the library. diskSame says that the disk did not change since the
// current snapshot (the changes were the editor's texts): its agent files
// on disk stay, unless the configuration they are read with changed. The
// caller holds applyMu.
func (w *Workspace) setLibrary(lib *library.Library, diskSame bool) {
	cur := w.cur.Load()
	disk := cur.snap.agents.disk
	if ls := lib.Snapshot(); ls != cur.snap.lib && (!diskSame || ls.Config() != cur.snap.lib.Config() || ls.Dir() != cur.snap.lib.Dir()) {
		// The agent files are read for a library's directory and
		// configuration and lie partly in it (CLAUDE.md, AGENTS.md).
		disk = nil
	}
	w.cur.Store(&state{lib: lib, snap: Snapshot{lib: lib.Snapshot(), overlays: cur.snap.overlays, agents: w.agents(disk)}})
}

// apply applies changes to the library, the editor's texts and the disk's
// alike, lays the open documents over what the library read from disk for
// them, and publishes the next snapshot and the update. The caller holds
// applyMu.
func (w *Workspace) apply(ctx context.Context, changes []library.Change) {
	lib := w.cur.Load().lib
	warned := w.Snapshot().Library().Warnings()
	res, err := lib.Apply(ctx, changes)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("workspace: cannot apply changes", "files", len(changes), "first", changes[0].Path, "err", err)
		}
		return
	}
	u := Update{Changed: res.Changed, Affected: res.Affected, Reloaded: res.Reloaded}
	if res.Reloaded || slices.ContainsFunc(res.Changed, func(p string) bool { return w.isOpen(p) && !isOverlay(changes, p) }) {
		// The library read the disk for an open document (a reload, a root
		// that appeared in a way only the library saw, or a directory
		// holding the document went away): lay the editor's text over it
		// again, before the next snapshot shows it.
		u.merge(w.restoreOverlays(ctx, lib))
	}
	// The editor's texts alone leave the disk as it was.
	w.setLibrary(lib, !res.Reloaded && !slices.ContainsFunc(changes, func(c library.Change) bool { return c.Content == nil || c.FromDisk }))
	w.logWarnings(warned)
	w.publish(u)
}

// isOverlay reports whether changes give the editor's text of p.
func isOverlay(changes []library.Change, p string) bool {
	return slices.ContainsFunc(changes, func(c library.Change) bool {
		return c.Path == p && c.Content != nil && !c.FromDisk
	})
}

// overlayChanges returns the open documents as library changes.
func (w *Workspace) overlayChanges() []library.Change {
	overlays := w.cur.Load().snap.overlays
	out := make([]library.Change, 0, len(overlays))
	for p, o := range overlays {
		out = append(out, library.Change{Path: p, Content: []byte(o.text)})
	}
	return out
}

func (w *Workspace) isOpen(path string) bool {
	_, ok := w.cur.Load().snap.overlays[path]
	return ok
}

// restoreOverlays applies the open documents to lib after it read the disk
// (a reload, or a removed directory that held an open document). The caller
// holds applyMu.
func (w *Workspace) restoreOverlays(ctx context.Context, lib *library.Library) Update {
	var changes []library.Change
	for _, c := range w.overlayChanges() {
		if f, ok := lib.Snapshot().File(c.Path); ok && f.Doc != nil && f.Doc.SameText(c.Content) {
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
