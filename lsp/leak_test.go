package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// TestLeakyRepositoryStdio drives `ctxls serve` over stdio on a cloned
// repository whose CLAUDE.md imports links to the user's private key and
// to /proc/self/environ, with a secret in the server's environment. The
// editor features of the imports, the session cost, chain previews and a
// chain run with an agent that keeps its input answer without either
// secret, also once the editor has opened the link to the key (and sent
// its text), and the database holds neither.
func TestLeakyRepositoryStdio(t *testing.T) {
	t.Parallel()
	w := fsguardtest.NewLeaky(t, map[string]string{
		"commands/build.md": "# Build\n\nBuild the project.\n",
		".ctxls.yaml":       "executor:\n  kind: preview\n",
	})
	dump := t.TempDir()
	chaintest.UseExecutor(t, w.Dir, []string{chainAgent(t), "-dump", dump}, "30s")
	c := &chainClient{startClientEnv(t, w.Dir, w.Env, stdioBinaryPath(t), "serve")}
	c.Record()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, w.Dir, map[string]any{"window": map[string]any{"workDoneProgress": true}}, nil); err != nil {
		t.Fatalf("initialize: %v\n%s", err, c.Stderr())
	}
	claude := filepath.Join(w.Dir, "CLAUDE.md")
	text, err := os.ReadFile(claude)
	if err != nil {
		t.Fatal(err)
	}
	uri := stdioFileURI(claude)
	if err := c.DidOpen(uri, string(text)); err != nil {
		t.Fatal(err)
	}
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		n := 0
		for _, d := range ds {
			if d.CodeString() == "import-outside-project" {
				n++
			}
		}
		return n == 2
	})
	if err != nil {
		t.Fatalf("CLAUDE.md's diagnostics: %v (%+v)", err, ds)
	}
	doc := map[string]any{"uri": uri}
	features := func(when string) {
		t.Helper()
		for _, col := range []int{5, 24} { // @docs/notes.md, @docs/env.md
			var hover struct {
				Contents struct {
					Value string `json:"value"`
				} `json:"contents"`
			}
			at := map[string]any{"textDocument": doc, "position": map[string]any{"line": 2, "character": col}}
			c.must("textDocument/hover", at, &hover)
			if !strings.Contains(hover.Contents.Value, "symbolic link") {
				t.Errorf("%s: hover on the import at %d = %q; want it to say the link leads out", when, col, hover.Contents.Value)
			}
			var def json.RawMessage
			c.must("textDocument/definition", at, &def)
			if string(def) != "null" && string(def) != "[]" {
				t.Errorf("%s: definition of the import at %d = %s; want none, the editor would show the file", when, col, def)
			}
		}
		var links []struct {
			Target string `json:"target"`
		}
		c.must("textDocument/documentLink", map[string]any{"textDocument": doc}, &links)
		for _, l := range links {
			if strings.Contains(l.Target, "docs/") {
				t.Errorf("%s: a document link leads to %s", when, l.Target)
			}
		}
		var lenses json.RawMessage
		c.must("textDocument/codeLens", map[string]any{"textDocument": doc}, &lenses)
		var cost agentload.Cost
		c.must("ctxls/sessionCost", map[string]any{"agent": "claude"}, &cost)
		if len(cost.AlwaysLoaded) != 1 || cost.AlwaysLoaded[0].File != "CLAUDE.md" {
			t.Errorf("%s: sessionCost loads %+v; want CLAUDE.md alone", when, cost.AlwaysLoaded)
		}
		var dc json.RawMessage
		c.must("ctxls/documentCost", map[string]any{"uri": uri}, &dc)
		var preview ops.ChainResponse
		c.must("ctxls/chain/preview", map[string]any{"commands": []string{"build"}}, &preview)
		if len(preview.Steps) != 1 || !strings.Contains(preview.Steps[0].Prompt, "See @docs/notes.md") {
			t.Errorf("%s: chain preview = %+v; want CLAUDE.md in its prompt", when, preview.Steps)
		}
	}
	features("before the link is opened")

	// The editor opens docs/notes.md, following the link, and sends the
	// key: the server must not take it for a file of the workspace.
	key, err := os.ReadFile(filepath.Join(w.Home, ".ssh", "id_rsa"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DidOpen(stdioFileURI(filepath.Join(w.Dir, "docs", "notes.md")), string(key)); err != nil {
		t.Fatal(err)
	}
	features("with the link open")

	var res ops.ChainResponse
	c.must("ctxls/chain/run", map[string]any{"commands": []string{"build"}, "input": "go"}, &res)
	if res.State != "completed" {
		t.Fatalf("chain run: %s", res.State)
	}
	prompts, err := os.ReadDir(dump)
	if err != nil || len(prompts) != 1 {
		t.Fatalf("the agent received %d prompts (%v); want one", len(prompts), err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	fsguardtest.NoSecret(t, "what the server sent", c.Received())
	fsguardtest.NoSecret(t, "the server's stderr", []byte(c.Stderr()))
	fsguardtest.NoSecretInFiles(t, dump)
	fsguardtest.NoSecretInFiles(t, filepath.Join(w.Dir, ".ctxls"))
	if !slices.ContainsFunc(prompts, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), "build") }) {
		t.Errorf("the agent's prompts %v; want the build step's", prompts)
	}
}
