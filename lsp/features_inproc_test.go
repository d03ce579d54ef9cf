package lsp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// inprocNote is written with an emoji and CJK text before each reference,
// so that UTF-16 and UTF-8 positions differ from byte offsets.
const inprocNoteText = `# Notes

😀 中文 see python:fastapi_patterns for the framework.
🎉🎉 load python:fastapi_patterns#Dependency Injection too.
漢字 getConditionalContext("python", "fastapi_patterns")
typo python:django here
`

// inprocEachEncoding runs f in parallel subtests, each on its own copy of
// the example library: once with UTF-16 positions and once with UTF-8.
func inprocEachEncoding(t *testing.T, f func(t *testing.T, c *inprocClient, utf8 bool)) {
	for _, utf8 := range []bool{false, true} {
		t.Run(map[bool]string{false: "utf-16", true: "utf-8"}[utf8], func(t *testing.T) {
			t.Parallel()
			f(t, inprocStart(t, inprocCopyLibrary(t), inprocOptions{utf8: utf8}), utf8)
		})
	}
}

func TestInprocCompletion(t *testing.T) {
	t.Parallel()
	inprocEachEncoding(t, func(t *testing.T, c *inprocClient, utf8 bool) {
		text := "---\ncontext: [python/fa]\n---\n😀 中文 python:fa\n🎉 python:fastapi_patterns#Dep\n漢字 getReference(\"python\", \"py\")\n"
		u := c.open("commands/new.md", text)
		tests := []struct {
			name      string
			needle    string
			delta     int
			wantLabel string
			wantFirst string // label expected first (sorting), if set
			detail    string // substring of the wanted item's detail
		}{
			{"topic in prose after emoji", "python:fa\n", len("python:fa"), "fastapi_patterns", "common_issues", "FastAPI Patterns · "},
			{"topic in context list", "python/fa]", len("python/fa"), "fastapi_patterns", "", " tok"},
			{"section after #", "#Dep", len("#Dep"), "Dependency Injection", "", " tok"},
			{"topic in call string", `"py")`, len(`"py`), "pydantic_models", "", "Pydantic"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				pos := inprocPos(t, text, tc.needle, tc.delta, utf8)
				var list struct {
					Items []struct {
						Label    string `json:"label"`
						Detail   string `json:"detail"`
						SortText string `json:"sortText"`
						TextEdit struct {
							Range struct {
								Start, End struct{ Line, Character int }
							} `json:"range"`
							NewText string `json:"newText"`
						} `json:"textEdit"`
					} `json:"items"`
				}
				var raw json.RawMessage
				c.mustCall("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": pos}, &raw)
				if err := json.Unmarshal(raw, &list); err != nil {
					t.Fatal(err)
				}
				found := false
				minSort, first := "", ""
				for _, it := range list.Items {
					if minSort == "" || it.SortText < minSort {
						minSort, first = it.SortText, it.Label
					}
					if it.Label != tc.wantLabel {
						continue
					}
					found = true
					if !strings.Contains(it.Detail, tc.detail) {
						t.Errorf("detail %q lacks %q", it.Detail, tc.detail)
					}
					if it.TextEdit.Range.End.Character != pos["character"] || it.TextEdit.Range.End.Line != pos["line"] {
						t.Errorf("edit ends at %+v, want %v", it.TextEdit.Range.End, pos)
					}
				}
				if !found {
					t.Fatalf("no %q among %s", tc.wantLabel, raw)
				}
				if tc.wantFirst != "" && first != tc.wantFirst {
					t.Errorf("first item %q, want always-load %q", first, tc.wantFirst)
				}
			})
		}
	})
}

func TestInprocNavigation(t *testing.T) {
	t.Parallel()
	inprocEachEncoding(t, func(t *testing.T, c *inprocClient, utf8 bool) {
		u := c.open("commands/notes.md", inprocNoteText)
		fastapi := c.uri("context/python/fastapi_patterns.md")
		at := func(needle string, delta int) map[string]any {
			return map[string]any{"textDocument": map[string]any{"uri": u}, "position": inprocPos(t, inprocNoteText, needle, delta, utf8)}
		}

		t.Run("hover", func(t *testing.T) {
			t.Parallel()
			var h struct {
				Contents struct{ Value string } `json:"contents"`
				Range    struct{ Start, End struct{ Line, Character int } }
			}
			c.mustCall("textDocument/hover", at("python:fastapi_patterns for", 3), &h)
			for _, want := range []string{"FastAPI Patterns", "framework", "onDemand", "measured", "990 declared", "Dependency Injection", "context/python/fastapi_patterns.md", "Tokens counted in o200k_base."} {
				if !strings.Contains(h.Contents.Value, want) {
					t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
				}
			}
			start := inprocPos(t, inprocNoteText, "python:fastapi_patterns for", 0, utf8)
			if h.Range.Start.Character != start["character"] {
				t.Errorf("hover range starts at %d, want %v", h.Range.Start.Character, start["character"])
			}
			var h2 struct {
				Contents struct{ Value string } `json:"contents"`
			}
			c.mustCall("textDocument/hover", at("python:django", 8), &h2)
			if !strings.Contains(h2.Contents.Value, "django_patterns") {
				t.Errorf("unresolved hover lacks the suggestion: %s", h2.Contents.Value)
			}
		})

		t.Run("definition", func(t *testing.T) {
			t.Parallel()
			var loc struct {
				URI   string `json:"uri"`
				Range struct{ Start struct{ Line int } }
			}
			c.mustCall("textDocument/definition", at("fastapi_patterns\")", 2), &loc)
			if loc.URI != fastapi || loc.Range.Start.Line != 0 {
				t.Errorf("definition of the call form: %+v", loc)
			}
			c.mustCall("textDocument/definition", at("#Dependency", 3), &loc)
			if loc.URI != fastapi || loc.Range.Start.Line != 79 {
				t.Errorf("definition of a section: %+v, want line 79", loc)
			}
		})

		t.Run("references", func(t *testing.T) {
			t.Parallel()
			var locs []struct {
				URI string `json:"uri"`
			}
			c.mustCall("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": u},
				"position": inprocPos(t, inprocNoteText, "python:fastapi_patterns for", 9, utf8), "context": map[string]any{"includeDeclaration": false}}, &locs)
			files := map[string]int{}
			for _, l := range locs {
				files[filepath.Base(l.URI)]++
			}
			if files["implement.md"] < 4 || files["notes.md"] != 3 || files["index.md"] == 0 || files["review.md"] == 0 {
				t.Errorf("references by file: %v", files)
			}
		})

		t.Run("links", func(t *testing.T) {
			t.Parallel()
			var links []struct {
				Target string `json:"target"`
			}
			c.mustCall("textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": u}}, &links)
			if len(links) != 3 || links[1].Target != fastapi+"#L80" {
				t.Errorf("links: %+v", links)
			}
		})

		t.Run("symbols", func(t *testing.T) {
			t.Parallel()
			var syms []struct {
				Name     string `json:"name"`
				Detail   string `json:"detail"`
				Children []struct {
					Name   string `json:"name"`
					Detail string `json:"detail"`
				} `json:"children"`
			}
			c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": fastapi}}, &syms)
			if len(syms) < 7 || syms[2].Name != "Dependency Injection" || !strings.HasSuffix(syms[2].Detail, " tok") {
				t.Errorf("document symbols: %+v", syms)
			}
			var ws []struct {
				Name string `json:"name"`
			}
			c.mustCall("workspace/symbol", map[string]any{"query": "fastapi"}, &ws)
			if len(ws) == 0 || !strings.HasPrefix(ws[0].Name, "python:fastapi_patterns") {
				t.Errorf("workspace symbols: %+v", ws)
			}
		})

		t.Run("lens and hints", func(t *testing.T) {
			t.Parallel()
			var lenses []struct {
				Command struct{ Title string } `json:"command"`
			}
			c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": u}}, &lenses)
			if len(lenses) != 1 || !strings.Contains(lenses[0].Command.Title, "1 topic · 990 tok (o200k_base)") || !strings.Contains(lenses[0].Command.Title, "1 unresolved") {
				t.Errorf("code lens: %+v", lenses)
			}
			var hints []struct {
				Label    string `json:"label"`
				Position struct{ Line, Character int }
			}
			c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": u},
				"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 9, "character": 0}}}, &hints)
			if len(hints) != 3 {
				t.Fatalf("inlay hints: %+v", hints)
			}
			end := inprocPos(t, inprocNoteText, "python:fastapi_patterns for", len("python:fastapi_patterns"), utf8)
			if hints[0].Position.Character != end["character"] || !strings.HasSuffix(hints[0].Label, " tok") {
				t.Errorf("first hint %+v, want at %v", hints[0], end)
			}
		})
	})
}

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

func TestInprocHoverPlainText(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{capabilities: map[string]any{
		"textDocument": map[string]any{"hover": map[string]any{"contentFormat": []string{"plaintext"}}},
	}})
	u := c.open("commands/notes.md", inprocNoteText)
	var h struct {
		Contents struct{ Kind, Value string } `json:"contents"`
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u},
		"position": inprocPos(t, inprocNoteText, "python:fastapi_patterns for", 3, false)}, &h)
	if h.Contents.Kind != "plaintext" {
		t.Errorf("hover kind = %q, want plaintext", h.Contents.Kind)
	}
	for _, want := range []string{"FastAPI Patterns python:fastapi_patterns", "context/python/fastapi_patterns.md"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("plain hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	for _, markup := range []string{"**", "`", "|---"} {
		if strings.Contains(h.Contents.Value, markup) {
			t.Errorf("plain hover holds markdown %q:\n%s", markup, h.Contents.Value)
		}
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
