package mdlink

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
)

// A Tree answers what checking links asks of the files around a document.
type Tree interface {
	// Stat reports whether the absolute path p names something, and
	// whether a directory; visible is false for a path the checker cannot
	// see into (outside the workspace), which is then not judged.
	Stat(p string) (exists, dir, visible bool)
	// Anchors returns the anchors of the markdown file at p, and false
	// when they cannot be known (the file cannot be read, or is empty,
	// as a path kept without its content).
	Anchors(p string) (Anchors, bool)
	// Generated reports whether a missing path at p may be one a build
	// makes (under build output or a folder the workspace ignores).
	Generated(p string) bool
}

// Problem is a link that names nothing.
type Problem struct {
	Link Link
	// Anchor says that the file exists and the fragment names none of its
	// anchors.
	Anchor bool
	// Uncertain says that the link may work where the document is
	// published: the file may be made by a build, or the path, without
	// an extension, may be a page of a documentation site.
	Uncertain bool
	// Message says what is missing.
	Message string
}

// lineAnchor matches GitHub's line anchors, #L10 and #L10-L20, and a text
// fragment, #:~:text=.
var lineAnchor = regexp.MustCompile(`^(?:L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?|:~:text=.*)$`)

// markdownExts are the extensions of the files whose headings a fragment
// names.
var markdownExts = []string{".md", ".markdown", ".mdx"}

func isMarkdown(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	for _, e := range markdownExts {
		if ext == e {
			return true
		}
	}
	return false
}

// Check returns the problems of the links of doc, the markdown file at the
// absolute path file, in the workspace at root.
func Check(doc *document.Doc, file, root string, tree Tree) []Problem {
	return Index(doc).Check(file, root, tree)
}

// Indexed is what checking the links of a document needs of its text: its
// links, and its own anchors when a link names one. It lets an index check
// the links of a document whose text it no longer holds.
type Indexed struct {
	Links []Link
	// Self holds the document's anchors; nil when no link names a
	// fragment of the document itself.
	Self Anchors
}

// Index returns what checking the links of doc needs of its text, which
// must be held.
func Index(doc *document.Doc) Indexed {
	ix := Indexed{Links: Links(doc)}
	for _, l := range ix.Links {
		if selfFragment(l) {
			ix.Self = DocAnchors(doc)
			break
		}
	}
	return ix
}

// selfFragment reports whether l names a heading or anchor of its own
// document.
func selfFragment(l Link) bool {
	return l.Path == "" && l.Fragment != "" && !lineAnchor.MatchString(l.Fragment)
}

// Check returns the problems of the links of the markdown file at the
// absolute path file, indexed as ix, in the workspace at root.
func (ix Indexed) Check(file, root string, tree Tree) []Problem {
	var out []Problem
	for _, l := range ix.Links {
		if l.Path == "" {
			if !selfFragment(l) {
				continue
			}
			if !ix.Self.Has(l.Fragment) {
				p := Problem{Link: l, Anchor: true, Uncertain: tree.Generated(file), Message: fmt.Sprintf("#%s names no heading or anchor of this file", l.Fragment)}
				if p.Uncertain {
					p.Message += siteAnchors
				}
				out = append(out, p)
			}
			continue
		}
		if p, ok := check(l, file, root, tree); ok {
			out = append(out, p)
		}
	}
	return out
}

// check judges one link to a path.
func check(l Link, file, root string, tree Tree) (Problem, bool) {
	target := filepath.Join(filepath.Dir(file), filepath.FromSlash(l.Path))
	exists, dir, visible := tree.Stat(target)
	if !visible {
		return Problem{}, false
	}
	if !exists && path.Ext(l.Path) == "" {
		// A page of a documentation site: the file may be NAME.md, or
		// NAME/index.md or README.md.
		for _, alt := range []string{target + ".md", target + ".mdx", filepath.Join(target, "index.md"), filepath.Join(target, "README.md")} {
			if ok, _, _ := tree.Stat(alt); ok {
				exists, target = true, alt
				break
			}
		}
	}
	if !exists {
		p := Problem{Link: l, Uncertain: path.Ext(l.Path) == "" || !knownExt(l.Path) || builtExt(l.Path) || tree.Generated(target)}
		p.Message = fmt.Sprintf("%s names no file (looked for %s)", l.Path, fsguard.RelSlash(root, target))
		switch {
		case path.Ext(l.Path) == "":
			p.Message += "; it may be a page a documentation site serves"
		case !knownExt(l.Path):
			p.Message += "; it may not be meant as a file"
		case p.Uncertain:
			p.Message += "; a build may make it (build output, or a documentation site's pages)"
		}
		return p, true
	}
	if dir || l.Fragment == "" || !isMarkdown(target) || lineAnchor.MatchString(l.Fragment) {
		return Problem{}, false
	}
	anchors, ok := tree.Anchors(target)
	if !ok || anchors.Has(l.Fragment) {
		return Problem{}, false
	}
	p := Problem{Link: l, Anchor: true, Uncertain: tree.Generated(target), Message: fmt.Sprintf("#%s names no heading or anchor of %s", l.Fragment, path.Base(filepath.ToSlash(target)))}
	if p.Uncertain {
		p.Message += siteAnchors
	}
	return p, true
}

// siteAnchors ends the message of an uncertain anchor.
const siteAnchors = "; a documentation site's build may make it"

// fileExts are the extensions of the files that links usually name,
// besides markdown: a link to "ethereal.email" more likely lacks its
// scheme than names a file.
var fileExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true, ".ico": true, ".avif": true,
	".mp4": true, ".webm": true, ".mov": true, ".pdf": true, ".txt": true, ".csv": true, ".html": true, ".htm": true,
	".json": true, ".jsonc": true, ".yaml": true, ".yml": true, ".toml": true, ".xml": true, ".ini": true, ".cfg": true,
	".py": true, ".ipynb": true, ".ts": true, ".tsx": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true,
	".go": true, ".rs": true, ".java": true, ".kt": true, ".swift": true, ".c": true, ".h": true, ".cc": true, ".cpp": true,
	".cs": true, ".rb": true, ".php": true, ".sh": true, ".bash": true, ".zsh": true, ".ps1": true, ".lua": true, ".zig": true,
	".sql": true, ".proto": true, ".graphql": true, ".css": true, ".scss": true, ".vue": true, ".svelte": true, ".astro": true,
	".lock": true, ".mod": true, ".sum": true, ".env": true, ".tsp": true, ".rst": true, ".adoc": true,
}

// builtExt reports whether p names a page that a build usually makes
// from sources beside it (spec.html from spec.md).
func builtExt(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".html" || ext == ".htm"
}

// knownExt reports whether p ends in markdown or another extension of
// the files links usually name.
func knownExt(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return isMarkdown(p) || fileExts[ext]
}
