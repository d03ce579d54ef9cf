package lsp

import "testing"

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
