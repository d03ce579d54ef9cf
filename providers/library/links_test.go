package library

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
)

// TestPlainLinksFromIndexedText checks that the links of a plain markdown
// file are judged as they are in the text the library indexed, which the
// check does not read again: the file is gone from the disk by then.
func TestPlainLinksFromIndexedText(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"README.md":     "# Title\n\nSee [a](missing.md), [b](#nowhere), [c](#title) and [d](docs/guide.md).\n",
		"docs/guide.md": "# Guide\n",
	})
	l := load(t, dir, nil)
	readme := filepath.Join(dir, "README.md")
	if err := os.Remove(readme); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range l.Snapshot().Diagnose(readme) {
		if d.Code == diag.MarkdownLinkBroken {
			got = append(got, d.Message)
		}
	}
	want := []string{
		"missing.md names no file (looked for missing.md)",
		"#nowhere names no heading or anchor of this file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("link diagnostics of the indexed README = %q, want %q", got, want)
	}
}
