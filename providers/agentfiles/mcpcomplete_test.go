package agentfiles

import (
	"slices"
	"strings"
	"testing"
)

// CompleteMCP offers the keys of the level the cursor is on (the
// servers key at the top, a server's keys inside a server) and the
// transports as values of type, as each agent documents them.
func TestCompleteMCP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rel, text string // the cursor is at the |
		ok        bool
		want      []string // labels that must be offered
		not       []string // labels that must not be
	}{
		{".mcp.json", `{"mcpServers": {"a": {"com|"}}}`, true, []string{"command", "args", "env", "headersHelper"}, []string{"mcpServers", "servers"}},
		{".mcp.json", `{"mcpServers": {"a": {"type": "|"}}}`, true, []string{"stdio", "http", "sse"}, []string{"streamable-http"}},
		{".mcp.json", "{\n  |\n}", true, []string{"mcpServers"}, []string{"servers", "command"}},
		{".cursor/mcp.json", `{"mcpServers": {"a": {"type": "|"}}}`, true, []string{"streamable-http"}, nil},
		{".vscode/mcp.json", `{"|`, true, []string{"servers", "inputs"}, []string{"mcpServers"}},
		{".vscode/mcp.json", `{"servers": {"a": {"|": 1}}}`, true, []string{"envFile", "sandboxEnabled"}, []string{"headersHelper"}},
		{".mcp.json", `{"mcpServers": {"a": {"env": {"NODE|": ""}}}}`, true, nil, []string{"command"}},
		{".mcp.json", `{"mcpServers": {"a": {"args": ["--po|"]}}}`, true, nil, []string{"command"}},
		{"docs/mcp.json", `{"mcpServers": {"a": {"com|"}}}`, false, nil, nil},
		{".codex/config.toml", `[mcp_servers.a]` + "\ncom|", false, nil, nil},
	} {
		off := strings.Index(tc.text, "|")
		text := []byte(strings.Replace(tc.text, "|", "", 1))
		items, rep, ok := CompleteMCP(tc.rel, text, off)
		if ok != tc.ok {
			t.Errorf("%s %s: ok %v, want %v", tc.rel, tc.text, ok, tc.ok)
			continue
		}
		var labels []string
		for _, it := range items {
			labels = append(labels, it.Label)
			if it.Doc == "" {
				t.Errorf("%s %s: %s has no documentation", tc.rel, tc.text, it.Label)
			}
		}
		for _, w := range tc.want {
			if !slices.Contains(labels, w) {
				t.Errorf("%s %s: %s not offered (got %v)", tc.rel, tc.text, w, labels)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(labels, n) {
				t.Errorf("%s %s: %s offered", tc.rel, tc.text, n)
			}
		}
		if ok && (rep.Start > off || rep.End < off) {
			t.Errorf("%s %s: replaces %v, which leaves out the cursor at %d", tc.rel, tc.text, rep, off)
		}
	}
}

// MCPFieldAt documents the server key under the cursor, and nothing in
// a value or a nested map.
func TestMCPFieldAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rel, text, key string // the cursor is at the |; key "" is no hover
	}{
		{".mcp.json", `{"mcpServers": {"a": {"e|nv": {}}}}`, "env"},
		{".mcp.json", `{"mcp|Servers": {}}`, "mcpServers"},
		{".vscode/mcp.json", `{"inp|uts": []}`, "inputs"},
		{".mcp.json", `{"mcpServers": {"a": {"command": "np|x"}}}`, ""},
		{".mcp.json", `{"mcpServers": {"a": {"env": {"PA|TH": "x"}}}}`, ""},
		{".mcp.json", `{"mcpServers": {"a": {"comand|": "x"}}}`, ""},
	} {
		off := strings.Index(tc.text, "|")
		text := []byte(strings.Replace(tc.text, "|", "", 1))
		f, span, ok := MCPFieldAt(tc.rel, text, off)
		if ok != (tc.key != "") || f.Name != tc.key {
			t.Errorf("%s %s: got %q %v, want %q", tc.rel, tc.text, f.Name, ok, tc.key)
			continue
		}
		if ok && (string(text[span.Start:span.End]) != tc.key || f.Doc == "") {
			t.Errorf("%s %s: span %q, doc %q", tc.rel, tc.text, text[span.Start:span.End], f.Doc)
		}
	}
}
