package memory

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/internal/glob"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Report is what Check finds in the memory files of a workspace.
type Report struct {
	// Diagnostics holds the problems by absolute path: in memory files,
	// and in the files their imports load.
	Diagnostics map[string][]diag.Diagnostic
	// Files holds every file of every memory file's import tree, the
	// memory files included.
	Files map[string]bool
	// Refused maps each file that an import leads to but that is not
	// read (a link out of the workspace, a named pipe, a file of /proc)
	// to the file whose diagnostic reports it, when that diagnostic is
	// not disabled: whoever reports the file skipped as well says it
	// twice.
	Refused map[string]string
}

// Read returns a file's content: an editor's text, or the disk's. It
// fails as imports.ReadFile does. The import trees call it only for the
// files the workspace's root check lets through.
type Read func(path string) ([]byte, error)

// Check returns the diagnostics of the memory files and rules of set, and
// of the files their imports load, without the codes cfg disables. A
// problem reached from several memory files is reported once. read nil
// reads the set's text of agent files and the disk for the others.
// counter may be nil: no diagnostic needs a token count.
func Check(ctx context.Context, set *agentfiles.Set, cfg *config.Config, counter tokens.Counter, read Read) *Report {
	if cfg == nil {
		cfg = config.Default()
	}
	r := &Report{Diagnostics: map[string][]diag.Diagnostic{}, Files: map[string]bool{}, Refused: map[string]string{}}
	seen := map[key]bool{}
	trees := map[string]*imports.Tree{} // by memory file, for what loads twice
	for _, f := range set.Files {
		if ctx.Err() != nil {
			break
		}
		if f.Skipped != "" || Classify(f.Rel) == NotMemory {
			continue
		}
		ds, t := checkFile(ctx, set, cfg, counter, f, read)
		if t != nil {
			trees[f.Path] = t
		}
		for _, d := range ds {
			k := key{d.Path, d.Span, d.Code}
			if cfg.Disabled(d.Code) || seen[k] {
				continue
			}
			seen[k] = true
			r.Diagnostics[d.Path] = append(r.Diagnostics[d.Path], d)
		}
		r.Files[f.Path] = true
		if t != nil {
			for _, tf := range t.Files {
				r.Files[tf.Path] = true
				for _, e := range tf.Imports {
					if _, ok := r.Refused[e.Target]; !ok && reportsRefused(cfg, e.Status) {
						r.Refused[e.Target] = e.From
					}
				}
			}
		}
	}
	keep := func(ds []diag.Diagnostic) {
		for _, d := range ds {
			k := key{d.Path, d.Span, d.Code}
			if cfg.Disabled(d.Code) || seen[k] {
				continue
			}
			seen[k] = true
			r.Diagnostics[d.Path] = append(r.Diagnostics[d.Path], d)
		}
	}
	if !cfg.Disabled(diag.MemoryCommandUndefined) || !cfg.Disabled(diag.MemoryPathMissing) {
		// One check reads the package.json of every package of a
		// monorepo: the folders on the way are resolved once for all.
		rp := newRepo(set.Root, set.Guard().Memo(), set.WorkspaceFiles())
		for _, f := range set.Files {
			if ctx.Err() != nil || f.Skipped != "" || f.Doc == nil || !promising(f) || linkToPromising(set, f) {
				continue
			}
			doc := f.Doc
			if read != nil {
				if text, err := read(f.Path); err == nil {
					doc = document.Parse(f.Path, text)
				}
			}
			keep(promises(rp, f.Path, f.Rel, doc))
		}
	}
	if !cfg.Disabled(diag.MemoryDuplicate) && ctx.Err() == nil {
		keep(duplicates(ctx, set, cfg, counter, read, trees))
	}
	for p := range r.Diagnostics {
		slices.SortStableFunc(r.Diagnostics[p], func(a, b diag.Diagnostic) int { return a.Span.Start - b.Span.Start })
	}
	return r
}

// linkToPromising reports whether f is a symbolic link to another file of
// the set that promises are checked in (a CLAUDE.md that links to
// AGENTS.md): the text is that file's, and its problems are reported
// there, once.
func linkToPromising(set *agentfiles.Set, f *agentfiles.File) bool {
	_, rel, err := set.Guard().Target(f.Path)
	if err != nil || rel == f.Rel {
		return false
	}
	g, ok := set.File(filepath.Join(set.Root, filepath.FromSlash(rel)))
	return ok && g != f && g.Skipped == "" && g.Doc != nil && promising(g)
}

// promising reports whether f is a file that tells an agent what to run
// and where things are: a memory file or rule, AGENTS.md, GEMINI.md or
// the Copilot instructions of the repository.
func promising(f *agentfiles.File) bool {
	return Classify(f.Rel) != NotMemory || f.Kind == agentfiles.KindAgentsMd ||
		f.Kind == agentfiles.KindCopilotInstructions && path.Base(f.Rel) == "copilot-instructions.md"
}

// reportsRefused reports whether an import of status s leads to a file
// that is not read, with a diagnostic that says so.
func reportsRefused(cfg *config.Config, s imports.Status) bool {
	switch s {
	case imports.Escapes:
		return !cfg.Disabled(diag.ImportOutsideProject)
	case imports.Special:
		return !cfg.Disabled(diag.FileSkipped)
	}
	return false
}

type key struct {
	path string
	span document.Span
	code string
}

// checkFile returns the diagnostics of one memory file or rule (its
// imports and theirs, which may lie in other files, its size and, for a
// rule, its paths globs) and its import tree, nil when the file cannot be
// read. Disabled codes are left in; Check drops them. read nil reads f's
// text and the disk.
func checkFile(ctx context.Context, set *agentfiles.Set, cfg *config.Config, counter tokens.Counter, f *agentfiles.File, read Read) ([]diag.Diagnostic, *imports.Tree) {
	if f.Doc == nil {
		return nil, nil
	}
	// The tree looks at each import at least twice: the folders on the
	// way are resolved once for all.
	guard := set.Guard().Memo()
	if read == nil {
		read = func(p string) ([]byte, error) {
			if p == f.Path {
				return f.Text, nil
			}
			return imports.ReadFile(guard, p)
		}
	}
	opt := Options(cfg, set.Root, counter)
	opt.Guard = guard
	opt.Read = read
	t, err := imports.Build(ctx, f.Path, opt)
	if err != nil {
		t = nil
	}
	var out []diag.Diagnostic
	if t != nil {
		out = append(out, t.Problems(set.Root)...)
	}
	if Classify(f.Rel) == Rule {
		doc := f.Doc
		if t != nil {
			// The rule's text as the tree read it: the editor's, when open.
			if text, err := read(f.Path); err == nil {
				doc = document.Parse(f.Path, text)
			}
		}
		out = append(out, rulePaths(f.Path, doc, ruleFiles(f.Rel, set.WorkspaceFiles()))...)
	}
	return out, t
}

// FileOf returns a file for turning the spans of Check's diagnostics in
// path into lines and columns: the set's agent file, or the file read as
// the import trees read it.
func FileOf(set *agentfiles.Set, path string, read Read) (*agentfiles.File, bool) {
	if read == nil {
		if f, ok := set.File(path); ok {
			return f, true
		}
		read = func(p string) ([]byte, error) { return imports.ReadFile(set.Guard(), p) }
	}
	text, err := read(path)
	if err != nil {
		return nil, false
	}
	doc := document.Parse(path, text)
	f := &agentfiles.File{Path: path, Text: doc.Text, Lines: doc.Lines, Doc: doc}
	if sf, ok := set.File(path); ok {
		f.Rel, f.Kind, f.Meta = sf.Rel, sf.Kind, sf.Meta
	}
	return f, true
}

// ruleFiles returns the files a rule's globs are matched against: those
// of the folder holding its .claude folder, relative to that folder.
func ruleFiles(rel string, files []string) []string {
	i := strings.Index(rel, ".claude/rules/")
	if i <= 0 {
		return files
	}
	prefix := rel[:i]
	var out []string
	for _, f := range files {
		if r, ok := strings.CutPrefix(f, prefix); ok {
			out = append(out, r)
		}
	}
	return out
}

// RulePaths returns the globs of a rule's paths field and whether it has
// one: a rule without paths loads at the start of every session.
func RulePaths(doc *document.Doc) ([]string, bool) {
	if doc.Frontmatter == nil {
		return nil, false
	}
	_, v := doc.Frontmatter.Root().Field("paths")
	if !v.Exists() || v.Tag() == "!!null" {
		return nil, false
	}
	var out []string
	for _, n := range globNodes(v) {
		if n.Kind() == document.ScalarNode {
			out = append(out, n.Value())
		}
	}
	return out, true
}

// globNodes returns the items of a paths value: the value itself when it
// is not a list.
func globNodes(v document.Node) []document.Node {
	if v.Kind() == document.SequenceNode {
		return slices.Collect(v.Items())
	}
	return []document.Node{v}
}

// rulePaths checks a rule's paths: a glob or a list of globs, each valid
// and matching at least one file of the workspace.
func rulePaths(path string, doc *document.Doc, files []string) []diag.Diagnostic {
	if doc.Frontmatter == nil || doc.Frontmatter.Err != nil {
		return nil
	}
	k, v := doc.Frontmatter.Root().Field("paths")
	if !v.Exists() || v.Tag() == "!!null" {
		return nil
	}
	var out []diag.Diagnostic
	bad := func(n document.Node, format string, args ...any) {
		sp := doc.NodeSpan(n)
		if sp.Len() == 0 {
			sp = doc.NodeSpan(k)
		}
		out = append(out, diag.Diagnostic{Path: path, Span: sp, Severity: diag.Default(diag.RulePathsInvalid),
			Code: diag.RulePathsInvalid, Message: fmt.Sprintf(format, args...)})
	}
	if v.Kind() == document.MappingNode {
		bad(v, "paths must be a glob or a list of globs, not a map")
		return out
	}
	var unmatched []document.Node
	loads := false
	for _, n := range globNodes(v) {
		if n.Kind() != document.ScalarNode || n.Tag() != "!!str" {
			bad(n, "paths holds %s, not a glob string; the rule never attaches by it", describe(n))
			continue
		}
		g, err := glob.Compile(n.Value())
		if err != nil {
			bad(n, "paths glob %q is invalid: %v", n.Value(), err)
			continue
		}
		if slices.ContainsFunc(files, g.Match) {
			loads = true
		} else {
			unmatched = append(unmatched, n)
		}
	}
	// The rule loads when any of its globs matches, so an unmatched glob
	// beside a matching one costs nothing but may be a typo.
	for _, n := range unmatched {
		if loads {
			bad(n, "paths glob %q matches no file of the project; the rule loads by its other globs only", n.Value())
		} else {
			bad(n, "paths glob %q matches no file of the project, so the rule never loads", n.Value())
		}
	}
	return out
}

func describe(n document.Node) string {
	switch n.Kind() {
	case document.SequenceNode:
		return "a list"
	case document.MappingNode:
		return "a map"
	}
	switch n.Tag() {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	}
	return fmt.Sprintf("%q", n.Value())
}
