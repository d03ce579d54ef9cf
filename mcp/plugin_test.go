package mcp

import (
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
)

// TestClaudePluginFiles checks the Claude Code plugin and marketplace the
// repository ships with ctxls's own plugin checks: each file is found as
// its kind and has no diagnostic.
func TestClaudePluginFiles(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	set, err := agentfiles.Load(t.Context(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	diags := set.Check(t.Context())
	for rel, kind := range map[string]agentfiles.Kind{
		"claude-plugin/.claude-plugin/plugin.json": agentfiles.KindPlugin,
		"claude-plugin/.mcp.json":                  agentfiles.KindMCP,
		"claude-plugin/.lsp.json":                  agentfiles.KindLSP,
		".claude-plugin/marketplace.json":          agentfiles.KindMarketplace,
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		f, ok := set.File(p)
		if !ok || f.Kind != kind {
			t.Errorf("%s: not found as a %s file", rel, kind)
			continue
		}
		for _, d := range diags[p] {
			t.Errorf("%s: %s: %s", rel, d.Code, d.Message)
		}
	}
}
