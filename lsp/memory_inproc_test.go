package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
)

// Memory files get the problems of their imports from the first
// publication on, a file an import loads gets the problems of its own
// imports, both follow the editor's text, and the cut import has its fix.
func TestInprocMemoryDiagnostics(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		"CLAUDE.md":      "# Memory\n\nSee @docs/guide.md: first.\nAnd @docs/more.md\n",
		"docs/guide.md":  "# Guide\n",
		"docs/more.md":   "More: @gone.md\n",
		"context/p/x.md": "# X\n",
	}, inprocOptions{})
	memURI := c.uri("CLAUDE.md")
	moreURI := c.uri("docs/more.md")
	d := c.waitDiagnostics(memURI, diagCodes("import-trailing-punctuation"))
	if r := d.Diagnostics[0].Range; r.Start.Line != 2 || r.Start.Character != 4 || int(r.End.Character) != 4+len("@docs/guide.md:") {
		t.Errorf("range %+v, want 2:4 to the colon", r)
	}
	c.waitDiagnostics(moreURI, diagCodes("import-missing"))

	var actions []struct {
		Title string
		Edit  inprocEdit
	}
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": memURI},
		"range": d.Diagnostics[0].Range, "context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}}}, &actions)
	if len(actions) != 1 || len(actions[0].Edit.Changes[memURI]) != 1 || actions[0].Edit.Changes[memURI][0].NewText != " " {
		t.Fatalf("code actions: %+v", actions)
	}

	// Fixing the colon in the editor clears it; dropping the import of
	// docs/more.md clears that file's problem, which no session loads now.
	c.open("CLAUDE.md", "# Memory\n\nSee @docs/guide.md : first.\n")
	c.waitDiagnostics(memURI, diagCodes())
	c.waitDiagnostics(moreURI, diagCodes())
	// An import added in the editor is checked at once.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": memURI, "version": 2},
		"contentChanges": []any{map[string]any{"text": "# Memory\n\n@docs/none.md\n"}}})
	c.waitDiagnostics(memURI, diagCodes("import-missing"))
}

// Moving a file or folder rewrites the @imports that name it and the
// relative imports the moved file makes.
func TestInprocMemoryRename(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"CLAUDE.md":      "# Memory\n\nSee @docs/guide.md: and @./docs/more.md\n@sub/x.md and `@docs/guide.md`\n",
		"docs/guide.md":  "guide\n",
		"docs/more.md":   "more\n",
		"sub/x.md":       "x uses @../docs/guide.md\n",
		"context/p/y.md": "# Y\n",
	}
	tests := []struct {
		from, to string
		want     map[string]string
	}{
		{"docs", "notes", map[string]string{
			"CLAUDE.md": "# Memory\n\nSee @notes/guide.md: and @./notes/more.md\n@sub/x.md and `@docs/guide.md`\n",
			"sub/x.md":  "x uses @../notes/guide.md\n",
		}},
		{"sub/x.md", "sub/deeper/x y.md", map[string]string{
			"CLAUDE.md": "# Memory\n\nSee @docs/guide.md: and @./docs/more.md\n@sub/deeper/x\\ y.md and `@docs/guide.md`\n",
			"sub/x.md":  "x uses @../../docs/guide.md\n",
		}},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		testtree.WriteFiles(t, dir, files)
		c := inprocStart(t, dir, inprocOptions{})
		var edit inprocEdit
		c.mustCall("workspace/willRenameFiles", map[string]any{"files": []any{map[string]any{
			"oldUri": c.uri(tc.from), "newUri": c.uri(tc.to)}}}, &edit)
		inprocApply(t, edit)
		for rel, want := range tc.want {
			if data := c.read(rel); data != want {
				t.Errorf("moving %s to %s: %s is\n%q\nwant\n%q", tc.from, tc.to, rel, data, want)
			}
		}
	}
}

// A file an import loads, changed on disk, is checked again when the
// client reports it.
func TestInprocMemoryDiskChange(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		"CLAUDE.md":    "# Memory\n\n@docs/more.md\n",
		"docs/more.md": "More: @gone.md\n",
	}, inprocOptions{})
	dir := c.root
	more := filepath.Join(dir, "docs/more.md")
	c.waitDiagnostics(string(uriOf(more)), diagCodes("import-missing"))
	testtree.WriteFiles(t, dir, map[string]string{"docs/more.md": "More, and nothing else.\n"})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": string(uriOf(more)), "type": 2}}})
	c.waitDiagnostics(string(uriOf(more)), diagCodes())
}

// In a file a memory file imports, imports are links too, and hover tells
// their cost.
func TestInprocImportedFileFeatures(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		"CLAUDE.md":     "# Memory\n\n@docs/guide.md\n",
		"docs/guide.md": "Guide, then @more.md\n",
		"docs/more.md":  "More.\n",
		"docs/other.md": "Not imported: @more.md\n",
	}, inprocOptions{})
	// The trees are known once the first publication has checked them.
	guide := c.uri("docs/guide.md")
	var links []struct {
		Target string `json:"target"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(links) == 0 && time.Now().Before(deadline) {
		c.mustCall("textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": guide}}, &links)
		if len(links) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(links) != 1 || !strings.HasSuffix(links[0].Target, "docs/more.md") {
		t.Fatalf("links in docs/guide.md: %+v, want one to docs/more.md", links)
	}
	var h struct {
		Contents struct{ Value string } `json:"contents"`
	}
	text := "Guide, then @more.md\n"
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": guide}, "position": inprocPos(t, text, "@more", 2, false)}, &h)
	if !strings.Contains(h.Contents.Value, "`docs/more.md`") || strings.Contains(h.Contents.Value, "hop") {
		t.Errorf("hover %q", h.Contents.Value)
	}
	c.mustCall("textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": c.uri("docs/other.md")}}, &links)
	if len(links) != 0 {
		t.Errorf("a file no memory file imports has import links: %+v", links)
	}
}
