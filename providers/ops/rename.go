package ops

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/memory"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/refactor"
)

// FileMove is a file or folder that moves, by absolute paths.
type FileMove = refactor.FileMove

// Edit replaces a span of a file's text.
type Edit = diag.Edit

// RenameTopicRequest asks for the edit that renames the topic Topic
// ("domain/name") to NewName in its folder: a file stem, with or without
// ".md".
type RenameTopicRequest struct {
	Topic   string
	NewName string
}

// MoveFilesRequest asks for the edit that keeps every reference to the
// files and folders of Moves, and every reference they make, leading to
// the same files once they have moved.
type MoveFilesRequest struct {
	Moves []FileMove
}

// WorkspaceEdit is what a rename or a move changes: the edits of each
// file's text, to make before the files move, and the files the edit
// moves itself.
type WorkspaceEdit struct {
	// Files are sorted by path.
	Files []FileEdit
	// Moves are the files the edit moves once the texts are edited: the
	// topic's file for RenameTopic, none for MoveFiles, whose files the
	// caller (an editor) moves.
	Moves []FileMove
}

// FileEdit is the edits of one file's text, sorted and apart.
type FileEdit struct {
	// Path is absolute.
	Path string
	// Doc holds the text the edits' spans refer to.
	Doc *document.Doc
	// Open says that the text is an editor's, of Version.
	Open    bool
	Version int32
	Edits   []Edit
}

// RenameTopic returns the edit that renames a topic within its folder:
// every reference to it in every form (domain:topic, calls, ids, paths,
// @imports of memory files, relative markdown links in every markdown
// file), its frontmatter id, and its file. A name that is not a file
// stem, or that names a topic or file that exists, is an ErrInvalid
// error; the topic's own name gives an empty edit.
func (o *Ops) RenameTopic(ctx context.Context, req RenameTopicRequest) (WorkspaceEdit, error) {
	if err := require(field{"topic", req.Topic}, field{"newName", req.NewName}); err != nil {
		return WorkspaceEdit{}, err
	}
	snap := o.opts.Snapshot()
	lib := snap.Library()
	t, ok := lib.Topic(req.Topic)
	if !ok {
		return WorkspaceEdit{}, invalidf("no topic %s", req.Topic)
	}
	if t.Domain == "" {
		return WorkspaceEdit{}, invalidf("%s lies directly in a context root, where files are not topics of a domain", present.RelPath(lib, t.Path))
	}
	m, err := refactor.Rename(lib, t, req.NewName)
	if err != nil {
		return WorkspaceEdit{}, withKind(ErrInvalid, err)
	}
	if m.Name == t.Name {
		return WorkspaceEdit{}, nil
	}
	files := []FileMove{{From: t.Path, To: m.NewPath}}
	edit, err := o.moveEdit(ctx, snap, []refactor.Move{m}, files)
	if err != nil {
		return WorkspaceEdit{}, err
	}
	edit.Moves = files
	return edit, nil
}

// MoveFiles returns the edit that keeps references whole when files and
// folders move, as an editor asks before it moves them: every reference
// to a topic that moves in every form, the @imports of memory files and
// the relative markdown links of every markdown file to what moves, and
// those a moving file makes. It refuses, with an ErrConflict error that
// says why, a move onto a file that exists and a move that would break
// references: out of the workspace, or of a topic out of the context
// roots. A path that is not absolute is an ErrInvalid error; moves from
// outside the workspace are left alone.
func (o *Ops) MoveFiles(ctx context.Context, req MoveFilesRequest) (WorkspaceEdit, error) {
	snap := o.opts.Snapshot()
	lib := snap.Library()
	dir := lib.Dir()
	var files []FileMove
	for _, m := range req.Moves {
		if !filepath.IsAbs(m.From) || !filepath.IsAbs(m.To) {
			return WorkspaceEdit{}, invalidf("move %s to %s: the paths must be absolute", m.From, m.To)
		}
		m.From, m.To = filepath.Clean(m.From), filepath.Clean(m.To)
		if m.From == m.To || !fsguard.Within(dir, m.From) || m.From == dir {
			continue
		}
		if fsguard.Within(m.From, m.To) {
			return WorkspaceEdit{}, invalidf("%s cannot move into itself", present.RelPath(lib, m.From))
		}
		if err := existing(lib.Root(), m); err != nil {
			return WorkspaceEdit{}, withKind(ErrConflict, err)
		}
		files = append(files, m)
	}
	if len(files) == 0 {
		return WorkspaceEdit{}, nil
	}
	var moves []refactor.Move
	var inside []FileMove // what a file that leaves refers to is not followed
	for _, m := range files {
		ms, stranded := refactor.Moves(lib, m.From, m.To)
		if !fsguard.Within(dir, m.To) {
			if err := o.leaving(ctx, snap, m, files, stranded); err != nil {
				return WorkspaceEdit{}, err
			}
			continue
		}
		inside = append(inside, m)
		for _, t := range stranded {
			if n := len(lib.References(t.ID)); n > 0 {
				return WorkspaceEdit{}, withKind(ErrConflict, fmt.Errorf("%s would leave the context roots, and it is the topic %s:%s to %s: move it to a domain's folder", present.RelPath(lib, t.Path), t.Domain, t.Name, plural(n, "reference")))
			}
		}
		moves = append(moves, ms...)
	}
	if len(inside) == 0 {
		return WorkspaceEdit{}, nil
	}
	return o.moveEdit(ctx, snap, moves, inside)
}

// leaving returns an error when m, one of files, would move files out of
// the workspace, where no reference is followed, that files staying
// refer to: by links or imports, or by name as the topics stranded.
func (o *Ops) leaving(ctx context.Context, snap Snapshot, m FileMove, files []FileMove, stranded []*library.Topic) error {
	lib := snap.Library()
	out, err := o.moveEdit(ctx, snap, nil, []FileMove{m})
	if err != nil {
		return err
	}
	referring := map[string]bool{}
	for _, f := range out.Files {
		referring[f.Path] = true
	}
	for _, t := range stranded {
		for _, loc := range lib.References(t.ID) {
			referring[loc.File.Path] = true
		}
	}
	var rels []string
	for _, p := range slices.Sorted(maps.Keys(referring)) {
		if refactor.MovedTo(p, files) == p {
			rels = append(rels, present.RelPath(lib, p))
		}
	}
	if len(rels) == 0 {
		return nil
	}
	list := strings.Join(rels[:min(3, len(rels))], ", ")
	if len(rels) > 3 {
		list += fmt.Sprintf(" and %d more", len(rels)-3)
	}
	return withKind(ErrConflict, fmt.Errorf("%s would leave the workspace, where ctxls follows no reference; files that refer to it: %s", present.RelPath(lib, m.From), list))
}

// existing returns an error when m would move a file or folder onto
// another that exists in the workspace of root; one file by two names (a
// change of case on a file system that ignores case) is no other.
func existing(root *fsguard.Root, m FileMove) error {
	if !fsguard.Within(root.Dir(), m.To) {
		return nil
	}
	to, err := root.Lstat(m.To)
	if err != nil {
		return nil // nothing there, or nothing ctxls can tell
	}
	if from, err := root.Lstat(m.From); err == nil && os.SameFile(from, to) {
		return nil
	}
	return fmt.Errorf("%s exists already: move it away first, or pick another name", m.To)
}

// plural returns "1 noun" or "n nouns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// moveEdit computes the edit of topics and files that move, from one
// snapshot: the relative markdown links of every markdown file, the
// references of the library (refactor.Edits), the @imports of every
// memory file's tree, and the paths in code spans of agent and memory
// files; where two find one reference (a link to a topic's
// file is a reference too), the first, which keeps the link's escaping,
// wins.
func (o *Ops) moveEdit(ctx context.Context, snap Snapshot, moves []refactor.Move, files []FileMove) (WorkspaceEdit, error) {
	lib := snap.Library()
	refEdits := refactor.Edits(lib, moves, files)
	read := overlayRead(snap)
	docs := map[string]*document.Doc{}
	// doc returns the text of the file at p the edits' spans refer to:
	// the library's, where the reference edits were found, or as read.
	doc := func(p string) (*document.Doc, bool) {
		if d, ok := docs[p]; ok {
			return d, d != nil
		}
		var d *document.Doc
		if f, ok := lib.File(p); ok && f.Doc != nil {
			d, _ = f.Doc.Held(ctx)
		} else if text, err := read(p); err == nil {
			d = document.Parse(p, text)
		}
		docs[p] = d
		return d, d != nil
	}
	agents, err := snap.AgentFiles(ctx)
	if err != nil {
		return WorkspaceEdit{}, err
	}
	report := memory.Check(ctx, agents, lib.Config(), nil, read)
	if err := ctx.Err(); err != nil {
		return WorkspaceEdit{}, err
	}
	needles := moveNeedles(files)
	linkEdits := map[string][]Edit{}
	for _, p := range markdownFiles(lib, agents, report) {
		if err := ctx.Err(); err != nil {
			return WorkspaceEdit{}, err
		}
		d, ok := doc(p)
		if !ok || refactor.MovedTo(p, files) == p && !containsAny(d.Text, needles) {
			continue
		}
		if es := refactor.LinkEdits(d, p, files); len(es) > 0 {
			linkEdits[p] = es
		}
	}
	importEdits := map[string][]Edit{}
	for _, p := range importingFiles(ctx, agents, report, read) {
		if d, ok := doc(p); ok {
			if es := refactor.ImportEdits(d, p, files); len(es) > 0 {
				importEdits[p] = es
			}
		}
	}
	// What agent files name files by besides links and imports (Kiro's
	// file references, OpenCode's instructions, a prompt's custom agent);
	// their links are linkEdits', which Merge keeps first.
	ams := make([]agentfiles.Move, len(files))
	for i, m := range files {
		ams[i] = agentfiles.Move{Old: m.From, New: m.To}
	}
	agentEdits := map[string][]Edit{}
	for p, es := range agents.RenameEdits(ams, read) {
		for _, e := range es {
			agentEdits[p] = append(agentEdits[p], Edit{Span: e.Span, NewText: e.NewText})
		}
		slices.SortFunc(agentEdits[p], func(a, b Edit) int { return a.Span.Start - b.Span.Start })
	}
	// The paths in code spans that skills, rules and memory files give the
	// agent, which their checks judge as references.
	exists := func(p string) bool {
		_, err := lib.Root().Stat(p)
		return err == nil
	}
	codeEdits := map[string][]Edit{}
	for _, p := range agentMarkdown(agents, report) {
		if err := ctx.Err(); err != nil {
			return WorkspaceEdit{}, err
		}
		d, ok := doc(p)
		if !ok || refactor.MovedTo(p, files) == p && !containsAny(d.Text, needles) {
			continue
		}
		if es := refactor.CodePathEdits(d, p, lib.Dir(), files, exists); len(es) > 0 {
			codeEdits[p] = es
		}
	}
	// The library's text of its files is the one reference edits refer
	// to; a file whose text cannot be had again is not edited at all.
	for p := range refEdits {
		if _, ok := doc(p); !ok {
			delete(refEdits, p)
		}
	}
	merged := refactor.Merge(linkEdits, refEdits, importEdits, codeEdits, agentEdits)
	out := WorkspaceEdit{Files: make([]FileEdit, 0, len(merged))}
	for _, p := range slices.Sorted(maps.Keys(merged)) {
		d, _ := doc(p)
		fe := FileEdit{Path: p, Doc: d, Edits: merged[p]}
		if _, v, open := snap.Overlay(p); open {
			fe.Open, fe.Version = true, v
		}
		out.Files = append(out.Files, fe)
	}
	return out, nil
}

// importingFiles returns the files whose @imports a move may break: those
// of every memory file's import tree (report) and of every Gemini CLI
// context file's, sorted.
func importingFiles(ctx context.Context, agents *agentfiles.Set, report *memory.Report, read func(string) ([]byte, error)) []string {
	in := maps.Clone(report.Files)
	if in == nil {
		in = map[string]bool{}
	}
	opt := agents.GeminiOptions(nil)
	opt.Read = read
	for _, f := range agents.GeminiFiles() {
		in[f.Path] = true
		if t, err := imports.Build(ctx, f.Path, opt); err == nil {
			for _, tf := range t.Files {
				in[tf.Path] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(in))
}

// agentMarkdown returns the markdown files of the agent files and those
// memory files import, sorted.
func agentMarkdown(agents *agentfiles.Set, report *memory.Report) []string {
	var out []string
	for _, f := range agents.Files {
		if f.Doc != nil && strings.EqualFold(filepath.Ext(f.Path), ".md") && !report.Files[f.Path] {
			out = append(out, f.Path)
		}
	}
	for p := range report.Files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// markdownFiles returns the markdown files whose links a move may
// break: the library's, the agent files' and those memory files import,
// sorted and once each.
func markdownFiles(lib *library.Snapshot, agents *agentfiles.Set, report *memory.Report) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, f := range lib.Files() {
		add(f.Path)
	}
	for _, f := range agents.Files {
		if f.Doc != nil && strings.EqualFold(filepath.Ext(f.Path), ".md") {
			add(f.Path)
		}
	}
	for p := range report.Files {
		add(p)
	}
	slices.Sort(out)
	return out
}

// moveNeedles returns, for each move, a part of its name that a link to
// it holds however it is written (escaped or not, with or without its
// extension); nil when one has no such part, and every file is read.
func moveNeedles(files []FileMove) [][]byte {
	var out [][]byte
	for _, m := range files {
		name := filepath.Base(m.From)
		name = strings.TrimSuffix(name, filepath.Ext(name))
		i := strings.IndexFunc(name, func(r rune) bool {
			return !(r == '_' || r == '-' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
		})
		if i >= 0 {
			name = name[:i]
		}
		if name == "" {
			return nil
		}
		out = append(out, []byte(name))
	}
	return out
}

// containsAny reports whether text holds one of needles, or needles is
// nil.
func containsAny(text []byte, needles [][]byte) bool {
	if needles == nil {
		return true
	}
	for _, n := range needles {
		if bytes.Contains(text, n) {
			return true
		}
	}
	return false
}

// overlayRead reads a file as the snapshot has it: the editor's text of an
// open file, or the disk's through the workspace's root check.
func overlayRead(snap Snapshot) memory.Read {
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
