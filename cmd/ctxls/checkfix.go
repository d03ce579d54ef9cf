package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/fsguard"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/refactor"
	"github.com/ctxls/ctxls/providers/context/rules"
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
	edits []agentfiles.Edit
	safe  bool
}

// libraryFix returns the preferred fix of a library diagnostic, or nil.
func libraryFix(p string, doc *document.Doc, d library.Diagnostic) *fileFix {
	if d.Fix == nil {
		return nil
	}
	for _, f := range refactor.Fixes([]library.Diagnostic{d}, d.Span.Start, d.Span.End) {
		if !f.Preferred {
			continue
		}
		ff := &fileFix{path: p, doc: doc, bom: doc.HasBOM, safe: safe(d.Code)}
		for _, e := range f.Edits {
			ff.edits = append(ff.edits, agentfiles.Edit{Span: e.Span, NewText: e.NewText})
		}
		return ff
	}
	return nil
}

// agentFix returns the fix of an agent-file diagnostic, or nil.
func agentFix(f *agentfiles.File, d agentfiles.Diagnostic) *fileFix {
	if d.Fix == nil {
		return nil
	}
	return &fileFix{path: f.Path, text: f.Text, bom: f.Doc != nil && f.Doc.HasBOM, edits: d.Fix.Edits, safe: safe(d.Code)}
}

func safe(code string) bool {
	r, _ := rules.Lookup(code)
	return r.Fix == rules.Safe
}

// applyFixes applies the fixes the records offer, fixes[i] that of
// records[i] (the safe ones, or all with unsafe), file by file, or with
// dryRun prints them as a unified diff. A fix that overlaps one already
// taken in its file waits for the next run.
// It returns how many files change. A file is read back through root's
// check before it is written: a file a link out of the workspace has
// replaced meanwhile is not written.
func applyFixes(root *fsguard.Root, records []ops.Diagnostic, fixes []*fileFix, unsafe, dryRun bool, stdout io.Writer) (int, error) {
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
	changed := 0
	for _, p := range order {
		f := byFile[p]
		if f.doc != nil {
			text, err := f.doc.Content(context.Background())
			if err != nil {
				return changed, fmt.Errorf("fix %s: %w; run again", f.rel, err)
			}
			f.text = text
		}
		out, err := agentfiles.ApplyEdits(f.text, f.edits)
		if err != nil {
			return changed, fmt.Errorf("fix %s: %w", f.rel, err)
		}
		if bytes.Equal(out, f.text) {
			continue
		}
		changed++
		if dryRun {
			io.WriteString(stdout, unifiedDiff(f.rel, f.text, f.edits))
			continue
		}
		// A file larger than the text and its byte order mark changed.
		disk, err := root.ReadFile(context.Background(), p, int64(len(f.text))+3)
		if big := (*fsguard.TooLargeError)(nil); errors.As(err, &big) {
			return changed, fmt.Errorf("fix %s: the file changed while it was checked; run again", f.rel)
		}
		if err != nil {
			return changed, fmt.Errorf("fix %s: %w", f.rel, err)
		}
		if f.bom {
			out = append([]byte("\xef\xbb\xbf"), out...)
			disk = bytes.TrimPrefix(disk, []byte("\xef\xbb\xbf"))
		}
		if !bytes.Equal(disk, f.text) {
			return changed, fmt.Errorf("fix %s: the file changed while it was checked; run again", f.rel)
		}
		info, err := os.Stat(p)
		if err != nil {
			return changed, fmt.Errorf("fix %s: %w", f.rel, err)
		}
		if err := os.WriteFile(p, out, info.Mode().Perm()); err != nil {
			return changed, fmt.Errorf("fix %s: %w", f.rel, err)
		}
	}
	return changed, nil
}

func overlapsAny(have, add []agentfiles.Edit) bool {
	for _, a := range add {
		for _, h := range have {
			if a.Span.Start < h.Span.End && h.Span.Start < a.Span.End || a.Span == h.Span {
				return true
			}
		}
	}
	return false
}

// diffContext is the number of unchanged lines around a change.
const diffContext = 3

// unifiedDiff renders the edits of text as a unified diff of the file
// rel, one hunk per group of edits that are near one another.
func unifiedDiff(rel string, text []byte, edits []agentfiles.Edit) string {
	es := slices.Clone(edits)
	slices.SortFunc(es, func(a, b agentfiles.Edit) int { return a.Span.Start - b.Span.Start })
	lines := document.NewLines(text)
	// The line range [first, last] each edit touches.
	type group struct {
		first, last int
		edits       []agentfiles.Edit
	}
	var groups []group
	for _, e := range es {
		first := lines.LineOf(e.Span.Start)
		last := lines.LineOf(max(e.Span.Start, e.Span.End-1))
		if n := len(groups); n > 0 && first <= groups[n-1].last+2*diffContext+1 {
			groups[n-1].last = max(groups[n-1].last, last)
			groups[n-1].edits = append(groups[n-1].edits, e)
			continue
		}
		groups = append(groups, group{first, last, []agentfiles.Edit{e}})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", rel, rel)
	count := lines.Count()
	if len(text) > 0 && text[len(text)-1] == '\n' {
		count-- // no line after the last line break
	}
	delta := 0
	for _, g := range groups {
		from, to := max(0, g.first-diffContext), min(count-1, g.last+diffContext)
		start, end := lines.Start(g.first), lineEnd(lines, text, g.last)
		region := text[start:end]
		shifted := make([]agentfiles.Edit, len(g.edits))
		for i, e := range g.edits {
			shifted[i] = agentfiles.Edit{Span: document.Span{Start: e.Span.Start - start, End: e.Span.End - start}, NewText: e.NewText}
		}
		newRegion, err := agentfiles.ApplyEdits(region, shifted)
		if err != nil {
			continue
		}
		oldLines, newLines := splitLines(region), splitLines(newRegion)
		before, after := splitLines(text[lines.Start(from):start]), splitLines(text[end:lineEnd(lines, text, to)])
		oldN := len(before) + len(oldLines) + len(after)
		newN := len(before) + len(newLines) + len(after)
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", from+1, oldN, from+1+delta, newN)
		delta += len(newLines) - len(oldLines)
		for _, l := range before {
			b.WriteString(" " + l)
		}
		b.WriteString(lineDiff(oldLines, newLines))
		for _, l := range after {
			b.WriteString(" " + l)
		}
	}
	return b.String()
}

// maxLineDiff bounds the lines × lines table of lineDiff; past it the
// region is shown as removed, then added.
const maxLineDiff = 1 << 20

// lineDiff renders the change from a to b: lines both keep as context,
// the others removed or added, by their longest common subsequence.
func lineDiff(a, b []string) string {
	var out strings.Builder
	if len(a)*len(b) > maxLineDiff {
		for _, l := range a {
			out.WriteString("-" + l)
		}
		for _, l := range b {
			out.WriteString("+" + l)
		}
		return out.String()
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
			out.WriteString(" " + a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("-" + a[i])
			i++
		default:
			out.WriteString("+" + b[j])
			j++
		}
	}
	return out.String()
}

// lineEnd is the offset after line n's terminator.
func lineEnd(lines *document.Lines, text []byte, n int) int {
	if n+1 < lines.Count() {
		return lines.Start(n + 1)
	}
	return len(text)
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
