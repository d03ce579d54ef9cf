package lsp

import (
	"path/filepath"
	"testing"
)

// Agent files get diagnostics from the first publication on, follow the
// editor's text, and offer their fixes as quick fixes.
func TestInprocAgentFiles(t *testing.T) {
	dir := t.TempDir()
	inprocWrite(t, dir, map[string]string{
		".claude/skills/deploy/SKILL.md": "---\nname: deploy-app\ndescription: Deploys.\n---\nBody.\n",
		".mcp.json":                      "{\"mcpServers\": {\"a\": {\"command\": 1}}}\n",
		"context/python/x.md":            "# X\n\nBody.\n",
	})
	c := inprocStart(t, dir, inprocOptions{})
	has := func(code string) func(inprocDiagnostics) bool {
		return func(d inprocDiagnostics) bool {
			return len(d.Diagnostics) == 1 && d.Diagnostics[0].Code == code
		}
	}
	skill := string(uriOf(filepath.Join(dir, ".claude/skills/deploy/SKILL.md")))
	d := c.waitDiagnostics(skill, has("skill-name-mismatch"))
	if r := d.Diagnostics[0].Range; r.Start.Line != 1 || r.Start.Character != 6 || r.End.Character != 16 {
		t.Errorf("range %+v, want 1:6-16 (the name)", r)
	}
	c.waitDiagnostics(string(uriOf(filepath.Join(dir, ".mcp.json"))), has("plugin-field-invalid"))

	var actions []struct {
		Title string
		Edit  inprocEdit
	}
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": skill},
		"range": d.Diagnostics[0].Range, "context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}}}, &actions)
	if len(actions) != 1 || actions[0].Title != "Rename the skill to deploy (its folder)" ||
		len(actions[0].Edit.Changes[skill]) != 1 || actions[0].Edit.Changes[skill][0].NewText != "deploy" {
		t.Fatalf("code actions: %+v", actions)
	}

	// The editor's text is what is checked.
	c.open(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Use when: shipping\n---\nBody.\n")
	c.waitDiagnostics(skill, has("frontmatter-parse-error"))
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": skill, "version": 2},
		"contentChanges": []any{map[string]any{"text": "---\nname: deploy\ndescription: \"Use when: shipping\"\n---\nBody.\n"}}})
	c.waitDiagnostics(skill, func(d inprocDiagnostics) bool { return len(d.Diagnostics) == 0 })
	// Closing hands the file back to the disk, where the name is wrong.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": skill}})
	c.waitDiagnostics(skill, has("skill-name-mismatch"))
}
