package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/tokens"
	"github.com/ctxls/ctxls/providers/tokens/tokenstest"
)

// Every token figure of every tool's result names its tokenizer, in the
// structured content and in the text.
func TestEveryToolFigureNamesItsTokenizer(t *testing.T) {
	t.Parallel()
	files := fixture()
	para := "Every change ships with a test that fails before the change and passes after it, and with a line in the changelog.\n"
	files["CLAUDE.md"] = "# Project\n\n" + para + "\nSee @notes/todo.md for what is left.\n"
	files["notes/todo.md"] = "# Todo\n\n" + para
	dir := libtest.WriteTree(t, files)
	cs := connectAs(t, dir, "claude-code")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"catalog", map[string]any{}},
		{"search", map[string]any{"query": "api"}},
		{"load_context", map[string]any{"refs": []string{"web:api", "ops:deploy"}, "budgetTokens": 200}},
		{"check", map[string]any{}},
		{"session_cost", map[string]any{"agent": "claude"}},
		{"session_cost", map[string]any{"agent": "all"}},
	} {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		unnamed, err := tokenstest.Unnamed(raw)
		if err != nil {
			t.Fatal(err)
		}
		if len(unnamed) > 0 {
			t.Errorf("%s %v: figures without a tokenizer at %s:\n%s", c.tool, c.args, strings.Join(unnamed, ", "), raw)
		}
		if c.tool == "check" && !strings.Contains(string(raw), "memory-duplicate-paragraph") {
			t.Errorf("check found no diagnostic that counts tokens: %s", raw)
		}
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*sdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		named := false
		for _, n := range tokens.Names() {
			named = named || strings.Contains(text.String(), n)
		}
		if !named {
			t.Errorf("%s %v: the text names no tokenizer:\n%s", c.tool, c.args, text.String())
		}
	}
}
