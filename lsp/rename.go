package lsp

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refs"
)

// A topic is renamed by name (rename) or moved by its file (the editor's
// willRenameFiles). Either way every reference to it, in every form, is
// rewritten to the topic's new domain, name and path.

// move is where a topic goes.
type move struct {
	topic   *library.Topic
	domain  string // new domain
	name    string // new name within the domain ("frameworks/fastapi" when nested)
	newPath string // new absolute file path
}

// textEdit replaces a span of a file.
type textEdit struct {
	span    document.Span
	newText string
}

// validName matches a topic name a rename may give: a file stem.
var validName = regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_.\-]*$`)

// PrepareRename accepts the topic part of a reference, or a topic file's
// own references, and proposes the topic's name.
func (s *Server) PrepareRename(ctx context.Context, params *protocol.PrepareRenameParams) (protocol.PrepareRenameResult, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	r, t, err := renameTarget(v, params.Position)
	if err != nil {
		return nil, err
	}
	sp := nameSpan(v.doc, r, t)
	return &protocol.PrepareRenamePlaceholder{Range: v.rng(sp), Placeholder: path.Base(t.Name)}, nil
}

// renameTarget finds the topic under the cursor.
func renameTarget(v *view, pos protocol.Position) (refs.Ref, *library.Topic, error) {
	r, ok, err := v.refAt(pos)
	if err != nil {
		return refs.Ref{}, nil, err
	}
	if !ok {
		return refs.Ref{}, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no topic reference here to rename")
	}
	t := v.lib.Resolve(v.file, r)
	if t.Kind == library.DomainTarget || r.Form == refs.DomainForm {
		return refs.Ref{}, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "a domain is renamed by renaming its folder")
	}
	if t.Topic == nil || (!t.OK() && t.Failed != library.PartSection) {
		return refs.Ref{}, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the reference does not resolve to a topic")
	}
	if t.Topic.Domain == "" {
		return refs.Ref{}, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "files directly in a context root are not renamed")
	}
	return r, t.Topic, nil
}

// nameSpan is the span holding the topic's name in a reference.
func nameSpan(doc *document.Doc, r refs.Ref, t *library.Topic) document.Span {
	if r.Form == refs.PathForm {
		if sp, ok := stemSpan(doc, r.PathSpan); ok {
			return sp
		}
		return r.PathSpan
	}
	if r.TopicSpan.Len() > 0 {
		return r.TopicSpan
	}
	return r.Span
}

// stemSpan is the file stem (the last segment without ".md") of a path.
func stemSpan(doc *document.Doc, sp document.Span) (document.Span, bool) {
	text := string(doc.Slice(sp))
	start := strings.LastIndexAny(text, "/\\") + 1
	stem := strings.TrimSuffix(text[start:], path.Ext(text[start:]))
	if stem == "" {
		return sp, false
	}
	return document.Span{Start: sp.Start + start, End: sp.Start + start + len(stem)}, true
}

// Rename renames a topic: every reference, the frontmatter id, and the
// file itself when the client can rename files.
func (s *Server) Rename(ctx context.Context, params *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	_, t, err := renameTarget(v, params.Position)
	if err != nil {
		return nil, err
	}
	newName := strings.TrimSuffix(strings.TrimSpace(params.NewName), ".md")
	if !validName.MatchString(newName) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%q is not a valid topic name: use letters, digits, '_', '-' and '.'", params.NewName)
	}
	if dir := path.Dir(t.Name); dir != "." {
		newName = dir + "/" + newName
	}
	if newName == t.Name {
		return &protocol.WorkspaceEdit{}, nil
	}
	newPath := filepath.Join(filepath.Dir(t.Path), path.Base(newName)+".md")
	if _, exists := v.lib.Topic(t.Domain + "/" + newName); exists {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "topic %s:%s already exists", t.Domain, newName)
	}
	if _, err := os.Stat(newPath); err == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s already exists", relPath(v.lib, newPath))
	}
	m := move{topic: t, domain: t.Domain, name: newName, newPath: newPath}
	edits := moveEdits(v.lib, []move{m})
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	var renames []move
	if caps.resourceRename {
		renames = []move{m}
	} else {
		s.log.Warn("the client cannot rename files: rename " + relPath(v.lib, t.Path) + " to " + filepath.Base(newPath) + " yourself")
	}
	return s.workspaceEdit(ctx, v.lib, edits, renames, caps)
}

// WillRenameFiles updates every reference to topics the user is moving or
// renaming in the editor (files, or folders holding topics).
func (s *Server) WillRenameFiles(ctx context.Context, params *protocol.RenameFilesParams) (*protocol.WorkspaceEdit, error) {
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	lib := ws.Library()
	var moves []move
	for _, fr := range params.Files {
		oldPath, err1 := pathOfString(fr.OldURI)
		newPath, err2 := pathOfString(fr.NewURI)
		if err1 != nil || err2 != nil {
			continue
		}
		for _, t := range lib.Topics() {
			var dst string
			switch {
			case t.Path == oldPath:
				dst = newPath
			case strings.HasPrefix(t.Path, oldPath+string(filepath.Separator)):
				dst = filepath.Join(newPath, strings.TrimPrefix(t.Path, oldPath))
			default:
				continue
			}
			if t.Domain == "" || !strings.EqualFold(filepath.Ext(dst), ".md") {
				continue
			}
			domain, name, ok := topicAt(lib, dst)
			if !ok {
				s.log.Warn(fmt.Sprintf("%s moves out of the context roots: its references are left as they are", relPath(lib, t.Path)))
				continue
			}
			moves = append(moves, move{topic: t, domain: domain, name: name, newPath: dst})
		}
	}
	edits := moveEdits(lib, moves)
	// A renamed domain folder also renames the domain where it is named
	// alone (a context list entry, getDomainIndex("python")).
	for _, fr := range params.Files {
		oldPath, err1 := pathOfString(fr.OldURI)
		newPath, err2 := pathOfString(fr.NewURI)
		if err1 != nil || err2 != nil {
			continue
		}
		oldDomain, okOld := domainDir(lib, oldPath)
		newDomain, okNew := domainDir(lib, newPath)
		if !okOld || !okNew || oldDomain == newDomain || !lib.IsDomain(oldDomain) {
			continue
		}
		for _, loc := range lib.DomainReferences(oldDomain) {
			if loc.Ref.DomainSpan.Len() == 0 {
				continue
			}
			e := textEdit{loc.Ref.DomainSpan, newDomain}
			if !slices.ContainsFunc(edits[loc.File.Path], func(x textEdit) bool { return x.span == e.span }) {
				edits[loc.File.Path] = append(edits[loc.File.Path], e)
			}
		}
	}
	if len(edits) == 0 {
		return nil, nil
	}
	for p := range edits {
		slices.SortFunc(edits[p], func(a, b textEdit) int { return a.span.Start - b.span.Start })
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	return s.workspaceEdit(ctx, lib, edits, nil, caps)
}

// domainDir says which domain a directory directly in a context root is.
func domainDir(lib *library.Library, p string) (string, bool) {
	for _, root := range lib.ContextRoots() {
		if filepath.Dir(p) == root {
			return filepath.Base(p), true
		}
	}
	return "", false
}

// pathOfString is pathOf for a URI held as a string.
func pathOfString(raw string) (string, error) {
	u, err := uri.Parse(raw)
	if err != nil {
		return "", err
	}
	return pathOf(u)
}

// topicAt says which topic a file at p would be: its domain and name.
func topicAt(lib *library.Library, p string) (domain, name string, ok bool) {
	for _, root := range lib.ContextRoots() {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		parts := strings.Split(filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel))), "/")
		if len(parts) < 2 {
			return "", "", false // directly in the root: not a domain topic
		}
		return parts[0], strings.Join(parts[1:], "/"), true
	}
	return "", "", false
}

// moveEdits computes the text edits that follow topics to their new place:
// every reference to them, and their own frontmatter id and domain.
func moveEdits(lib *library.Library, moves []move) map[string][]textEdit {
	out := map[string][]textEdit{}
	add := func(p string, e textEdit) {
		for _, old := range out[p] {
			if old.span == e.span {
				return
			}
		}
		out[p] = append(out[p], e)
	}
	for _, m := range moves {
		t := m.topic
		for _, loc := range lib.References(t.ID) {
			for _, e := range refEdits(lib, loc, m) {
				add(loc.File.Path, e)
			}
		}
		if fm := t.Doc.Frontmatter; fm != nil && fm.Root != nil {
			if _, val := fm.Field("id"); val != nil && val.Value == t.ID {
				add(t.Path, textEdit{t.Doc.ValueSpan(val), m.domain + "/" + m.name})
			}
			if _, val := fm.Field("domain"); val != nil && m.domain != t.Domain && val.Value == t.Domain {
				add(t.Path, textEdit{t.Doc.ValueSpan(val), m.domain})
			}
		}
	}
	for p := range out {
		slices.SortFunc(out[p], func(a, b textEdit) int { return a.span.Start - b.span.Start })
	}
	return out
}

// refEdits rewrites one reference for a move.
func refEdits(lib *library.Library, loc library.Location, m move) []textEdit {
	r := loc.Ref
	switch r.Form {
	case refs.KeyForm, refs.CallForm, refs.IDForm:
		var es []textEdit
		if m.domain != r.Domain && r.DomainSpan.Len() > 0 {
			es = append(es, textEdit{r.DomainSpan, m.domain})
		}
		if m.name != strings.TrimSuffix(r.Topic, ".md") && r.TopicSpan.Len() > 0 {
			es = append(es, textEdit{r.TopicSpan, m.name})
		}
		return es
	case refs.PathForm:
		if r.PathSpan.Len() == 0 || loc.File.Doc == nil {
			return nil
		}
		return []textEdit{{r.PathSpan, newPathText(lib, loc.File, r.Path, m)}}
	}
	return nil
}

// newPathText rewrites a path reference in the style it was written: a
// bare file name stays bare, a path relative to the referring file stays
// relative to it, a path from the workspace or context root stays so.
func newPathText(lib *library.Library, f *library.File, written string, m move) string {
	slash := filepath.ToSlash
	if filepath.IsAbs(written) {
		return m.newPath
	}
	fromFile := filepath.Join(filepath.Dir(f.Path), filepath.FromSlash(written))
	if filepath.Clean(fromFile) == m.topic.Path {
		if rel, err := filepath.Rel(filepath.Dir(f.Path), m.newPath); err == nil {
			if strings.HasPrefix(written, "./") && !strings.HasPrefix(rel, "..") {
				rel = "./" + rel
			}
			return slash(rel)
		}
	}
	if filepath.Join(lib.Dir(), filepath.FromSlash(written)) == m.topic.Path {
		if rel, err := filepath.Rel(lib.Dir(), m.newPath); err == nil {
			return slash(rel)
		}
	}
	for _, root := range lib.ContextRoots() {
		if filepath.Join(root, filepath.FromSlash(written)) == m.topic.Path {
			if rel, err := filepath.Rel(root, m.newPath); err == nil {
				return slash(rel)
			}
		}
	}
	if !strings.ContainsAny(written, "/\\") {
		return filepath.Base(m.newPath) // a bare name found by its stem
	}
	// Unknown style: keep the directories as written, change the name.
	dir := written[:strings.LastIndexAny(written, "/\\")+1]
	return dir + filepath.Base(m.newPath)
}

// workspaceEdit converts edits (and file renames) into the protocol's
// form: versioned document changes when the client supports them.
func (s *Server) workspaceEdit(ctx context.Context, lib *library.Library, edits map[string][]textEdit, renames []move, caps clientCaps) (*protocol.WorkspaceEdit, error) {
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	enc := s.encoding()
	paths := make([]string, 0, len(edits))
	for p := range edits {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	convert := func(p string) ([]protocol.TextEdit, bool) {
		f, ok := lib.File(p)
		if !ok || f.Doc == nil {
			return nil, false
		}
		var tes []protocol.TextEdit
		for _, e := range edits[p] {
			tes = append(tes, protocol.TextEdit{Range: toRange(f.Doc, e.span, enc), NewText: e.newText})
		}
		return tes, true
	}
	out := &protocol.WorkspaceEdit{}
	if !caps.documentChanges {
		out.Changes = map[uri.URI][]protocol.TextEdit{}
		for _, p := range paths {
			if tes, ok := convert(p); ok {
				out.Changes[uriOf(p)] = tes
			}
		}
		return out, nil
	}
	for _, p := range paths {
		tes, ok := convert(p)
		if !ok {
			continue
		}
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uriOf(p)}}
		if _, version, open := ws.Overlay(p); open {
			id.Version = &version
		}
		elems := make([]protocol.TextDocumentEditElement, len(tes))
		for i := range tes {
			elems[i] = &tes[i]
		}
		out.DocumentChanges = append(out.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: id, Edits: elems})
	}
	for _, m := range renames {
		out.DocumentChanges = append(out.DocumentChanges, &protocol.RenameFile{
			ResourceOperation: protocol.ResourceOperation{Kind: "rename"},
			Kind:              "rename",
			OldURI:            uriOf(m.topic.Path),
			NewURI:            uriOf(m.newPath),
		})
	}
	return out, nil
}
