package agentfiles

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Check returns the diagnostics of every agent file that has some, keyed
// by absolute path, without the codes the configuration disables.
func (s *Set) Check(ctx context.Context) map[string][]diag.Diagnostic {
	out := make([][]diag.Diagnostic, len(s.Files))
	idx := make(chan int)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				if s.Files[i].aliasOf == nil { // else reported on the original
					out[i] = s.check(ctx, s.Files[i])
				}
			}
		}()
	}
	for i := range s.Files {
		if ctx.Err() != nil {
			break
		}
		idx <- i
	}
	close(idx)
	wg.Wait()
	m := map[string][]diag.Diagnostic{}
	for i, f := range s.Files {
		if len(out[i]) > 0 {
			m[f.Path] = out[i]
		}
	}
	return m
}

// CheckFile checks the file at the absolute path p with content in place
// of what is on disk (an editor's unsaved text; nil reads the disk). It
// returns the file as checked and its diagnostics, or a nil file when p is
// not an agent file. A file that appeared after Load is checked too, with
// what the set knows of the rest of the workspace.
func (s *Set) CheckFile(ctx context.Context, p string, content []byte) (*File, []diag.Diagnostic) {
	p = filepath.Clean(p)
	f, ok := s.File(p)
	if !ok {
		rel, ok := fsguard.Rel(s.Root, p)
		if !ok {
			return nil, nil
		}
		k := s.classify(rel)
		if k == KindUnknown {
			return nil, nil
		}
		if content == nil {
			// A link out of the workspace is checked: its read says it is
			// not read.
			if _, err := s.Guard().Stat(p); err != nil && !errors.Is(err, fsguard.ErrOutsideWorkspace) {
				return nil, nil // gone, or never there
			}
		}
		f = &File{Path: p, Rel: rel, Kind: k}
		if content == nil {
			s.read(ctx, f, nil)
		}
	}
	if content != nil {
		g := &File{Path: f.Path, Rel: f.Rel, Kind: f.Kind, via: f.via, aliasOf: f.aliasOf}
		s.read(ctx, g, content)
		f = g
	}
	return f, s.check(ctx, f)
}

// counter returns the workspace's tokenizer, made on first use: only
// skills need it, and its vocabulary takes a while to load.
func (s *Set) counter() tokens.Counter {
	s.counterOnce.Do(func() {
		c, err := tokens.New(s.cfg.Tokenizer)
		if err != nil {
			c, _ = tokens.New(tokens.Default)
		}
		s.ctr = c
	})
	return s.ctr
}

// checker gathers the diagnostics of one file.
type checker struct {
	s   *Set
	f   *File
	aud audience // who loads a skill from where it lies
	out []diag.Diagnostic
	// looked holds what lookRel found for each path, so that a file
	// naming one path a million times looks once.
	looked map[string]lookResult
	// leftOut counts the diagnostics past limits.fileDiagnostics, which
	// are not kept.
	leftOut int
}

type lookResult struct{ exists, escapes bool }

func (s *Set) check(ctx context.Context, f *File) (out []diag.Diagnostic) {
	c := &checker{s: s, f: f}
	// A check that fails on some input must cost that file its
	// diagnostics, not the server its life.
	defer func() {
		if r := recover(); r != nil {
			out = []diag.Diagnostic{{Path: f.Path, Severity: diag.Default(diag.FileSkipped), Code: diag.FileSkipped,
				Message: fmt.Sprintf("could not be checked (an internal error of ctxls: %v); please report it", r)}}
		}
	}()
	if f.Skipped != "" {
		c.add(document.Span{}, diag.FileSkipped, "%s", f.Skipped)
		return c.out
	}
	switch f.Kind {
	case KindSkill:
		c.skill(ctx)
	case KindCommand:
		c.command()
	case KindSubagent:
		c.subagent()
	case KindPlugin, KindMarketplace, KindLSP:
		c.pluginJSON()
	case KindMCP:
		c.mcpConfig()
	case KindSettings, KindHooks:
		c.claudeJSON()
	case KindOutputStyle:
		c.outputStyle()
	case KindAgentsMd:
		c.agentsMd()
	case KindCursorRule:
		c.cursorRule()
	case KindCopilotInstructions, KindCopilotPrompt:
		c.copilot()
	case KindCursorRuleMd:
		c.cursorRuleMd()
	case KindCopilotAgent, KindCopilotChatMode:
		c.copilotAgent()
	case KindWindsurfRule, KindWindsurfLegacy:
		c.windsurfRule()
	case KindClineRule:
		c.clineRule()
	case KindKiroSteering:
		c.kiroSteering()
	case KindOpenCodeConfig:
		c.openCodeConfig()
	}
	if len(f.quoted) > 0 {
		for i := range c.out {
			d := &c.out[i]
			d.Span = f.fileSpan(d.Span)
			for k, fix := range d.Fixes {
				edits := make([]diag.Edit, len(fix.Edits))
				for j, e := range fix.Edits {
					edits[j] = diag.Edit{Span: f.fileSpan(e.Span), NewText: e.NewText}
				}
				d.Fixes[k].Edits = edits
			}
		}
	}
	if f.lax != nil {
		c.laxYAML() // in the file's own offsets, after the mapping above
	}
	slices.SortStableFunc(c.out, func(a, b diag.Diagnostic) int { return a.Span.Start - b.Span.Start })
	if c.leftOut > 0 {
		c.out = append(c.out, diag.LeftOut(f.Path, c.leftOut, c.s.cfg.Limits.FileDiagnostics))
	}
	return c.out
}

// add reports a diagnostic with the code's default severity, unless the
// configuration disables the code. It returns nil for a disabled code.
func (c *checker) add(span document.Span, code, format string, args ...any) *diag.Diagnostic {
	if c.s.cfg.Disabled(code) {
		return nil
	}
	// Past the limit a diagnostic is counted, not kept: memory stays
	// bounded whatever the file holds.
	if limit := c.s.cfg.Limits.FileDiagnostics; limit > 0 && len(c.out) >= limit {
		c.leftOut++
		return nil
	}
	c.out = append(c.out, diag.Diagnostic{Path: c.f.Path, Span: span, Severity: diag.Default(code), Code: code, Message: fmt.Sprintf(format, args...)})
	return &c.out[len(c.out)-1]
}

// lineSpan covers the zero-based line n, without its terminator, in the
// offsets of the text the checks read: Doc's, which differ from the
// file's after a value read leniently was quoted (see fileSpan).
func (c *checker) lineSpan(n int) document.Span {
	l := c.f.Lines
	if c.f.Doc != nil {
		l = c.f.Doc.Lines
	}
	return lineOf(l, n)
}

// lineOf covers the zero-based line n of l, without its terminator.
func lineOf(l *document.Lines, n int) document.Span {
	n = max(0, min(n, l.Count()-1))
	return document.Span{Start: l.Start(n), End: l.End(n)}
}

// frontmatter checks that the file's frontmatter parses, reporting why not
// (with a fix for the usual causes), and returns its root mapping, a zero
// Node when there is none.
// required says whether a missing frontmatter is a problem.
func (c *checker) frontmatter(required bool, what string) document.Node {
	doc := c.f.Doc
	fm := doc.Frontmatter
	if fm == nil {
		if required {
			c.add(c.lineSpan(0), diag.FrontmatterMissing, "%s has no YAML frontmatter (a block between --- lines at the top of the file)", what)
		}
		return document.Node{}
	}
	if fm.Err != nil {
		c.yamlError(fm)
		return document.Node{}
	}
	return fm.Root()
}

// nodeSpan is the span of a frontmatter node, or the frontmatter's first
// line when the node has no position.
func (c *checker) nodeSpan(n document.Node) document.Span {
	if s := c.f.Doc.NodeSpan(n); s.End > s.Start {
		return s
	}
	return c.lineSpan(0)
}
