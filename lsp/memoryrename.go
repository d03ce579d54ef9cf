package lsp

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/imports"
	"github.com/ctxls/ctxls/providers/context/memory"
	"github.com/ctxls/ctxls/providers/context/workspace"
)

// fileMove is a file or folder the editor is renaming.
type fileMove struct{ old, new string }

// moved returns where p is after the moves: p itself when no move
// concerns it.
func moved(p string, moves []fileMove) string {
	for _, m := range moves {
		if p == m.old {
			return m.new
		}
		if rest, ok := strings.CutPrefix(p, m.old+string(filepath.Separator)); ok {
			return filepath.Join(m.new, rest)
		}
	}
	return p
}

// importRenameEdits returns, by file, the edits that keep the @imports of
// every memory file's and Gemini CLI context file's tree, and the links
// and other references of agent files, pointing at the same files once
// the moves are done: those to a moved file, and those a moved file
// makes.
func (s *Server) importRenameEdits(ctx context.Context, snap *workspace.Snapshot, moves []fileMove) map[string][]protocol.TextEdit {
	lib := snap.Library()
	set := s.agentSet(ctx, lib)
	if set == nil || len(moves) == 0 {
		return nil
	}
	read := overlayRead(snap)
	report := memory.Check(ctx, set, lib.Config(), nil, read)
	inTree := maps.Clone(report.Files)
	if inTree == nil {
		inTree = map[string]bool{}
	}
	// Gemini CLI's context files and what their @file imports load.
	opt := set.GeminiOptions(nil)
	opt.Read = read
	for _, f := range set.GeminiFiles() {
		inTree[f.Path] = true
		if t, err := imports.Build(ctx, f.Path, opt); err == nil {
			for _, tf := range t.Files {
				inTree[tf.Path] = true
			}
		}
	}
	files := slices.Sorted(maps.Keys(inTree))
	enc := s.encoding()
	out := map[string][]protocol.TextEdit{}
	for _, p := range files {
		if ctx.Err() != nil {
			return nil
		}
		text, err := read(p)
		if err != nil {
			continue
		}
		doc := document.Parse(p, text)
		dir, newDir := filepath.Dir(p), filepath.Dir(moved(p, moves))
		for _, im := range imports.Scan(doc) {
			if im.Kind() != imports.Relative {
				continue
			}
			clean := im.Clean()
			target := filepath.Join(dir, filepath.FromSlash(clean))
			newTarget := moved(target, moves)
			if newTarget == target && newDir == dir {
				continue
			}
			rel, err := filepath.Rel(newDir, newTarget)
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(rel)
			if strings.HasPrefix(clean, "./") && !strings.HasPrefix(rel, "../") {
				rel = "./" + rel
			}
			if rel == clean {
				continue
			}
			out[p] = append(out[p], protocol.TextEdit{Range: toRange(doc, im.PathSpan(), enc), NewText: strings.ReplaceAll(rel, " ", `\ `)})
		}
	}
	// The links and other references of agent files to files of the
	// project.
	ams := make([]agentfiles.Move, len(moves))
	for i, m := range moves {
		ams[i] = agentfiles.Move{Old: m.old, New: m.new}
	}
	refEdits := set.RenameEdits(ams, read)
	for _, p := range slices.Sorted(maps.Keys(refEdits)) {
		text, err := read(p)
		if err != nil {
			continue
		}
		doc := document.Parse(p, text)
		for _, e := range refEdits[p] {
			out[p] = append(out[p], protocol.TextEdit{Range: toRange(doc, e.Span, enc), NewText: e.NewText})
		}
	}
	return out
}

// addImportRenames adds the import edits of the moves to a rename's
// workspace edit (nil when it has none), leaving alone files it already
// edits.
func (s *Server) addImportRenames(ctx context.Context, snap *workspace.Snapshot, params *protocol.RenameFilesParams, out *protocol.WorkspaceEdit) *protocol.WorkspaceEdit {
	var moves []fileMove
	for _, fr := range params.Files {
		o, err1 := pathOfString(fr.OldURI)
		n, err2 := pathOfString(fr.NewURI)
		if err1 == nil && err2 == nil {
			moves = append(moves, fileMove{o, n})
		}
	}
	edits := s.importRenameEdits(ctx, snap, moves)
	if len(edits) == 0 {
		return out
	}
	s.mu.Lock()
	docChanges := s.caps.documentChanges
	s.mu.Unlock()
	if out == nil {
		out = &protocol.WorkspaceEdit{}
	}
	paths := make([]string, 0, len(edits))
	for p := range edits {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		u := uriOf(p)
		if !docChanges {
			if out.Changes == nil {
				out.Changes = map[uri.URI][]protocol.TextEdit{}
			}
			if _, done := out.Changes[u]; !done {
				out.Changes[u] = edits[p]
			}
			continue
		}
		if slices.ContainsFunc(out.DocumentChanges, func(c protocol.DocumentChange) bool {
			te, ok := c.(*protocol.TextDocumentEdit)
			return ok && te.TextDocument.URI == u
		}) {
			continue
		}
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}
		if _, version, open := snap.Overlay(p); open {
			id.Version = &version
		}
		elems := make([]protocol.TextDocumentEditElement, len(edits[p]))
		for i := range edits[p] {
			elems[i] = &edits[p][i]
		}
		// Text edits go before the renames the edit may hold.
		out.DocumentChanges = append([]protocol.DocumentChange{&protocol.TextDocumentEdit{TextDocument: id, Edits: elems}}, out.DocumentChanges...)
	}
	return out
}
