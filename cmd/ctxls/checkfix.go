package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/ops"
)

// fileFix is the fix of one diagnostic: edits of a file's text.
type fileFix struct {
	path string // absolute
	rel  string // as the records show it
	text []byte // the text the edits' spans refer to (no byte order mark)
	// doc, when set, holds text instead: a library releases the text of
	// its files, and only a check that fixes needs it again.
	doc   *document.Doc
	bom   bool // the file on disk starts with a byte order mark
	edits []diag.Edit
	safe  bool
}

// libraryFix returns the preferred fix of a library file's diagnostic,
// doc holding the file's text, or nil.
func libraryFix(doc *document.Doc, d *diag.Diagnostic) *fileFix {
	f, ok := d.Preferred()
	if !ok {
		return nil
	}
	return &fileFix{path: d.Path, doc: doc, bom: doc.HasBOM, edits: f.Edits, safe: safe(d.Code)}
}

// agentFix returns the preferred fix of a diagnostic of the agent file f,
// or nil.
func agentFix(f *agentfiles.File, d *diag.Diagnostic) *fileFix {
	fx, ok := d.Preferred()
	if !ok {
		return nil
	}
	return &fileFix{path: f.Path, text: f.Text, bom: f.Doc != nil && f.Doc.HasBOM, edits: fx.Edits, safe: safe(d.Code)}
}

func safe(code string) bool {
	r, _ := diag.Lookup(code)
	return r.Fix == diag.Safe
}

// change is what the fixes of one pass, or of every pass, make of one
// file.
type change struct {
	path string // the file written: absolute, symbolic links resolved
	rel  string // path relative to the workspace, slash-separated
	old  []byte // the whole file as read, byte order mark included
	new  []byte // the whole file as fixed
	// origin is the path the fixes were found at, path or a link to it.
	origin string
}

// planFixes computes what the fixes the records offer, fixes[i] that of
// records[i] (the safe ones, or all with unsafe), make of each file, and
// writes nothing. A fix that overlaps one already taken in its file waits
// for the next pass. A file reached by several paths (links to it) is
// fixed only as the check sees it at its own path when the check reads
// it there, or else as all the links see it alike: two paths that name
// one file (a topic linked into two domains) would otherwise fix it by
// turns, each with its own domain's id. A file whose links disagree, or
// that has several hard links (which writing it anew would separate), is
// left as it is and returned in conflicts. The changes are sorted by rel.
func planFixes(ctx context.Context, root *fsguard.Root, records []ops.Diagnostic, fixes []*fileFix, unsafe bool, paths *readPaths) (changes []change, conflicts []conflict, err error) {
	byFile := map[string]*fileFix{}
	var order []string
	for i, r := range records {
		f := fixes[i]
		if f == nil || (!f.safe && !unsafe) {
			continue
		}
		acc := byFile[f.path]
		if acc == nil {
			acc = &fileFix{path: f.path, rel: r.File, text: f.text, doc: f.doc, bom: f.bom}
			byFile[f.path] = acc
			order = append(order, f.path)
		}
		if acc.doc != f.doc || !bytes.Equal(acc.text, f.text) || overlapsAny(acc.edits, f.edits) {
			continue
		}
		acc.edits = append(acc.edits, f.edits...)
	}
	slices.Sort(order)
	byTarget := map[string]change{}
	settled := map[string]bool{} // targets whose links were judged together
	for _, p := range order {
		f := byFile[p]
		target, rel, err := root.Target(p)
		switch {
		case errors.Is(err, fsguard.ErrOutsideWorkspace):
			continue // a link out of the workspace: never written
		case err != nil:
			return nil, nil, fmt.Errorf("fix %s: %w", f.rel, err)
		}
		own := filepath.Join(root.Dir(), filepath.FromSlash(rel))
		if p != target && (paths.known(target) || paths.known(own)) {
			continue
		}
		if c, ok := byTarget[target]; ok && (c.path == c.origin || p != target) {
			continue
		}
		if settled[target] {
			continue
		}
		out, err := f.apply(ctx)
		if err != nil {
			return nil, nil, err
		}
		if p != target {
			// Read only through links: each link must make the same of it.
			links := paths.linksTo(root, rel)
			if len(links) > 1 {
				settled[target] = true
				same, err := sameResult(ctx, byFile, links, f.text, out)
				if err != nil {
					return nil, nil, err
				}
				if !same {
					conflicts = append(conflicts, conflict{rel: rel, why: "the fixes of its links " + strings.Join(relsOf(root, links), " and ") + " disagree (each sees it in its own place)"})
					continue
				}
			}
		}
		if bytes.Equal(out, f.text) {
			continue
		}
		// A file larger than the text and its byte order mark changed.
		disk, fi, err := root.ReadFileInfo(ctx, p, int64(len(f.text))+3)
		if big := (*fsguard.TooLargeError)(nil); errors.As(err, &big) {
			return nil, nil, fmt.Errorf("fix %s: the file changed while it was checked; run again", f.rel)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("fix %s: %w", f.rel, err)
		}
		if n := hardLinks(fi); n > 1 {
			conflicts = append(conflicts, conflict{rel: rel, why: fmt.Sprintf("it has %d hard links, which writing it anew would make separate files", n)})
			continue
		}
		if f.bom {
			out = append([]byte(bom), out...)
		}
		if !bytes.Equal(bytes.TrimPrefix(disk, []byte(bom)), f.text) || f.bom != bytes.HasPrefix(disk, []byte(bom)) {
			return nil, nil, fmt.Errorf("fix %s: the file changed while it was checked; run again", f.rel)
		}
		byTarget[target] = change{path: target, rel: rel, old: disk, new: out, origin: p}
	}
	changes = make([]change, 0, len(byTarget))
	for _, c := range byTarget {
		changes = append(changes, c)
	}
	slices.SortFunc(changes, func(a, b change) int { return strings.Compare(a.rel, b.rel) })
	return changes, conflicts, nil
}

// conflict is a file the fixes leave as it is, and why.
type conflict struct {
	rel string // relative to the workspace, slash-separated
	why string
}

// apply returns f's text with its edits applied; it reads the text back
// when f holds a document instead.
func (f *fileFix) apply(ctx context.Context) ([]byte, error) {
	if f.doc != nil && f.text == nil {
		text, err := f.doc.Content(ctx)
		if err != nil {
			return nil, fmt.Errorf("fix %s: %w; run again", f.rel, err)
		}
		f.text = text
	}
	out, err := agentfiles.ApplyEdits(f.text, lineEndingsOf(f.text, f.edits))
	if err != nil {
		return nil, fmt.Errorf("fix %s: %w", f.rel, err)
	}
	return keepFinalNewline(f.text, out), nil
}

// sameResult reports whether every one of links, paths of one file whose
// text is text, makes out of it: a link without fixes leaves it as it
// is.
func sameResult(ctx context.Context, byFile map[string]*fileFix, links []string, text, out []byte) (bool, error) {
	for _, l := range links {
		g := byFile[l]
		if g == nil {
			if !bytes.Equal(out, text) {
				return false, nil
			}
			continue
		}
		o, err := g.apply(ctx)
		if err != nil {
			return false, err
		}
		if !bytes.Equal(o, out) {
			return false, nil
		}
	}
	return true, nil
}

// relsOf returns paths relative to the workspace, slash-separated.
func relsOf(root *fsguard.Root, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, ok := fsguard.Rel(root.Dir(), p); ok {
			out[i] = rel
		}
	}
	return out
}

const bom = "\xef\xbb\xbf"

// lineEndingsOf returns the edits with the line breaks of the text they
// edit: in a file whose lines end in CRLF, the lines a fix adds do too.
func lineEndingsOf(text []byte, edits []diag.Edit) []diag.Edit {
	i := bytes.IndexByte(text, '\n')
	if i <= 0 || text[i-1] != '\r' {
		return edits
	}
	out := make([]diag.Edit, len(edits))
	for j, e := range edits {
		e.NewText = strings.ReplaceAll(strings.ReplaceAll(e.NewText, "\r\n", "\n"), "\n", "\r\n")
		out[j] = e
	}
	return out
}

// keepFinalNewline gives out the final line break text has, or has not.
func keepFinalNewline(text, out []byte) []byte {
	if len(text) == 0 || len(out) == 0 {
		return out
	}
	had, has := text[len(text)-1] == '\n', out[len(out)-1] == '\n'
	switch {
	case had && !has:
		eol := "\n"
		if bytes.HasSuffix(text, []byte("\r\n")) {
			eol = "\r\n"
		}
		return append(out, eol...)
	case !had && has:
		out = out[:len(out)-1]
		return bytes.TrimSuffix(out, []byte("\r"))
	}
	return out
}

func overlapsAny(have, add []diag.Edit) bool {
	for _, a := range add {
		for _, h := range have {
			if a.Span.Start < h.Span.End && h.Span.Start < a.Span.End || a.Span == h.Span {
				return true
			}
		}
	}
	return false
}

// commonEnds counts the lines a and b share at their start and, of the
// rest, at their end.
func commonEnds(a, b []string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// diffContext is the number of unchanged lines around a change.
const diffContext = 3

// fileDiff renders the change of the file rel from old to new as a
// unified diff that git apply accepts: hunks of the lines that differ,
// with diffContext unchanged lines around each.
func fileDiff(rel string, old, new []byte) string {
	a, b := splitLines(old), splitLines(new)
	// The lines both begin and end with need no table.
	pre, suf := commonEnds(a, b)
	var ops []diffOp
	for i := range pre {
		ops = append(ops, diffOp{' ', a[i]})
	}
	ops = append(ops, lineDiff(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for i := len(a) - suf; i < len(a); i++ {
		ops = append(ops, diffOp{' ', a[i]})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", rel, rel)
	// Each hunk runs from diffContext lines before a change to
	// diffContext lines after the last change closer than twice that.
	oldLine, newLine := 0, 0 // lines before ops[i]
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i, oldLine, newLine = i+1, oldLine+1, newLine+1
			continue
		}
		from := max(0, i-diffContext)
		for k := from; k < i; k++ { // the context was counted: take it back
			oldLine, newLine = oldLine-1, newLine-1
		}
		to := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				to = j
				continue
			}
			if j-to > 2*diffContext {
				break
			}
		}
		end := min(len(ops), to+1+diffContext)
		oldN, newN := 0, 0
		var body strings.Builder
		for _, op := range ops[from:end] {
			if op.kind != '+' {
				oldN++
			}
			if op.kind != '-' {
				newN++
			}
			body.WriteByte(op.kind)
			body.WriteString(op.line)
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		out.WriteString(body.String())
		oldLine, newLine = oldLine+oldN, newLine+newN
		i = end
	}
	return out.String()
}

// hunkRange is one side of a hunk header: start is the count of lines
// before the hunk.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffOp is one line of a diff: kept (' '), removed ('-') or added ('+').
type diffOp struct {
	kind byte
	line string
}

// maxLineDiff bounds the lines × lines table of lineDiff; past it the
// region is shown as removed, then added.
const maxLineDiff = 1 << 20

// lineDiff returns the change from a to b: lines both keep as context,
// the others removed or added, by their longest common subsequence.
func lineDiff(a, b []string) []diffOp {
	var out []diffOp
	if len(a)*len(b) > maxLineDiff {
		for _, l := range a {
			out = append(out, diffOp{'-', l})
		}
		for _, l := range b {
			out = append(out, diffOp{'+', l})
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, diffOp{'-', a[i]})
			i++
		default:
			out = append(out, diffOp{'+', b[j]})
			j++
		}
	}
	return out
}

// splitLines splits text into lines that keep their terminator; a last
// line without one gets the diff marker for it.
func splitLines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text)+"\n\\ No newline at end of file\n")
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}
