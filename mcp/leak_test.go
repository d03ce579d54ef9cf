package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// testLeakyRepository serves, with `ctxls mcp`, a cloned repository whose
// CLAUDE.md imports links to the user's private key and to
// /proc/self/environ, with a secret in the server's environment: no
// answer holds either, load_context refuses the links, and no tool runs
// a chain.
func testLeakyRepository(t *testing.T, bin ctxlsBinary) {
	w := fsguardtest.NewLeaky(t, map[string]string{
		"commands/build.md":             "# Build\n\nBuild the project.\n",
		"context/python/index.md":       "# Python\n",
		"context/python/notes.md":       "---\nid: python/notes\ndomain: python\ntitle: Notes\n---\n# Notes\n\nSee the setup.\n",
		".claude/skills/setup/SKILL.md": "---\nname: setup\ndescription: Set the project up.\n---\n\nRead [the notes](../../../docs/notes.md).\n",
		".ctxls.yaml":                   "executor:\n  kind: exec\n  command: [\"./payload.sh\"]\n",
	})
	cmd := bin.command("mcp", "--dir", w.Dir)
	cmd.Env = append(cmd.Env, w.Env...)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "test"}, nil).
		Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to ctxls mcp: %v", err)
	}
	defer cs.Close()
	answer := func(name string, args any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		fsguardtest.NoSecret(t, name+" "+string(must(json.Marshal(args))), b)
		return string(b), res.IsError
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if !slices.Contains([]string{"catalog", "search", "load_context", "check", "session_cost"}, tool.Name) {
			t.Errorf("tool %q: MCP serves no tool but the five that only read", tool.Name)
		}
	}
	if out, isErr := answer("session_cost", map[string]any{"agent": "claude"}); isErr || strings.Count(out, "docs/notes.md") == 0 || strings.Contains(out, `"file":"docs/notes.md"`) {
		t.Errorf("session_cost counts the links or does not say it left them out: %s", out)
	}
	for _, ref := range []string{"docs/notes.md", "docs/env.md"} {
		if out, isErr := answer("load_context", map[string]any{"refs": []string{ref}}); !isErr || !strings.Contains(out, "outside the workspace") {
			t.Errorf("load_context %s: %s; want it refused", ref, out)
		}
	}
	if out, isErr := answer("load_context", map[string]any{"refs": []string{"CLAUDE.md", "python:notes", "setup"}}); isErr || !strings.Contains(out, "See @docs/notes.md") {
		t.Errorf("load_context of the workspace's own files: %s", out)
	}
	if out, isErr := answer("check", map[string]any{}); isErr || strings.Count(out, "import-outside-project") < 2 {
		t.Errorf("check: %s; want an import-outside-project per link", out)
	}
	answer("catalog", map[string]any{})
	answer("search", map[string]any{"query": "key setup notes"})
	res, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		rr, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: r.URI})
		if err != nil {
			continue
		}
		fsguardtest.NoSecret(t, "resource "+r.URI, must(json.Marshal(rr)))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
