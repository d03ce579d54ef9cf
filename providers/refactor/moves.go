package refactor

import (
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/mdlink"
)

// FileMove is a file or folder that moves from From to To, both
// absolute and clean.
type FileMove struct {
	From, To string
}

// MovedTo returns where the file at p is once moves are done: p itself
// when none of them concerns it.
func MovedTo(p string, moves []FileMove) string {
	for _, m := range moves {
		if rel, ok := fsguard.Rel(m.From, p); ok {
			if rel == "." {
				return m.To
			}
			return filepath.Join(m.To, filepath.FromSlash(rel))
		}
	}
	return p
}

// relFrom returns the slash path from the folder dir to target in the
// style of written: "./" kept when written had it and the path does not
// climb, a final slash kept.
func relFrom(dir, target, written string) (string, bool) {
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(written, "./") && rel != "." && !fsguard.Climbs(rel) {
		rel = "./" + rel
	}
	if strings.HasSuffix(written, "/") && !strings.HasSuffix(rel, "/") {
		rel += "/"
	}
	return rel, true
}

// ImportEdits returns the edits that keep the relative @imports of doc,
// the file at p, naming the same files once moves are done: imports of a
// file that moves, and every import of doc when doc itself moves. The
// text of doc must be held.
func ImportEdits(doc *document.Doc, p string, moves []FileMove) []diag.Edit {
	dir, newDir := filepath.Dir(p), filepath.Dir(MovedTo(p, moves))
	var out []diag.Edit
	for _, im := range imports.Scan(doc) {
		if im.Kind() != imports.Relative {
			continue
		}
		clean := im.Clean()
		target := filepath.Join(dir, filepath.FromSlash(clean))
		newTarget := MovedTo(target, moves)
		if newTarget == target && newDir == dir {
			continue
		}
		rel, ok := relFrom(newDir, newTarget, clean)
		if !ok || rel == clean {
			continue
		}
		out = append(out, diag.Edit{Span: im.PathSpan(), NewText: strings.ReplaceAll(rel, " ", `\ `)})
	}
	return out
}

// codePath matches a code span that may be a relative path: two
// segments or more, nothing that is not a file name's.
var codePath = regexp.MustCompile(`^(?:\./)?[A-Za-z0-9_@.][A-Za-z0-9_.@+-]*(?:/[A-Za-z0-9_.@+-]+)+/?$`)

// CodePathEdits returns the edits that keep the paths in the code spans
// of doc, the file at p, naming the same files once moves are done, as
// the agents read a skill's or a memory file's paths: relative to the
// file's folder, or else to the workspace root. A span is a path only
// where exists says it names something; a path that climbs out of the
// root is left alone. The text of doc must be held.
func CodePathEdits(doc *document.Doc, p, root string, moves []FileMove, exists func(string) bool) []diag.Edit {
	dir, newDir := filepath.Dir(p), filepath.Dir(MovedTo(p, moves))
	var out []diag.Edit
	for _, sp := range doc.BodyCodeSpans() {
		written := string(doc.Slice(sp))
		if !codePath.MatchString(written) || fsguard.Climbs(written) {
			continue
		}
		for _, base := range []string{dir, root} {
			target := filepath.Join(base, filepath.FromSlash(written))
			if !fsguard.Within(root, target) || !exists(target) {
				continue
			}
			newBase := base
			if base == dir {
				newBase = newDir
			}
			newTarget := MovedTo(target, moves)
			if newTarget == target && newBase == base {
				break
			}
			rel, ok := relFrom(newBase, newTarget, written)
			if ok && rel != written && (base == dir || !fsguard.Climbs(rel)) {
				out = append(out, diag.Edit{Span: sp, NewText: rel})
			}
			break
		}
	}
	return out
}

// pageExts are the extensions a link without one may leave out: a page
// of a documentation site, NAME for NAME.md.
var pageExts = []string{".md", ".mdx"}

// LinkEdits returns the edits that keep the relative markdown links of
// doc, the file at p, leading to the same files once moves are done:
// links to a file or folder that moves, and every link of doc when doc
// itself moves. Each edit replaces the path of a destination and keeps
// its fragment and query, its "./", its final slash and its escaping;
// a link without an extension to a page that moves keeps going without.
// The text of doc must be held.
func LinkEdits(doc *document.Doc, p string, moves []FileMove) []diag.Edit {
	dir, newDir := filepath.Dir(p), filepath.Dir(MovedTo(p, moves))
	var out []diag.Edit
	for _, l := range mdlink.Links(doc) {
		if l.Path == "" {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(l.Path))
		newTarget := MovedTo(target, moves)
		if newTarget == target && path.Ext(l.Path) == "" {
			for _, ext := range pageExts {
				if nt := MovedTo(target+ext, moves); nt != target+ext {
					newTarget = nt
					if strings.EqualFold(filepath.Ext(nt), ext) {
						newTarget = nt[:len(nt)-len(ext)]
					}
					break
				}
			}
		}
		if newTarget == target && newDir == dir {
			continue
		}
		written := l.Dest
		if i := strings.IndexAny(written, "#?"); i >= 0 {
			written = written[:i]
		}
		rel, ok := relFrom(newDir, newTarget, written)
		if !ok {
			continue
		}
		angled := l.Span.Start > 0 && doc.Text[l.Span.Start-1] == '<' && l.Span.End < len(doc.Text) && doc.Text[l.Span.End] == '>'
		text := linkPath(rel, written, angled)
		if text == written {
			continue
		}
		out = append(out, diag.Edit{Span: document.Span{Start: l.Span.Start, End: l.Span.Start + len(written)}, NewText: text})
	}
	return out
}

// linkPath writes the slash path rel as a link destination escaped as
// written was: percent-escaped when written was, otherwise with only
// what would end the destination escaped. Between angle brackets nothing
// needs escaping but the brackets.
func linkPath(rel, written string, angled bool) string {
	switch {
	case angled:
		return strings.NewReplacer("<", "%3C", ">", "%3E").Replace(rel)
	case strings.Contains(written, "%"):
		return (&url.URL{Path: rel}).EscapedPath()
	}
	return strings.NewReplacer(" ", "%20", "\t", "%09", "(", `\(`, ")", `\)`).Replace(rel)
}

// Merge returns the edits of sets by file, sorted, each file's edits
// apart: an edit that overlaps one of an earlier set, or an earlier one
// of its own set, is left out. Two ways of finding one reference (a
// topic's path and a markdown link to it) give one edit so.
func Merge(sets ...map[string][]diag.Edit) map[string][]diag.Edit {
	out := map[string][]diag.Edit{}
	for _, set := range sets {
		for p, es := range set {
			kept := out[p]
			for _, e := range es {
				// kept is sorted by start: only its neighbours can overlap.
				i, _ := slices.BinarySearchFunc(kept, e.Span.Start, func(k diag.Edit, start int) int { return k.Span.Start - start })
				if i > 0 && editsOverlap(kept[i-1], e) || i < len(kept) && editsOverlap(kept[i], e) {
					continue
				}
				kept = slices.Insert(kept, i, e)
			}
			if len(kept) > 0 {
				out[p] = kept
			}
		}
	}
	return out
}

// editsOverlap reports whether a and b overlap, or replace the same empty
// span.
func editsOverlap(a, b diag.Edit) bool {
	return a.Span == b.Span || a.Span.Start < b.Span.End && b.Span.Start < a.Span.End
}
