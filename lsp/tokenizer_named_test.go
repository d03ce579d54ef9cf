package lsp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/tokens/tokenstest"
)

// Over stdio, every figure of the editor features names its tokenizer:
// code lenses, hovers, link tooltips and the cost requests the status
// bars show; and a memory file's lens, its import hovers and the session
// cost count in one tokenizer, the agent's.
func TestEditorFiguresNameTheirTokenizer(t *testing.T) {
	t.Parallel()
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	at := func(text, needle string) map[string]any {
		i := strings.Index(text, needle)
		if i < 0 {
			t.Fatalf("%q not in the text", needle)
		}
		line := strings.Count(text[:i], "\n")
		return map[string]any{"line": line, "character": i - strings.LastIndex(text[:i], "\n") - 1}
	}
	var session struct {
		Tokenizer string `json:"tokenizer"`
	}
	raw, err := c.CallRaw(ctx, "ctxls/sessionCost", map[string]any{"agent": "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &session); err != nil || session.Tokenizer == "" {
		t.Fatalf("session cost %s: %v", raw, err)
	}
	named := regexp.MustCompile(`\((claude[-.\d]*|o200k_base|cl100k_base|estimate)\)|Tokens counted in (\S+)\.`)
	for _, f := range []struct {
		rel    string
		hovers []string // text the hover is over
	}{
		{"CLAUDE.md", []string{"@context/loading_protocol.md", "@context/git/commit_conventions.md"}},
		{"commands/review.md", []string{"python:fastapi_patterns#Security Issues"}},
		{"context/python/fastapi_patterns.md", nil},
	} {
		uri, text := stdioOpen(t, c, root, f.rel)
		doc := map[string]any{"uri": uri}
		var shown []string
		var lenses []struct {
			Command struct{ Title string } `json:"command"`
		}
		if err := c.Call(ctx, "textDocument/codeLens", map[string]any{"textDocument": doc}, &lenses); err != nil {
			t.Fatal(err)
		}
		if len(lenses) == 0 {
			t.Errorf("%s: no code lens", f.rel)
		}
		for _, l := range lenses {
			shown = append(shown, l.Command.Title)
		}
		for _, h := range f.hovers {
			var hover struct {
				Contents struct{ Value string } `json:"contents"`
			}
			if err := c.Call(ctx, "textDocument/hover", map[string]any{"textDocument": doc, "position": at(text, h)}, &hover); err != nil {
				t.Fatal(err)
			}
			if hover.Contents.Value == "" {
				t.Errorf("%s: no hover over %s", f.rel, h)
			}
			shown = append(shown, hover.Contents.Value)
		}
		var links []struct {
			Tooltip string `json:"tooltip"`
		}
		if err := c.Call(ctx, "textDocument/documentLink", map[string]any{"textDocument": doc}, &links); err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			shown = append(shown, l.Tooltip)
		}
		// An inlay hint's label is a bare figure; its tooltip names the
		// tokenizer.
		var hints []struct {
			Label   string `json:"label"`
			Tooltip string `json:"tooltip"`
		}
		end := map[string]any{"line": strings.Count(text, "\n") + 1, "character": 0}
		if err := c.Call(ctx, "textDocument/inlayHint", map[string]any{"textDocument": doc,
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": end}}, &hints); err != nil {
			t.Fatal(err)
		}
		if f.rel == "commands/review.md" && len(hints) == 0 {
			t.Errorf("%s: no inlay hints", f.rel)
		}
		for _, h := range hints {
			shown = append(shown, h.Label+"\n\n"+h.Tooltip)
		}
		for _, s := range shown {
			if !tokenstest.TextNames(s) {
				t.Errorf("%s: a figure without its tokenizer: %q", f.rel, s)
			}
			// A memory file counts in the agent's tokenizer, as its
			// session's cost does.
			if f.rel == "CLAUDE.md" && (strings.HasPrefix(s, "Memory:") || strings.HasPrefix(s, "**@")) {
				m := named.FindStringSubmatch(s)
				if m == nil || m[1]+m[2] != session.Tokenizer {
					t.Errorf("%s: %q is not counted in the session's %s", f.rel, s, session.Tokenizer)
				}
			}
		}
		raw, err := c.CallRaw(ctx, "ctxls/documentCost", map[string]any{"uri": uri})
		if err != nil {
			t.Fatal(err)
		}
		if unnamed, err := tokenstest.Unnamed(raw); err != nil || len(unnamed) > 0 {
			t.Errorf("%s: document cost %v: figures without a tokenizer at %v", f.rel, err, unnamed)
		}
	}
	for _, req := range []struct {
		method string
		params any
	}{
		{"ctxls/sessionCost", map[string]any{"agent": "claude"}},
		{"ctxls/sessionCost", map[string]any{"agent": "all"}},
		{"ctxls/catalog", map[string]any{}},
		{"ctxls/inventory", map[string]any{}},
		{"ctxls/inventory/search", map[string]any{"query": "python"}},
	} {
		raw, err := c.CallRaw(ctx, req.method, req.params)
		if err != nil {
			t.Fatalf("%s: %v", req.method, err)
		}
		if unnamed, err := tokenstest.Unnamed(raw); err != nil || len(unnamed) > 0 {
			t.Errorf("%s %v: figures without a tokenizer at %v: %s", req.method, req.params, unnamed, fmt.Sprint(len(raw)))
		}
	}
}
