package library

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/mdlink"
)

// isSkill reports whether f is an Agent Skill's SKILL.md, whose links the
// agent files' checks judge (skill-link-broken).
func isSkill(f *File) bool { return filepath.Base(f.Path) == "SKILL.md" }

// checksLinks reports whether the links of f are checked as plain
// markdown: it is neither a topic nor a command (their links into the
// library are references, judged as such) nor a skill.
func checksLinks(f *File) bool {
	return f.Doc != nil && !isSkill(f) && f.Kind == discover.OtherFile
}

// linkDiagnostics checks the relative links of f as plain markdown, when
// checksLinks says so, as they are in the text f was indexed from.
func (l *Snapshot) linkDiagnostics(f *File) []diag.Diagnostic {
	if !checksLinks(f) {
		return nil
	}
	ix := f.links
	if ix == nil {
		doc, err := f.Doc.Held(context.Background())
		if err != nil {
			return nil
		}
		held := mdlink.Index(doc)
		ix = &held
	}
	tree := &linkTree{l: l, anchors: map[string]mdlink.Anchors{}}
	var ds []diag.Diagnostic
	for _, p := range ix.Check(f.Path, l.dir, tree) {
		sev := diag.Default(diag.MarkdownLinkBroken)
		if p.Uncertain {
			sev = diag.Hint
		}
		ds = append(ds, diag.Diagnostic{Path: f.Path, Span: p.Link.Span, Severity: sev, Code: diag.MarkdownLinkBroken, Message: p.Message})
	}
	return ds
}

// linkTree answers the link checker from the snapshot and the disk.
type linkTree struct {
	l       *Snapshot
	anchors map[string]mdlink.Anchors // by path, nil when unknown
}

func (t *linkTree) Stat(p string) (exists, dir, visible bool) {
	if _, ok := discover.Within(t.l.dir, p); !ok {
		return false, false, false
	}
	if t.l.files.Get(p) != nil {
		return true, false, true
	}
	// What a link out of the workspace leads to is not looked into.
	info, err := t.l.root.Stat(p)
	switch {
	case errors.Is(err, fsguard.ErrOutsideWorkspace), err != nil && fsguard.IsLoop(err):
		return true, false, false
	case err != nil:
		return false, false, true
	}
	return true, info.IsDir(), true
}

func (t *linkTree) Anchors(p string) (mdlink.Anchors, bool) {
	if a, ok := t.anchors[p]; ok {
		return a, a != nil
	}
	a := t.read(p)
	t.anchors[p] = a
	return a, a != nil
}

// read returns the anchors of the markdown file at p, from the snapshot
// when it holds the file, or nil.
func (t *linkTree) read(p string) mdlink.Anchors {
	var doc *document.Doc
	if f := t.l.files.Get(p); f != nil && f.Doc != nil {
		held, err := f.Doc.Held(context.Background())
		if err != nil {
			return nil
		}
		doc = held
	} else {
		text, err := t.l.root.ReadFile(context.Background(), p, t.l.cfg.MaxFileSize)
		if err != nil {
			return nil
		}
		doc = document.Parse(p, text)
	}
	if len(strings.TrimSpace(string(doc.Text[doc.Body.Start:]))) == 0 {
		return nil // an empty file, as a path kept without its content
	}
	return mdlink.DocAnchors(doc)
}

// Generated reports whether p lies where the workspace's scan does not
// look (build output, dependencies, ignored folders) or in a folder a
// documentation build writes.
func (t *linkTree) Generated(p string) bool {
	if t.l.filter != nil && t.l.filter.SkipFile(p) {
		return true
	}
	for _, part := range strings.Split(fsguard.RelSlash(t.l.dir, p), "/") {
		switch part {
		case "out", "_build", "site", "public", "generated", "gen", "build", "dist", "target":
			return true
		}
	}
	return t.inSite(p)
}

// siteSources maps the configuration file of a documentation site
// generator to the folders, beside it, whose pages its build may make
// (an API reference, a translation, a page written by a plugin).
var siteSources = map[string][]string{
	"mkdocs.yml":            {"docs"},
	"mkdocs.yaml":           {"docs"},
	"docusaurus.config.js":  {"docs", "blog", "versioned_docs"},
	"docusaurus.config.ts":  {"docs", "blog", "versioned_docs"},
	"docusaurus.config.mjs": {"docs", "blog", "versioned_docs"},
	"astro.config.mjs":      {"src/content/docs"},
	"astro.config.ts":       {"src/content/docs"},
	"book.toml":             {"src"},
	"conf.py":               {"."},
	".vitepress":            {"."},
	"docs.json":             {"."},
	"mint.json":             {"."},
}

// inSite reports whether p lies in the source folder of a documentation
// site found in one of its parent folders.
func (t *linkTree) inSite(p string) bool {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if _, ok := discover.Within(t.l.dir, d); !ok {
			return false
		}
		for name, srcs := range siteSources {
			if _, err := t.l.root.Stat(filepath.Join(d, name)); err != nil {
				continue
			}
			for _, src := range srcs {
				s := filepath.Join(d, filepath.FromSlash(src))
				if fsguard.Within(s, p) {
					return true
				}
			}
		}
		if d == t.l.dir {
			return false
		}
	}
}
