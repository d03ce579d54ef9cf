package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// inprocEdit is a workspace edit as the client receives it.
type inprocEdit struct {
	Changes         map[string][]inprocTextEdit `json:"changes"`
	DocumentChanges []struct {
		Kind         string `json:"kind"`
		OldURI       string `json:"oldUri"`
		NewURI       string `json:"newUri"`
		TextDocument struct {
			URI     string `json:"uri"`
			Version *int32 `json:"version"`
		} `json:"textDocument"`
		Edits []inprocTextEdit `json:"edits"`
	} `json:"documentChanges"`
}

type inprocTextEdit struct {
	Range struct {
		Start struct{ Line, Character int }
		End   struct{ Line, Character int }
	} `json:"range"`
	NewText string `json:"newText"`
}

// inprocApply applies an edit's text changes to the files on disk (UTF-16
// positions) and returns the file renames it asks for.
func inprocApply(t *testing.T, e inprocEdit) (renames [][2]string) {
	t.Helper()
	byURI := map[string][]inprocTextEdit{}
	for u, es := range e.Changes {
		byURI[u] = append(byURI[u], es...)
	}
	for _, dc := range e.DocumentChanges {
		if dc.Kind == "rename" {
			renames = append(renames, [2]string{dc.OldURI, dc.NewURI})
			continue
		}
		byURI[dc.TextDocument.URI] = append(byURI[dc.TextDocument.URI], dc.Edits...)
	}
	for u, es := range byURI {
		p, err := pathOfString(u)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		offset := func(line, char int) int {
			off := 0
			for i := 0; i < line; i++ {
				off += len(lines[i])
			}
			units := 0
			for i, r := range lines[line] {
				if units >= char {
					return off + i
				}
				units++
				if r >= 0x10000 {
					units++
				}
			}
			return off + len(lines[line])
		}
		sort.Slice(es, func(i, j int) bool {
			a, b := es[i].Range.Start, es[j].Range.Start
			return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
		})
		text := string(data)
		for _, te := range es {
			s, e := offset(te.Range.Start.Line, te.Range.Start.Character), offset(te.Range.End.Line, te.Range.End.Character)
			text = text[:s] + te.NewText + text[e:]
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return renames
}

// TestInprocRename applies a rename's edits and its file rename as a
// client does and reads the files after; the answers to prepareRename and
// rename, and the names refused, are the fixture
// testdata/requests/library/rename.txtar.
func TestInprocRename(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	u := c.open("commands/notes.md", inprocNoteText)
	testtree.WriteFiles(t, dir, map[string]string{"commands/notes.md": inprocNoteText})
	pos := inprocPos(t, inprocNoteText, "python:fastapi_patterns for", 10, false)

	var edit inprocEdit
	c.mustCall("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": u}, "position": pos, "newName": "fastapi_guide"}, &edit)
	renames := inprocApply(t, edit)
	if len(renames) != 1 || !strings.HasSuffix(renames[0][1], "/context/python/fastapi_guide.md") {
		t.Fatalf("renames: %v", renames)
	}
	for _, dc := range edit.DocumentChanges {
		if dc.TextDocument.URI == u && (dc.TextDocument.Version == nil || *dc.TextDocument.Version != 1) {
			t.Errorf("the open document's edit carries version %v, want 1", dc.TextDocument.Version)
		}
	}
	old, _ := pathOfString(renames[0][0])
	if err := os.Rename(old, filepath.Join(dir, "context/python/fastapi_guide.md")); err != nil {
		t.Fatal(err)
	}
	checks := map[string][]string{
		"commands/implement.md":               {"python/fastapi_guide,", `getConditionalContext("python", "fastapi_guide")`, "`python:fastapi_guide#Dependency Injection`", `getCachedContext(state, "python", "fastapi_guide")`},
		"commands/review.md":                  {"context/python/fastapi_guide.md", "python:fastapi_guide#Security Issues"},
		"commands/notes.md":                   {"see python:fastapi_guide for", "python:fastapi_guide#Dependency"},
		"context/python/index.md":             {"{id: python/fastapi_guide, path: fastapi_guide.md"},
		"context/python/fastapi_guide.md":     {"id: python/fastapi_guide\n"},
		"context/python/context_detection.md": {"`fastapi_guide.md`"},
	}
	for rel, wants := range checks {
		text := c.read(rel)
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q after the rename", rel, w)
			}
		}
		if strings.Contains(text, "fastapi_patterns") && rel != "commands/review.md" {
			t.Errorf("%s still mentions fastapi_patterns", rel)
		}
	}

}

func TestInprocDiagnosticsAndFixes(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	implement := c.uri("commands/implement.md")
	// Workspace diagnostics arrive after the initial index, unopened files included.
	d := c.waitDiagnostics(implement, anyDiagnostics)
	if d.Diagnostics[0].Code != "unresolved-reference" {
		t.Fatalf("implement.md: %+v", d)
	}

	text := "# Notes\n\n😀 中文 see python:django here\n"
	u := c.open("commands/notes.md", text)
	d = c.waitDiagnostics(u, func(d inprocDiagnostics) bool { return len(d.Diagnostics) == 1 })
	got := d.Diagnostics[0]
	start := inprocPos(t, text, "django here", 0, false)
	if got.Code != "unresolved-reference" || got.Range.Start.Line != 2 || int(got.Range.Start.Character) != start["character"] {
		t.Errorf("diagnostic %+v, want unresolved-reference at %v", got, start)
	}

	// The quick fix offers the close name.
	var actions []struct {
		Title string
		Edit  inprocEdit
	}
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u},
		"range":   map[string]any{"start": map[string]any{"line": 2, "character": start["character"]}, "end": map[string]any{"line": 2, "character": start["character"]}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) == 0 || actions[0].Title != "Change to 'django_patterns'" {
		t.Fatalf("code actions: %+v", actions)
	}

	// Fixing the text clears the diagnostics (incremental change, UTF-16 range).
	end := inprocPos(t, text, "django here", len("django"), false)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": end, "end": end}, "text": "_patterns"}}})
	d = c.waitDiagnostics(u, diagCodes())
	if d.Version == nil || *d.Version != 2 {
		t.Errorf("cleared diagnostics carry version %v, want 2", d.Version)
	}

	// Token drift: the fix rewrites the declared number.
	django := c.open("context/python/django_patterns.md")
	d = c.waitDiagnostics(django, func(d inprocDiagnostics) bool {
		for _, x := range d.Diagnostics {
			if x.Code == "token-drift" {
				return true
			}
		}
		return false
	})
	var drift inprocDiagnostics
	for _, x := range d.Diagnostics {
		if x.Code == "token-drift" {
			drift.Diagnostics = append(drift.Diagnostics, x)
		}
	}
	r := drift.Diagnostics[0].Range
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": django},
		"range": r, "context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}}}, &actions)
	if len(actions) == 0 || !strings.HasPrefix(actions[0].Title, "Update declared tokens to ") {
		t.Fatalf("drift actions: %+v", actions)
	}
	// The data names the code only: the fix is recomputed from the text.
	var data json.RawMessage = drift.Diagnostics[0].Data
	if string(data) != `{"code":"token-drift"}` {
		t.Errorf("diagnostic data = %s", data)
	}
}

func TestInprocAddFrontmatter(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		"context/go/errors.md": "# Error Handling\n\nWrap errors with context.\n\n## Wrapping\n\nUse %w.\n\n## Sentinels\n\nCompare with errors.Is.\n",
	}, inprocOptions{})
	u := c.open("context/go/errors.md")
	var actions []struct {
		Title string
		Kind  string
		Edit  inprocEdit
	}
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	var add *inprocEdit
	for i := range actions {
		if actions[i].Kind == string(kindAddFrontmatter) {
			add = &actions[i].Edit
		}
	}
	if add == nil {
		t.Fatalf("no add-frontmatter action among %+v", actions)
	}
	inprocApply(t, *add)
	data := c.read("context/go/errors.md")
	for _, want := range []string{"---\nid: go/errors\n", "title: Error Handling\n", "  - name: Wrapping\n", "loadingStrategy: onDemand\n"} {
		if !strings.Contains(data, want) {
			t.Errorf("frontmatter lacks %q:\n%s", want, data)
		}
	}
}

func TestInprocRenameWithoutResourceOperations(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{capabilities: map[string]any{"workspace": map[string]any{}}})
	u := c.open("commands/notes.md", inprocNoteText)
	var edit inprocEdit
	c.mustCall("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": u},
		"position": inprocPos(t, inprocNoteText, "python:fastapi_patterns for", 10, false), "newName": "fastapi_guide"}, &edit)
	if len(edit.DocumentChanges) != 0 || len(edit.Changes) < 5 {
		t.Fatalf("edit for a client without documentChanges: %+v", edit)
	}
	implement := c.uri("commands/implement.md")
	if len(edit.Changes[implement]) < 5 {
		t.Errorf("implement.md edits: %+v", edit.Changes[implement])
	}
	// The user is told to rename the file.
	c.waitNote("window/showMessage", noteContains("fastapi_guide.md yourself"))
}

// TestInprocDuplicateTopicRelated checks that the diagnostic of a topic
// defined twice points at the definition used, as related information.
func TestInprocDuplicateTopicRelated(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		"context/python/a.md":      "# A\n\nText.\n",
		"docs/context/python/a.md": "---\ndomain: python\n---\n# A\n\nText.\n",
	}, inprocOptions{})
	type diagnostic = struct {
		URI string
		inprocDiagnostic
	}
	var got *diagnostic
	c.waitNote("textDocument/publishDiagnostics", func(raw json.RawMessage) bool {
		var d inprocDiagnostics
		if json.Unmarshal(raw, &d) != nil {
			return false
		}
		for _, x := range d.Diagnostics {
			if x.Code == "duplicate-topic" {
				got = &diagnostic{d.URI, x}
				return true
			}
		}
		return false
	})
	other := c.uri("context/python/a.md")
	if got.URI == other {
		other = c.uri("docs/context/python/a.md")
	}
	if len(got.Related) != 1 {
		t.Fatalf("diagnostic %+v, want one related place", got)
	}
	if r := got.Related[0]; r.Location.URI != other || r.Location.Range.Start.Line != 0 || r.Message == "" {
		t.Errorf("related %+v, want the start of %s", r, other)
	}
}
