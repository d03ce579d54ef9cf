package lsp

import (
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

// TestInprocChangeVersionAndData checks that an incremental change with a
// UTF-16 range that fixes a reference clears its diagnostic at the
// change's version, and that a diagnostic's data names its code only, so
// that its fix is recomputed from the text. The diagnostics and their
// fixes are the fixture testdata/requests/library/fixes.txtar.
func TestInprocChangeVersionAndData(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	text := "# Notes\n\n😀 中文 see python:django here\n"
	u := c.open("commands/notes.md", text)
	d := c.waitDiagnostics(u, diagCodes("unresolved-reference"))
	if data := string(d.Diagnostics[0].Data); data != `{"code":"unresolved-reference"}` {
		t.Errorf("diagnostic data = %s, want the code only", data)
	}
	end := inprocPos(t, text, "django here", len("django"), false)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": end, "end": end}, "text": "_patterns"}}})
	d = c.waitDiagnostics(u, diagCodes())
	if d.Version == nil || *d.Version != 2 {
		t.Errorf("cleared diagnostics carry version %v, want 2", d.Version)
	}
	// The drift's fix too is recomputed: the data holds no number.
	d = c.waitDiagnostics(c.open("context/python/django_patterns.md"), diagHas("token-drift"))
	for _, x := range d.Diagnostics {
		if x.Code == "token-drift" && string(x.Data) != `{"code":"token-drift"}` {
			t.Errorf("token-drift data = %s, want the code only", x.Data)
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
