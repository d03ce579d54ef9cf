// Package refactor computes the text edits that keep a workspace
// consistent when a topic is renamed or files and folders move: every
// reference to a topic, in every form, follows it to its new domain, name
// and path, and the @imports, markdown links and code-span paths to what
// moves, and those a moving file makes, lead to the same files. It also
// writes frontmatter for topics that have none, and builds the quick
// fixes that the library's diagnostics carry.
package refactor

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/refs"
)

// Move is where a topic goes.
type Move struct {
	Topic *library.Topic
	// Domain and Name are the topic's new domain and name within it
	// ("frameworks/fastapi" for a nested topic).
	Domain, Name string
	// NewPath is the new absolute file path.
	NewPath string
}

// Errors of Rename, both of kind errkind.Invalid: the new name is not one
// a topic can take.
var (
	ErrInvalidName = errkind.New(errkind.Invalid, "not a valid topic name: use letters, digits, '_', '-' and '.'")
	ErrExists      = errkind.New(errkind.Invalid, "already exists")
)

// maxFileName is the longest file name, in bytes, that common file
// systems (ext4, APFS, NTFS in UTF-16 units) take.
const maxFileName = 255

// validName matches a topic name a rename may give: a file stem.
var validName = regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_.\-]*$`)

// Rename returns the move that renames t to newName within its directory.
// newName is a file stem, with or without ".md".
func Rename(lib *library.Snapshot, t *library.Topic, newName string) (Move, error) {
	newName = strings.TrimSuffix(strings.TrimSpace(newName), ".md")
	if !validName.MatchString(newName) {
		return Move{}, fmt.Errorf("%q is %w", newName, ErrInvalidName)
	}
	if dir := path.Dir(t.Name); dir != "." {
		newName = dir + "/" + newName
	}
	file := path.Base(newName) + ".md"
	if len(file) > maxFileName {
		return Move{}, fmt.Errorf("%q is %w: its file name would be %d bytes long, the limit is %d", path.Base(newName), ErrInvalidName, len(file), maxFileName)
	}
	m := Move{Topic: t, Domain: t.Domain, Name: newName, NewPath: filepath.Join(filepath.Dir(t.Path), file)}
	if newName == t.Name {
		return m, nil
	}
	if _, exists := lib.Topic(t.Domain + "/" + newName); exists {
		return Move{}, fmt.Errorf("topic %s:%s %w", t.Domain, newName, ErrExists)
	}
	// Names that differ only in case are one file on a case-insensitive
	// file system and two easily confused topics on the others.
	for _, o := range lib.TopicsUnordered() {
		if o != t && o.Domain == t.Domain && strings.EqualFold(o.Name, newName) {
			return Move{}, fmt.Errorf("topic %s:%s %w (the names differ only in case)", o.Domain, o.Name, ErrExists)
		}
	}
	// Through the guard: a link at the new name is a file there, whether
	// it leads into the workspace or out of it.
	root := lib.Root()
	if _, err := root.Stat(m.NewPath); (err == nil || errors.Is(err, fsguard.ErrOutsideWorkspace)) && !sameFile(root, m.NewPath, t.Path) {
		return Move{}, fmt.Errorf("%s %w", m.NewPath, ErrExists)
	}
	entries, _ := os.ReadDir(filepath.Dir(t.Path))
	for _, e := range entries {
		if e.Name() != filepath.Base(t.Path) && e.Name() != file && strings.EqualFold(e.Name(), file) {
			return Move{}, fmt.Errorf("%s %w (the names differ only in case)", filepath.Join(filepath.Dir(t.Path), e.Name()), ErrExists)
		}
	}
	return m, nil
}

// sameFile reports whether a and b are one file of the workspace at root
// (a case-only rename on a case-insensitive file system).
func sameFile(root *fsguard.Root, a, b string) bool {
	ia, errA := root.Stat(a)
	ib, errB := root.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// Moves returns the moves of the topics a file or folder rename from
// oldPath to newPath carries along. Topics that would leave every context
// root (or land directly in one) are returned in stranded.
func Moves(lib *library.Snapshot, oldPath, newPath string) (moves []Move, stranded []*library.Topic) {
	for _, t := range lib.Topics() {
		var dst string
		switch {
		case t.Path == oldPath:
			dst = newPath
		case fsguard.Within(oldPath, t.Path):
			dst = filepath.Join(newPath, strings.TrimPrefix(t.Path, oldPath))
		default:
			continue
		}
		if t.Domain == "" || !strings.EqualFold(filepath.Ext(dst), ".md") {
			continue
		}
		domain, name, ok := topicAt(lib, dst)
		if !ok {
			stranded = append(stranded, t)
			continue
		}
		moves = append(moves, Move{Topic: t, Domain: domain, Name: name, NewPath: dst})
	}
	return moves, stranded
}

// topicAt says which topic a file at p would be: its domain and name.
func topicAt(lib *library.Snapshot, p string) (domain, name string, ok bool) {
	for _, root := range lib.ContextRoots() {
		rel, ok := fsguard.Rel(root, p)
		if !ok || rel == "." {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(rel, path.Ext(rel)), "/")
		if len(parts) < 2 {
			return "", "", false // directly in the root: not a domain topic
		}
		return parts[0], strings.Join(parts[1:], "/"), true
	}
	return "", "", false
}

// domainDir says which domain a directory directly in a context root is.
func domainDir(lib *library.Snapshot, p string) (string, bool) {
	for _, root := range lib.ContextRoots() {
		if filepath.Dir(p) == root {
			return filepath.Base(p), true
		}
	}
	return "", false
}

// Edits computes, by file, the edits that follow topics to their new
// place: every reference to them and their own frontmatter id and domain.
// files are the files and folders that move, the topics' files among
// them: a path reference made by a file that moves is rewritten from the
// file's new place, and a folder directly in a context root that moves to
// another one renames its domain where it is named alone too.
func Edits(lib *library.Snapshot, moves []Move, files []FileMove) map[string][]diag.Edit {
	out := map[string][]diag.Edit{}
	add := func(p string, e diag.Edit) {
		if !slices.ContainsFunc(out[p], func(x diag.Edit) bool { return x.Span == e.Span }) {
			out[p] = append(out[p], e)
		}
	}
	for _, m := range moves {
		t := m.Topic
		for _, loc := range lib.References(t.ID) {
			for _, e := range refEdits(lib, loc, m, files) {
				add(loc.File.Path, e)
			}
		}
		if t.Doc == nil {
			continue
		}
		if root := t.Doc.Frontmatter.Root(); root.Exists() {
			if _, val := root.Field("id"); val.Exists() && val.Value() == t.ID {
				add(t.Path, diag.Edit{Span: t.Doc.ValueSpan(val), NewText: m.Domain + "/" + m.Name})
			}
			if _, val := root.Field("domain"); val.Exists() && m.Domain != t.Domain && val.Value() == t.Domain {
				add(t.Path, diag.Edit{Span: t.Doc.ValueSpan(val), NewText: m.Domain})
			}
		}
	}
	for _, fm := range files {
		oldDomain, okOld := domainDir(lib, fm.From)
		newDomain, okNew := domainDir(lib, fm.To)
		if okOld && okNew && oldDomain != newDomain && lib.IsDomain(oldDomain) {
			for _, loc := range lib.DomainReferences(oldDomain) {
				if loc.Ref.DomainSpan.Len() > 0 {
					add(loc.File.Path, diag.Edit{Span: loc.Ref.DomainSpan, NewText: newDomain})
				}
			}
		}
	}
	// The path references a moving file makes to topics that stay.
	if len(files) > 0 {
		for _, f := range lib.Files() {
			newPath := MovedTo(f.Path, files)
			if newPath == f.Path {
				continue
			}
			for _, r := range f.Refs.All() {
				if r.Form != refs.PathForm || r.PathSpan.Len() == 0 {
					continue
				}
				res := lib.Resolve(f, r)
				if res.Topic == nil || MovedTo(res.Topic.Path, files) != res.Topic.Path {
					continue // a topic that moves: its references are done
				}
				if text := newPathText(lib, f.Path, newPath, r.Path, res.Topic.Path, res.Topic.Path); text != r.Path {
					add(f.Path, diag.Edit{Span: r.PathSpan, NewText: text})
				}
			}
		}
	}
	for p := range out {
		slices.SortFunc(out[p], func(a, b diag.Edit) int { return a.Span.Start - b.Span.Start })
	}
	return out
}

// refEdits rewrites one reference for a move.
func refEdits(lib *library.Snapshot, loc library.Location, m Move, files []FileMove) []diag.Edit {
	r := loc.Ref
	switch r.Form {
	case refs.KeyForm, refs.CallForm, refs.IDForm:
		var es []diag.Edit
		if m.Domain != r.Domain && r.DomainSpan.Len() > 0 {
			es = append(es, diag.Edit{Span: r.DomainSpan, NewText: m.Domain})
		}
		if m.Name != strings.TrimSuffix(r.Topic, ".md") && r.TopicSpan.Len() > 0 {
			es = append(es, diag.Edit{Span: r.TopicSpan, NewText: m.Name})
		}
		return es
	case refs.PathForm:
		if r.PathSpan.Len() == 0 || loc.File.Doc == nil {
			return nil
		}
		from := loc.File.Path
		return []diag.Edit{{Span: r.PathSpan, NewText: newPathText(lib, from, MovedTo(from, files), r.Path, m.Topic.Path, m.NewPath)}}
	}
	return nil
}

// newPathText rewrites a path reference, made by the file at from (which
// moves to newFrom) to the topic at target (which moves to newTarget),
// in the style it was written: a path relative to the referring file
// stays relative to it, a path from the workspace or context root stays
// so, a bare file name stays bare.
func newPathText(lib *library.Snapshot, from, newFrom, written, target, newTarget string) string {
	if filepath.IsAbs(written) {
		return newTarget
	}
	fromFile := filepath.Join(filepath.Dir(from), filepath.FromSlash(written))
	if filepath.Clean(fromFile) == target {
		if rel, ok := relFrom(filepath.Dir(newFrom), newTarget, written); ok {
			return rel
		}
	}
	if filepath.Join(lib.Dir(), filepath.FromSlash(written)) == target {
		return fsguard.RelSlash(lib.Dir(), newTarget)
	}
	for _, root := range lib.ContextRoots() {
		if filepath.Join(root, filepath.FromSlash(written)) == target {
			return fsguard.RelSlash(root, newTarget)
		}
	}
	if !strings.ContainsAny(written, "/\\") {
		return filepath.Base(newTarget) // a bare name found by its stem
	}
	if target == newTarget {
		return written
	}
	// Unknown style: keep the directories as written, change the name.
	dir := written[:strings.LastIndexAny(written, "/\\")+1]
	return dir + filepath.Base(newTarget)
}

// NameSpan is the span holding the topic's name in a reference: the topic
// part, or the file stem of a path.
func NameSpan(doc *document.Doc, r refs.Ref) document.Span {
	if r.Form == refs.PathForm {
		text := string(doc.Slice(r.PathSpan))
		start := strings.LastIndexAny(text, "/\\") + 1
		stem := strings.TrimSuffix(text[start:], path.Ext(text[start:]))
		if stem == "" {
			return r.PathSpan
		}
		return document.Span{Start: r.PathSpan.Start + start, End: r.PathSpan.Start + start + len(stem)}
	}
	if r.TopicSpan.Len() > 0 {
		return r.TopicSpan
	}
	return r.Span
}
