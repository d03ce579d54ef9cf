package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// mcpMemoryWorkspace is a Claude Code project whose MCP configurations,
// for every agent, and memory files hold one mistake each, besides files
// that hold none.
func mcpMemoryWorkspace(t *testing.T) string {
	t.Helper()
	return libtest.WriteTree(t, map[string]string{
		".mcp.json": "{\n  \"mcpServers\": {\n    \"docs\": {\"comand\": \"npx\"},\n" +
			"    \"ws\": {\"type\": \"websocket\", \"url\": \"wss://x.example.com\"},\n" +
			"    \"gh\": {\"command\": \"npx\", \"env\": {\"GITHUB_TOKEN\": \"ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ12\"}}\n  }\n}\n",
		".cursor/mcp.json":      "{\"mcpServers\": {\"a\": {\"command\": \"npx\", \"url\": \"https://x.example.com\"}}}\n",
		".vscode/mcp.json":      "{\n  \"servers\": {\"a\": {\"command\": \"npx\", \"env\": {\"K\": \"${input:key}\"}}}\n}\n",
		".gemini/settings.json": "{\"mcpServers\": {\"a\": {\"command\": \"python\", \"args\": \"-m server\"}}}\n",
		".codex/config.toml":    "[mcp_servers.a]\ncommand = \"npx\"\nenv = { API_KEY = \"${API_KEY}\" }\n",
		"package.json":          "{\"scripts\": {\"lint\": \"eslint .\"}}\n",
		"CLAUDE.md":             "# P\n\nRun `npm run lint`, then `npm run typecheck`.\n",
		"clean/.mcp.json":       "{\"mcpServers\": {\"a\": {\"command\": \"npx\", \"args\": [\"-y\", \"a\"], \"env\": {\"A\": \"${A:-1}\"}}}}\n",
	})
}

// TestCheckMCPAndMemory checks that ctxls check reports each mistake of
// the workspace at its line and column, that nothing else is reported,
// that SARIF carries them, and that --fix-unsafe renames the misspelled
// key.
func TestCheckMCPAndMemory(t *testing.T) {
	t.Parallel()
	dir := mcpMemoryWorkspace(t)
	var got []string
	for _, r := range decodeRecords(t, runExit(t, 1, "check", dir, "--format", "json")) {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", r.File, r.Line, r.Column, r.Code))
		if strings.Contains(r.Message, "ghp_1a2B3c4D") {
			t.Errorf("the secret is echoed: %s", r.Message)
		}
	}
	want := []string{
		".codex/config.toml:3:19 mcp-variable-unexpanded",
		".cursor/mcp.json:1:41 mcp-server-transport-conflict",
		".gemini/settings.json:1:52 mcp-server-field-invalid",
		".mcp.json:3:5 mcp-server-field-missing",
		".mcp.json:3:14 mcp-key-misspelled",
		".mcp.json:4:20 mcp-server-type-unknown",
		".mcp.json:5:54 mcp-secret-plain-text",
		".vscode/mcp.json:2:52 mcp-variable-unexpanded",
		"CLAUDE.md:3:35 memory-command-undefined",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("records:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}

	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(runExit(t, 1, "check", dir, "--format", "sarif")), &log); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range log.Runs {
		for _, res := range r.Results {
			ids = append(ids, res.RuleID)
		}
	}
	for _, code := range []string{"mcp-key-misspelled", "mcp-secret-plain-text", "memory-command-undefined"} {
		if !slices.Contains(ids, code) {
			t.Errorf("SARIF has no result of %s: %v", code, ids)
		}
	}

	runCLI(t, "check", dir, "--format", "json", "--fix-unsafe")
	data, err := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"docs": {"command": "npx"}`) {
		t.Errorf(".mcp.json after --fix-unsafe:\n%s", data)
	}
}
