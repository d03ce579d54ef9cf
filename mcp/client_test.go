package mcp

import (
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// connectAs starts a server over dir and a client session to it from a
// client of the given name.
func connectAs(t *testing.T, dir, client string) *sdk.ClientSession {
	t.Helper()
	ctx := t.Context()
	srv, err := New(ctx, Options{Dir: dir, Version: "test", Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.srv.Connect(ctx, st, nil); err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: client, Version: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// load_context budgets in the tokenizer of the client's models, unless
// the workspace names one, and the catalog and search count as it does,
// so that one file has one figure for the client; a tool call that names
// a tokenizer counts in that one.
func TestLoadContextInTheClientsTokenizer(t *testing.T) {
	t.Parallel()
	plain := libtest.WriteTree(t, fixture())
	files := fixture()
	files[".ctxls.yaml"] = "tokenizer: cl100k_base\n"
	chosen := libtest.WriteTree(t, files)
	for _, c := range []struct {
		dir, client, want string
	}{
		{plain, "claude-code", "claude-5"},
		{plain, "codex-mcp-client", "o200k_base"},
		{plain, "some-editor", "o200k_base"},
		{chosen, "claude-code", "cl100k_base"},
	} {
		cs := connectAs(t, c.dir, c.client)
		var out ops.LoadContextResult
		if _, isErr := call(t, cs, "load_context", map[string]any{"refs": []string{"web:api"}, "budgetTokens": 100}, &out); isErr {
			t.Fatalf("%s: load_context failed", c.client)
		}
		if out.Tokenizer != c.want {
			t.Errorf("%s in %s: tokenizer %q, want %q", c.client, c.dir, out.Tokenizer, c.want)
		}
		if out.Tokens > 100 {
			t.Errorf("%s: %d tokens over the budget of 100", c.client, out.Tokens)
		}
		var cat CatalogOutput
		call(t, cs, "catalog", map[string]any{}, &cat)
		var found SearchOutput
		call(t, cs, "search", map[string]any{"query": "deploy"}, &found)
		if cat.Tokenizer != c.want || found.Tokenizer != c.want || len(found.Results) == 0 {
			t.Errorf("%s in %s: catalog in %q, search in %q (%d results), want %q", c.client, c.dir, cat.Tokenizer, found.Tokenizer, len(found.Results), c.want)
		}
		for _, tok := range []string{"o200k_base", "claude-5"} {
			var named CatalogOutput
			call(t, cs, "catalog", map[string]any{"tokenizer": tok}, &named)
			if named.Tokenizer != tok || tok == c.want && !slices.Equal(named.Entries, cat.Entries) {
				t.Errorf("%s: catalog in %s says %s: %v, want %v", c.client, tok, named.Tokenizer, named.Entries, cat.Entries)
			}
		}
		// The topic does not fit whole, so some of its sections are omitted,
		// and the note of what was left out names the tokenizer.
		text, _ := call(t, cs, "load_context", map[string]any{"refs": []string{"web:api"}, "budgetTokens": 100}, nil)
		if !strings.Contains(text, "omitted ("+c.want+" tokens)") {
			t.Errorf("%s: text does not name %s: %q", c.client, c.want, text[max(0, len(text)-200):])
		}
	}
	cs := connectAs(t, plain, "some-editor")
	if text, isErr := call(t, cs, "catalog", map[string]any{"tokenizer": "nope"}, nil); !isErr || !strings.Contains(text, `unknown tokenizer "nope"`) {
		t.Errorf("catalog in an unknown tokenizer: error %v, %q", isErr, text)
	}
}
