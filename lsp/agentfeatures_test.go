package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// TestStdioAgentFeatures starts the server binary over stdio on a copy of
// the team project and checks the session costs of its agents while agent
// files are open. The requests in its agent files, and the edits of moving
// the files they name, are the fixtures of testdata/requests/agents.
func TestStdioAgentFeatures(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "agents"))); err != nil {
		t.Fatal(err)
	}
	// A custom agent without a name, which its file names, and a prompt
	// that runs with it.
	testtree.WriteFiles(t, root, map[string]string{
		".github/agents/helper.agent.md":    "---\ndescription: Helps with the release.\n---\nHelp.\n",
		".github/prompts/release.prompt.md": "---\ndescription: Cut a release\nagent: helper\n---\nRelease.\n",
	})
	ctx := stdioCtx(t)
	c := stdioStart(t, root)
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	// With agent files open in the editor, each agent's session is still
	// read with the project's settings: Gemini CLI's context file names,
	// Codex's fallback names.
	t.Run("session cost with files open", func(t *testing.T) {
		for _, rel := range []string{".github/agents/reviewer.agent.md", ".clinerules/web.md"} {
			uri, _ := stdioOpen(t, c, root, rel)
			defer func() {
				if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
					t.Error(err)
				}
			}()
		}
		var gemini stdioSessionCost
		if err := c.Call(ctx, "ctxls/sessionCost", map[string]any{"agent": "gemini"}, &gemini); err != nil {
			t.Fatal(err)
		}
		if gemini.tokensOf("GEMINI.md") <= 0 || gemini.tokensOf("docs/style.md") <= 0 {
			t.Errorf("gemini loads at start %+v, want GEMINI.md and docs/style.md", gemini.AlwaysLoaded)
		}
		var codex struct {
			OnDemand []struct {
				File string `json:"file"`
			} `json:"onDemand"`
		}
		if err := c.Call(ctx, "ctxls/sessionCost", map[string]any{"agent": "codex"}, &codex); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(codex.OnDemand, func(e struct {
			File string `json:"file"`
		}) bool {
			return e.File == "jobs/TEAM.md"
		}) {
			t.Errorf("codex loads later %+v, want jobs/TEAM.md, a fallback name of .codex/config.toml", codex.OnDemand)
		}
	})
}
