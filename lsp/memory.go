package lsp

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/memory"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/workspace"
)

// The editor features of Claude Code memory files (CLAUDE.md,
// CLAUDE.local.md, .claude/rules): hover, definition, links, code lens
// and completion of @path imports. Each handler of those features asks
// here first and falls back to the library's references.

// memoryTree returns the import tree of the view's file when it is a
// memory file or a file a memory file's imports load (then the tree
// starts from it), or a Gemini CLI context file, whose @file imports
// Gemini CLI follows by its own limits; the tree is built from the
// editor's text of every open file.
func (s *Server) memoryTree(ctx context.Context, v *view) (*imports.Tree, bool) {
	root := v.lib.Dir()
	var opt imports.Options
	switch {
	case isMemoryFile(root, v.path) || s.inMemoryTree(v.path):
		// Counted as the session's cost counts them, in Claude's tokenizer.
		opt = memory.Options(v.lib.Config(), root, memory.Counter())
	case s.isGeminiFile(ctx, v):
		opt = s.agentSet(ctx, v.ws).GeminiOptions(v.lib.Counter())
	default:
		return nil, false
	}
	opt.Guard = v.lib.Root()
	read := overlayRead(v.ws)
	opt.Read = func(p string) ([]byte, error) {
		if p == v.path {
			return v.doc.Text, nil
		}
		return read(p)
	}
	t, err := imports.Build(ctx, v.path, opt)
	if err != nil {
		return nil, false
	}
	return t, true
}

// importAt returns the import of the view's memory file at a position.
func (s *Server) importAt(ctx context.Context, v *view, pos protocol.Position) (*imports.Tree, imports.Edge, bool) {
	t, ok := s.memoryTree(ctx, v)
	if !ok {
		return nil, imports.Edge{}, false
	}
	off, err := v.offset(pos)
	if err != nil {
		return nil, imports.Edge{}, false
	}
	for _, e := range t.Root().Imports {
		if off >= e.Span.Start && off <= e.Span.End {
			return t, e, true
		}
	}
	return nil, imports.Edge{}, false
}

// importHover describes an import: where it leads, its hop, and what the
// file and the imports under it cost.
func (s *Server) importHover(ctx context.Context, v *view, pos protocol.Position) (*protocol.Hover, bool) {
	t, e, ok := s.importAt(ctx, v, pos)
	if !ok {
		return nil, false
	}
	text := present.ImportHover(t, e, v.lib.Dir(), isMemoryFile(v.lib.Dir(), v.path) || s.isGeminiFile(ctx, v), memory.Counter().Name())
	rng := v.rng(e.Span)
	s.mu.Lock()
	plain := !s.caps.markdown
	s.mu.Unlock()
	contents := markup(text)
	if plain {
		contents = &protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: present.PlainText(text)}
	}
	return &protocol.Hover{Contents: contents, Range: &rng}, true
}

// importDefinition goes from an import to its file.
func (s *Server) importDefinition(ctx context.Context, v *view, pos protocol.Position) (*protocol.Location, bool) {
	_, e, ok := s.importAt(ctx, v, pos)
	if !ok || !opens(e) {
		return nil, ok
	}
	return &protocol.Location{URI: uriOf(e.Target)}, true
}

// importLinks makes each import of a memory file whose file exists a link
// to it, with its cost as the tooltip.
func (s *Server) importLinks(ctx context.Context, v *view) []protocol.DocumentLink {
	t, ok := s.memoryTree(ctx, v)
	if !ok {
		return nil
	}
	var out []protocol.DocumentLink
	for _, e := range t.Root().Imports {
		if !opens(e) {
			continue
		}
		target := uriOf(e.Target)
		tip := shown(v.lib.Dir(), e.Target)
		if f := t.File(e.Target); f != nil {
			tip += " · " + present.TokensIn(f.Tokens, memory.Counter().Name())
		}
		out = append(out, protocol.DocumentLink{Range: v.rng(e.PathSpan()), Target: &target, Tooltip: &tip})
	}
	return out
}

// memoryLens is the code lens above a memory file: its own tokens and
// those of the tree its imports load.
func (s *Server) memoryLens(ctx context.Context, v *view) (protocol.CodeLens, bool) {
	t, ok := s.memoryTree(ctx, v)
	if !ok {
		return protocol.CodeLens{}, false
	}
	what := "Memory"
	if !isMemoryFile(v.lib.Dir(), v.path) && !s.inMemoryTree(v.path) {
		what = "Gemini CLI context"
	}
	label := present.MemoryLens(t, what, memory.Counter().Name())
	return protocol.CodeLens{Range: v.rng(document.Span{}), Command: protocol.Command{Title: label}}, true
}

// memoryCompletion completes the path of an @import or of a markdown link
// target in a memory file, relative to the file's folder.
func (s *Server) memoryCompletion(ctx context.Context, v *view, off int) (*protocol.CompletionList, bool) {
	if !isMemoryFile(v.lib.Dir(), v.path) && !s.isGeminiFile(ctx, v) {
		return nil, false
	}
	found, from, ok := memory.CompletePath(ctx, v.doc, v.path, off, maxCompletionItems, v.lib.Root())
	if !ok {
		return nil, false
	}
	rng := v.rng(document.Span{Start: from, End: off})
	items := make([]protocol.CompletionItem, 0, len(found))
	for _, c := range found {
		kind := protocol.CompletionItemKindFile
		if c.Dir {
			kind = protocol.CompletionItemKindFolder
		}
		items = append(items, protocol.CompletionItem{Label: c.Text, Kind: kind, TextEdit: &protocol.TextEdit{Range: rng, NewText: c.Text}})
	}
	slices.SortFunc(items, func(a, b protocol.CompletionItem) int { return strings.Compare(a.Label, b.Label) })
	return &protocol.CompletionList{Items: items}, true
}

// isGeminiFile reports whether the view's file is a Gemini CLI context
// file.
func (s *Server) isGeminiFile(ctx context.Context, v *view) bool {
	set := s.agentSet(ctx, v.ws)
	return set != nil && set.IsGeminiFile(v.path)
}

// isMemoryFile reports whether path is a memory file of the workspace at
// root.
func isMemoryFile(root, path string) bool {
	rel, ok := fsguard.Rel(root, path)
	return ok && memory.IsMemory(rel)
}

// opens reports whether an import's file is one to open from the import:
// a file that exists, and not one that ctxls refuses to read (a link out
// of the workspace, a named pipe), which the editor would show.
func opens(e imports.Edge) bool {
	if e.Target == "" || e.Status == imports.Escapes || e.Status == imports.Special {
		return false
	}
	st, err := os.Stat(e.Target)
	return err == nil && !st.IsDir()
}

// shown is p relative to root with forward slashes when inside it.
func shown(root, p string) string {
	if rel, ok := fsguard.Rel(root, p); ok {
		return rel
	}
	return p
}

// memoryState memoizes the problems of the memory files' import trees.
// They may lie in files that are no agent files (what the imports load),
// so a change to any file of a tree checks every tree again, and the
// files whose problems changed with it are published again. Checks run
// without a lock; of two that overlap, the one started last is kept, as
// it read the newer texts.
type memoryState struct {
	seq atomic.Uint64
	cur atomic.Pointer[memoryReport]
}

// memoryReport is one check of the memory files.
type memoryReport struct {
	seq    uint64
	set    *agentfiles.Set
	report *memory.Report
}

// check checks every memory file of set again and keeps the report unless
// a check started later was kept first. It returns the report kept and
// the one it replaced, nil when it kept none.
func (m *memoryState) check(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set) (kept, replaced *memoryReport) {
	next := &memoryReport{seq: m.seq.Add(1), set: set}
	next.report = memory.Check(ctx, set, snap.Library().Config(), nil, overlayRead(snap))
	for {
		old := m.cur.Load()
		if old != nil && old.seq > next.seq {
			return old, nil
		}
		if m.cur.CompareAndSwap(old, next) {
			return next, old
		}
	}
}

// overlayRead reads the editor's text of the files open in snap, the
// disk's of others.
func overlayRead(snap *workspace.Snapshot) memory.Read {
	// One read serves one check: its folders are resolved once.
	root := snap.Library().Root().Memo()
	return func(p string) ([]byte, error) {
		if text, _, ok := snap.Overlay(p); ok {
			if len(text) > imports.MaxFileBytes {
				return nil, imports.ErrTooLarge
			}
			return []byte(text), nil
		}
		return imports.ReadFile(root, p)
	}
}

// checkAgentFile is set.CheckFile with the memory problems of path added.
func (s *Server) checkAgentFile(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set, path string, content []byte) (*agentfiles.File, []diag.Diagnostic) {
	f, ds := set.CheckFile(ctx, path, content)
	mf, mds := s.memoryDiagnostics(ctx, snap, set, path)
	if len(mds) == 0 {
		return f, ds
	}
	if f == nil {
		f = mf
	}
	return f, slices.Concat(ds, mds) // ds may be a list the set keeps
}

// memoryDiagnostics returns the memory problems of path and the file their
// spans refer to, checking every tree again when path is a memory file or
// a file of a tree.
func (s *Server) memoryDiagnostics(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set, path string) (*agentfiles.File, []diag.Diagnostic) {
	rel, ok := fsguard.Rel(snap.Library().Dir(), path)
	if !ok {
		return nil, nil
	}
	cur := s.memory.cur.Load()
	stale := cur == nil || cur.set != set
	if !stale && !memory.IsMemory(rel) && !cur.report.Files[path] {
		return nil, nil
	}
	kept, replaced := s.memory.check(ctx, snap, set)
	if replaced != nil {
		for p := range changedFiles(replaced.report, kept.report) {
			if p != path {
				s.diags.touch(p)
			}
		}
	}
	ds := kept.report.Diagnostics[path]
	if len(ds) == 0 {
		return nil, nil
	}
	f, ok := memory.FileOf(set, path, overlayRead(snap))
	if !ok {
		return nil, nil
	}
	return f, ds
}

// memoryPaths returns the files with memory problems now.
func (s *Server) memoryPaths(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set) []string {
	kept, _ := s.memory.check(ctx, snap, set)
	out := make([]string, 0, len(kept.report.Diagnostics))
	for p := range kept.report.Diagnostics {
		out = append(out, p)
	}
	return out
}

// inMemoryTree reports whether path is a file of a memory file's import
// tree, as last checked.
func (s *Server) inMemoryTree(path string) bool {
	cur := s.memory.cur.Load()
	return cur != nil && cur.report.Files[path]
}

// changedFiles returns the files whose problems differ between a and b.
func changedFiles(a, b *memory.Report) map[string]bool {
	out := map[string]bool{}
	same := func(x, y []diag.Diagnostic) bool {
		return slices.EqualFunc(x, y, func(d, e diag.Diagnostic) bool {
			return d.Span == e.Span && d.Code == e.Code && d.Message == e.Message
		})
	}
	for p, ds := range a.Diagnostics {
		if !same(ds, b.Diagnostics[p]) {
			out[p] = true
		}
	}
	for p, ds := range b.Diagnostics {
		if !same(ds, a.Diagnostics[p]) {
			out[p] = true
		}
	}
	return out
}
