package lsp

import (
	"slices"
	"strings"
	"testing"
)

// Each agent's MCP configuration gets diagnostics from the first
// publication on, and follows the editor's text.
func TestInprocMCPConfigs(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".vscode/mcp.json":      "{\"servers\": {\"a\": {\"type\": \"websocket\", \"url\": \"wss://x\"}}}\n",
		".codex/config.toml":    "[mcp_servers.a]\ncomand = \"npx\"\n",
		".gemini/settings.json": "{\"mcpServers\": {\"a\": {\"command\": \"python\", \"url\": \"http://x\"}}}\n",
		"CLAUDE.md":             "# P\n\nRun `make check`.\n",
		"Makefile":              "lint:\n\ttrue\n",
		"context/python/x.md":   "# X\n\nBody.\n",
	}, inprocOptions{})
	c.waitDiagnostics(c.uri(".vscode/mcp.json"), diagCodes("mcp-server-type-unknown"))
	c.waitDiagnostics(c.uri(".codex/config.toml"), diagCodes("mcp-server-field-missing", "mcp-key-misspelled"))
	c.waitDiagnostics(c.uri(".gemini/settings.json"), diagCodes("mcp-server-transport-conflict"))
	c.waitDiagnostics(c.uri("CLAUDE.md"), diagCodes("memory-command-undefined"))

	codex := c.uri(".codex/config.toml")
	c.open(".codex/config.toml", "[mcp_servers.a]\ncommand = \"npx\"\n")
	c.waitDiagnostics(codex, diagCodes())
	c.open("CLAUDE.md", "# P\n\nRun `make lint`.\n")
	c.waitDiagnostics(c.uri("CLAUDE.md"), diagCodes())
}

// An MCP configuration completes its servers key, a server's keys and
// the transports of type, as the file's agent documents them, and hover
// on a server key says what it does.
func TestInprocMCPKeys(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".mcp.json":           "{}\n",
		".vscode/mcp.json":    "{}\n",
		"context/python/x.md": "# X\n\nBody.\n",
	}, inprocOptions{})
	type item struct {
		Label    string
		TextEdit struct{ NewText string }
	}
	complete := func(file, text, marker string, delta int) []string {
		t.Helper()
		u := c.open(file, text)
		var list struct{ Items []item }
		c.mustCall("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u},
			"position": inprocPos(t, text, marker, delta, false)}, &list)
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label+"="+it.TextEdit.NewText)
		}
		return out
	}
	got := complete(".mcp.json", "{\"mcpServers\": {\"db\": {\n  \"com\": \"npx\"\n}}}\n", "com\"", 3)
	if !slices.Contains(got, "command=command") || !slices.Contains(got, "env=env") || slices.Contains(got, "servers=servers") {
		t.Errorf("server key completion %q", got)
	}
	got = complete(".mcp.json", "{\"mcpServers\": {\"db\": {\"type\": \"ht\"}}}\n", "ht\"", 2)
	if !slices.Contains(got, "http=http") || slices.Contains(got, "streamable-http=streamable-http") {
		t.Errorf("type completion %q", got)
	}
	got = complete(".vscode/mcp.json", "{\n  \"ser\": {}\n}\n", "ser\"", 3)
	if !slices.Contains(got, "servers=servers") || !slices.Contains(got, "inputs=inputs") || slices.Contains(got, "mcpServers=mcpServers") {
		t.Errorf("top-level completion %q", got)
	}

	text := "{\"mcpServers\": {\"db\": {\n  \"env\": {\"A\": \"b\"}\n}}}\n"
	u := c.open(".mcp.json", text)
	var h struct {
		Contents struct{ Value string }
		Range    protocolRange
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u},
		"position": inprocPos(t, text, "env", 1, false)}, &h)
	if !strings.HasPrefix(h.Contents.Value, "**env** · map of strings") || h.Range.Start.Line != 1 {
		t.Errorf("hover %+v", h)
	}
}
