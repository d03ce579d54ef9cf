package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// renderSnapshot renders what a snapshot shows: the library with its
// diagnostics, and the open documents.
func renderSnapshot(s *Snapshot) string {
	open := map[string]string{}
	for _, p := range s.OpenPaths() {
		text, version, _ := s.Overlay(p)
		open[filepath.Base(p)] = fmt.Sprintf("%d %q", version, text)
	}
	return fmt.Sprintf("%sopen %v\n", snapshot(s.Library()), open)
}

// unwatched is the option of open for a workspace whose disk changes a
// test applies itself.
func unwatched(o *Options) { o.Watch = false }

// TestSnapshotUnchangedByEdits takes a snapshot before each of a series of
// editor and disk changes and checks that it shows after the change what
// it showed before (library, diagnostics, open documents), while the
// workspace's next snapshot shows the change.
func TestSnapshotUnchangedByEdits(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/a.md": "# A\n\npython:b\n",
		"context/python/b.md": "# B\n",
	})
	w := open(t, dir, nil, unwatched)
	a, b, c := filepath.Join(dir, "context/python/a.md"), filepath.Join(dir, "context/python/b.md"), filepath.Join(dir, "context/python/c.md")
	fromDisk := func(p string) {
		w.applyMu.Lock()
		defer w.applyMu.Unlock()
		w.applyPaths(t.Context(), []string{p}, false)
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"open with a broken reference", func() { w.DidOpen(a, "# A\n\npython:c\n", 1) }},
		{"a new file on disk fixes it", func() {
			testtree.WriteFiles(t, dir, map[string]string{"context/python/c.md": "# C\n"})
			fromDisk(c)
		}},
		{"edit back", func() { w.DidChange(a, "# A\n\npython:b\n", 2) }},
		{"close", func() { w.DidClose(a) }},
		{"a file goes from disk", func() {
			if err := os.Remove(b); err != nil {
				t.Fatal(err)
			}
			fromDisk(b)
		}},
	}
	for _, st := range steps {
		s := w.Snapshot()
		before := renderSnapshot(s)
		st.do()
		if got := renderSnapshot(s); got != before {
			t.Errorf("%s: the snapshot taken before changed (- before, + after):\n%s", st.name, diffLines(before, got))
		}
		if renderSnapshot(w.Snapshot()) == before {
			t.Errorf("%s: the next snapshot shows no change", st.name)
		}
	}
}

// TestOpenIndexedTextKeepsDiagnostics opens a document with the text the
// library indexed, and changes it to that text again: the diagnostics
// worked out before are reused, not worked out again, as a dense document
// costs seconds to diagnose. A real edit is diagnosed anew.
func TestOpenIndexedTextKeepsDiagnostics(t *testing.T) {
	t.Parallel()
	text := "# A\n\nSee python:missing and python:gone.\n"
	dir := libtest.WriteTree(t, map[string]string{"context/python/a.md": text})
	w := open(t, dir, nil, unwatched)
	a := filepath.Join(dir, "context/python/a.md")
	first := w.Snapshot().Library().Diagnose(a)
	if len(first) == 0 {
		t.Fatal("no diagnostics for the broken references")
	}
	same := func(ds []diag.Diagnostic) bool { return len(ds) > 0 && &ds[0] == &first[0] }
	w.DidOpen(a, text, 1)
	if !same(w.Snapshot().Library().Diagnose(a)) {
		t.Error("didOpen with the indexed text diagnosed the document again")
	}
	w.DidChange(a, text, 2)
	if !same(w.Snapshot().Library().Diagnose(a)) {
		t.Error("didChange to the indexed text diagnosed the document again")
	}
	w.DidChange(a, text+"\npython:other\n", 3)
	if ds := w.Snapshot().Library().Diagnose(a); same(ds) || len(ds) != len(first)+1 {
		t.Errorf("after an edit: %d diagnostics, reused %v; want %d, worked out anew", len(ds), same(ds), len(first)+1)
	}
}
