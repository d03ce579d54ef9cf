package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// inprocNoteText is written with an emoji and CJK text before each
// reference, so that UTF-16 and UTF-8 positions differ from byte offsets.
// The requests on it are the fixtures testdata/requests/library/notes*.txtar.
const inprocNoteText = `# Notes

😀 中文 see python:fastapi_patterns for the framework.
🎉🎉 load python:fastapi_patterns#Dependency Injection too.
漢字 getConditionalContext("python", "fastapi_patterns")
typo python:django here
`

func TestInprocCompletionResolve(t *testing.T) {
	t.Parallel()
	dir, _ := inprocSynthetic(t, 2, 60, 10)
	c := inprocStart(t, dir, inprocOptions{})
	text := "dom01:topic_00\n"
	u := c.open(inprocSyntheticCommand, text)
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	c.mustCall("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 0, "character": len("dom01:topic_00")}}, &list)
	if len(list.Items) != 60 {
		t.Fatalf("%d items, want 60", len(list.Items))
	}
	var item map[string]any
	json.Unmarshal(list.Items[5], &item)
	if item["documentation"] != nil || item["data"] == nil {
		t.Fatalf("a long list's item carries documentation or lacks data: %v", item)
	}
	var resolved struct {
		Documentation struct{ Value string } `json:"documentation"`
	}
	c.mustCall("completionItem/resolve", item, &resolved)
	if !strings.Contains(resolved.Documentation.Value, "synthetic topic") {
		t.Errorf("resolved documentation: %q", resolved.Documentation.Value)
	}
}

// TestInprocCompletionEditRange checks that a client that takes a list's
// default edit range gets it once, and that other clients get a text edit
// in every item; both replace what is typed of the name.
func TestInprocCompletionEditRange(t *testing.T) {
	t.Parallel()
	dir, _ := inprocSynthetic(t, 2, 5, 10)
	type rng struct {
		Start, End struct{ Line, Character int }
	}
	want := rng{}
	want.Start.Character, want.End.Character = len("dom01:"), len("dom01:topic_00")
	for _, tt := range []struct {
		name     string
		defaults []string
		shared   bool
	}{
		{"no itemDefaults", nil, false},
		{"other itemDefaults", []string{"commitCharacters", "data"}, false},
		{"editRange", []string{"commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			caps := map[string]any{"textDocument": map[string]any{"completion": map[string]any{}}}
			if tt.defaults != nil {
				caps["textDocument"] = map[string]any{"completion": map[string]any{"completionList": map[string]any{"itemDefaults": tt.defaults}}}
			}
			c := inprocStart(t, dir, inprocOptions{capabilities: caps})
			u := c.open(inprocSyntheticCommand, "dom01:topic_00\n")
			var list struct {
				ItemDefaults *struct {
					EditRange *rng `json:"editRange"`
				} `json:"itemDefaults"`
				Items []struct {
					Label    string `json:"label"`
					TextEdit *struct {
						Range   rng    `json:"range"`
						NewText string `json:"newText"`
					} `json:"textEdit"`
				} `json:"items"`
			}
			c.mustCall("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 0, "character": len("dom01:topic_00")}}, &list)
			if len(list.Items) != 5 {
				t.Fatalf("%d items, want 5", len(list.Items))
			}
			if tt.shared {
				if list.ItemDefaults == nil || list.ItemDefaults.EditRange == nil || *list.ItemDefaults.EditRange != want {
					t.Fatalf("itemDefaults = %+v, want editRange %+v", list.ItemDefaults, want)
				}
			} else if list.ItemDefaults != nil {
				t.Fatalf("itemDefaults %+v sent to a client that did not ask for them", list.ItemDefaults)
			}
			for _, it := range list.Items {
				switch {
				case tt.shared && it.TextEdit != nil:
					t.Errorf("item %s repeats the edit range: %+v", it.Label, it.TextEdit)
				case !tt.shared && (it.TextEdit == nil || it.TextEdit.Range != want || it.TextEdit.NewText != it.Label):
					t.Errorf("item %s: textEdit %+v, want %s over %+v", it.Label, it.TextEdit, it.Label, want)
				}
			}
		})
	}
}

// TestInprocDocumentOutsideWorkspace checks that the server reads no file
// outside the workspace for a URI the client names: requests on such a
// document that is not open answer with an error or an empty result and
// nothing of the file's text, and once the client opens it, they answer
// from the text the client gave.
func TestInprocDocumentOutsideWorkspace(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	secret := fsguardtest.Outside(t, "secret.md", "# Secret\n\n## Secret Heading\n\nSee python:fastapi_patterns and [x](/etc/hostname).\n")
	c := inprocStart(t, dir, inprocOptions{})
	u := string(uriOf(secret))
	doc := map[string]any{"uri": u}
	whole := map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 10, "character": 0}}
	at := map[string]any{"line": 4, "character": 8}
	requests := []struct {
		method string
		params any
	}{
		{"textDocument/documentSymbol", map[string]any{"textDocument": doc}},
		{"textDocument/hover", map[string]any{"textDocument": doc, "position": at}},
		{"textDocument/definition", map[string]any{"textDocument": doc, "position": at}},
		{"textDocument/inlayHint", map[string]any{"textDocument": doc, "range": whole}},
		{"textDocument/codeLens", map[string]any{"textDocument": doc}},
		{"textDocument/documentLink", map[string]any{"textDocument": doc}},
		{"textDocument/completion", map[string]any{"textDocument": doc, "position": at}},
		{"ctxls/documentCost", map[string]any{"uri": u}},
	}
	for _, r := range requests {
		var res json.RawMessage
		err := c.call(r.method, r.params, &res)
		if err == nil && (strings.Contains(string(res), "Secret") || strings.Contains(string(res), "fastapi")) {
			t.Errorf("%s on a closed document outside the workspace read the file: %s", r.method, res)
		}
		if err != nil && !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("%s on a closed document outside the workspace: error %q does not say why", r.method, err)
		}
		if r.method == "ctxls/documentCost" && !strings.Contains(string(res), "outside the workspace") {
			t.Errorf("ctxls/documentCost of a closed document outside the workspace = %s; want a warning saying why", res)
		}
	}

	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "markdown", "version": 1, "text": "# Opened\n\n## Opened Heading\n\nSee python:fastapi_patterns here.\n"}})
	var symbols []struct {
		Name string `json:"name"`
	}
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": doc}, &symbols)
	if len(symbols) != 1 || symbols[0].Name != "Opened Heading" {
		t.Errorf("documentSymbol of the opened document = %+v; want the heading of the text the client gave", symbols)
	}
	var hints []json.RawMessage
	c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": doc, "range": whole}, &hints)
	if len(hints) != 1 {
		t.Errorf("inlayHint of the opened document = %d hints; want 1 for its one reference", len(hints))
	}
}
