package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/refactor"
	"github.com/ctxls/ctxls/providers/workspace"
)

// agentSet returns the agent files of the workspace snapshot snap, the
// editor's texts of the open ones in place (see
// workspace.Snapshot.AgentFiles); nil when they cannot be read.
func (s *Server) agentSet(ctx context.Context, snap *workspace.Snapshot) *agentfiles.Set {
	set, err := snap.AgentFiles(ctx)
	if err != nil {
		s.stderr.Debug("agent files", "err", err)
		return nil
	}
	return set
}

// isAgentFile reports whether path is one of the agent files ctxls checks
// in snap.
func (s *Server) isAgentFile(snap *workspace.Snapshot, path string) bool {
	rel, ok := fsguard.Rel(snap.Library().Dir(), path)
	if !ok {
		return false
	}
	if agentfiles.Classify(rel, nil) != agentfiles.KindUnknown {
		return true
	}
	set := s.agentSet(s.ctx, snap)
	if set == nil {
		return false
	}
	_, ok = set.File(path)
	return ok || s.inMemoryTree(path)
}

// agentDiagnostics returns the diagnostics of the agent file at path in
// snap and set, the agent files of snap's library, of its open text when
// the editor has it open, and the file as checked; nil when path is no
// agent file.
func (s *Server) agentDiagnostics(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set, path string) (*agentfiles.File, []diag.Diagnostic) {
	if set == nil {
		return nil, nil
	}
	var content []byte
	if text, _, open := snap.Overlay(path); open {
		content = []byte(text)
	}
	return s.checkAgentFile(ctx, snap, set, path, content)
}

// agentPaths returns the agent files of set that have diagnostics in
// snap.
func (s *Server) agentPaths(ctx context.Context, snap *workspace.Snapshot, set *agentfiles.Set) []string {
	if set == nil {
		return nil
	}
	var out []string
	for p := range set.Check(ctx) {
		out = append(out, p)
	}
	return append(out, s.memoryPaths(ctx, snap, set)...)
}

// agentQuickFixes returns the fixes of the view's agent-file diagnostics
// that overlap the byte range [start, end].
func (s *Server) agentQuickFixes(ctx context.Context, v *view, start, end int) []protocol.CommandOrCodeAction {
	set := s.agentSet(ctx, v.ws)
	if set == nil {
		return nil
	}
	f, ds := s.checkAgentFile(ctx, v.ws, set, v.path, v.doc.Text)
	if f == nil {
		return nil
	}
	var out []protocol.CommandOrCodeAction
	for _, fx := range refactor.Fixes(ds, start, end) {
		out = append(out, s.quickFix(v, f.Lines, fx, ops.FileLines(v.lib, set)))
	}
	return out
}

// fileRefAt returns the reference to a file of the project at a position
// of the view's agent file.
func (s *Server) fileRefAt(ctx context.Context, v *view, pos protocol.Position) (agentfiles.FileRef, bool) {
	set := s.agentSet(ctx, v.ws)
	if set == nil {
		return agentfiles.FileRef{}, false
	}
	off, err := v.offset(pos)
	if err != nil {
		return agentfiles.FileRef{}, false
	}
	for _, r := range set.FileRefs(v.path, v.doc.Text) {
		if off >= r.Span.Start && off <= r.Span.End {
			return r, true
		}
	}
	return agentfiles.FileRef{}, false
}

// fileRefHover says where a reference of an agent file leads and what the
// file costs.
func (s *Server) fileRefHover(ctx context.Context, v *view, pos protocol.Position) (*protocol.Hover, bool) {
	r, ok := s.fileRefAt(ctx, v, pos)
	if !ok {
		return nil, false
	}
	md := fmt.Sprintf("**%s** → `%s`", r.What, shown(v.lib.Dir(), r.Target))
	if text, err := imports.ReadFile(v.lib.Root(), r.Target); err == nil {
		md += " · " + present.Tokens(v.lib.Counter().Count(string(text))) + "\n\n" + present.CountedIn(v.lib.Counter().Name())
	}
	return s.hover(md, v.rng(r.Span)), true
}

// fileRefLinks makes each reference of the view's agent file to a file of
// the project a link to it.
func (s *Server) fileRefLinks(ctx context.Context, v *view) []protocol.DocumentLink {
	set := s.agentSet(ctx, v.ws)
	if set == nil {
		return nil
	}
	var out []protocol.DocumentLink
	for _, r := range set.FileRefs(v.path, v.doc.Text) {
		target := uriOf(r.Target)
		tip := r.What + " · " + shown(v.lib.Dir(), r.Target)
		out = append(out, protocol.DocumentLink{Range: v.rng(r.Span), Target: &target, Tooltip: &tip})
	}
	return out
}
