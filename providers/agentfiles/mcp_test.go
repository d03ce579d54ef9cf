package agentfiles

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
)

// TestMCPConfigsFound checks that each agent's MCP configuration is found
// where the agent reads it, and nothing of the same name elsewhere.
func TestMCPConfigsFound(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]bool{
		".mcp.json":                   true,
		"plugins/p/.mcp.json":         true,
		".cursor/mcp.json":            true,
		".vscode/mcp.json":            true,
		".gemini/settings.json":       true,
		".codex/config.toml":          true,
		"mcp.json":                    false,
		".vscode/settings.json":       false,
		".claude/settings.json":       false,
		"config.toml":                 false,
		"pkg/.codex/config.toml":      true,
		".gemini/other/settings.json": false,
	} {
		if got := Classify(rel, nil) == KindMCP; got != want {
			t.Errorf("Classify(%q) is MCP: %v, want %v", rel, got, want)
		}
	}
}

// TestMCPHostileInput feeds the MCP configurations broken and odd
// content: each gives diagnostics inside the text, and none is an
// internal error.
func TestMCPHostileInput(t *testing.T) {
	t.Parallel()
	contents := []string{
		"", "{", "[", "null", "{\"mcpServers\": []}", "{\"servers\": 1, \"inputs\": {}}", "{\"inputs\": [1, {\"id\": 2, \"type\": 3}]}",
		"{\"mcpServers\": {\"a\": {\"type\": 1, \"command\": {}, \"url\": [], \"env\": {\"A\": null}, \"headers\": [1]}}}",
		"{\"mcp_servers\": {}, \"servers\": {}}", "// only a comment", "{\"mcpServers\": {\"a\": {\"args\": [\"$\", \"${\", \"${}\", \"${:-}\", \"${env:}\"]}}}",
		"[mcp_servers]\n", "mcp_servers = 1\n", "[[mcp_servers]]\n", "[mcp_servers.a]\n[mcp_servers.a.env]\nX = 1\n",
		"a.b.c = 1\n[a.b]\n", "[mcp_servers.x]\nargs = [1, [2], {a = 1}]\ncommand = 1970-01-01\n", "x = \"\"\"\n", "[a]\nb = 1\n[a.b]\n",
		"[mcp_servers.a]\ncommand = \"x\"\n[[mcp_servers.a.tools]]\n", strings.Repeat("[", 5000), "x = " + strings.Repeat("[", 3000),
		"\xff\xfe{\"mcpServers\"", "{\"mcpServers\": {\"a\": {\"env\": {\"TOKEN\": \"" + strings.Repeat("a1", 3000) + "\"}}}}",
	}
	paths := []string{".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".gemini/settings.json", ".codex/config.toml"}
	dir := t.TempDir()
	for _, rel := range paths {
		testtree.WriteAt(t, dir, rel, "{}")
	}
	s := mustLoad(t, dir, nil)
	for i, content := range contents {
		for _, rel := range paths {
			f, ds := s.CheckFile(context.Background(), filepath.Join(s.Root, filepath.FromSlash(rel)), []byte(content))
			if f == nil {
				t.Fatalf("%s is not an agent file", rel)
			}
			for _, d := range ds {
				if d.Span.Start < 0 || d.Span.Start > d.Span.End || d.Span.End > len(f.Text) {
					t.Errorf("content %d: %s: %s span %v outside %d bytes", i, rel, d.Code, d.Span, len(f.Text))
				}
				if d.Code == diag.FileSkipped && strings.Contains(d.Message, "internal error") {
					t.Errorf("content %d: %s: %s", i, rel, d.Message)
				}
			}
		}
	}
}

// TestMCPSecretsNeverEchoed checks that a secret's message shows only its
// first characters.
func TestMCPSecretsNeverEchoed(t *testing.T) {
	t.Parallel()
	const secret = "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ12"
	dir := t.TempDir()
	testtree.WriteAt(t, dir, ".mcp.json", `{"mcpServers": {"gh": {"command": "npx", "env": {"GITHUB_TOKEN": "`+secret+`"}}}}`)
	s := mustLoad(t, dir, nil)
	found := false
	for _, ds := range s.Check(context.Background()) {
		for _, d := range ds {
			if d.Code == diag.MCPSecretPlainText {
				found = true
			}
			if strings.Contains(d.Message, secret[4:12]) {
				t.Errorf("%s echoes the secret: %s", d.Code, d.Message)
			}
		}
	}
	if !found {
		t.Fatal("the secret was not reported")
	}
}

func TestSecretIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ12", true},
		{"", "xoxb-1234567890-abcdefghijklmnopqrst", true},
		{"Authorization", "Bearer 9f8e7d6c5b4a3928171605f4e3d2c1b0a9f8e7d6", true},
		{"API_KEY", "your-api-key-here", false},
		{"API_KEY", "${API_KEY}", false},
		{"Authorization", "Bearer ${TOKEN}", false},
		{"TOKEN_PATH", "/home/me/.config/token/file1234567890", false},
		{"AUTH_MODE", "oauth", false},
		{"LOG_LEVEL", "debug-verbose-1234567890abc", false},
		{"", "https://x.example.com/mcp?api_key=Zx81Qw72Er63Ty54Ui45Op36", true},
		{"", "https://x.example.com/mcp?api_key=${KEY}", false},
		{"DATABASE_PASSWORD", "aaaaaaaaaaaaaaaaaaaaaaaa1", false},
		{"", "npx -y @modelcontextprotocol/server-github", false},
	} {
		if _, _, got := secretIn(tc.name, tc.value); got != tc.want {
			t.Errorf("secretIn(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

// TestMCPMisspelledKeyFix checks that the fix of a misspelled key, in JSON
// and in TOML, renames it so that the file checks clean.
func TestMCPMisspelledKeyFix(t *testing.T) {
	t.Parallel()
	for rel, text := range map[string]string{
		".mcp.json":          `{"mcpServers": {"s": {"comand": "npx", "args": ["s"]}}}`,
		".codex/config.toml": "[mcp_servers.s]\ncomand = \"npx\"\n",
		".vscode/mcp.json":   `{"mcpServers": {"s": {"command": "npx"}}}`,
	} {
		dir := t.TempDir()
		p := testtree.WriteAt(t, dir, rel, text)
		s := mustLoad(t, dir, nil)
		f, ds := s.CheckFile(context.Background(), p, nil)
		var fixed []byte
		for _, d := range ds {
			if d.Code == diag.MCPKeyMisspelled && len(d.Fixes) > 0 {
				out, err := diag.ApplyEdits(f.Text, d.Fixes[0].Edits)
				if err != nil {
					t.Fatal(err)
				}
				fixed = out
			}
		}
		if fixed == nil {
			t.Fatalf("%s: no fix among %+v", rel, ds)
		}
		if _, ds := s.CheckFile(context.Background(), p, fixed); len(ds) != 0 {
			t.Errorf("%s fixed to %s still has %+v", rel, fixed, ds)
		}
	}
}
