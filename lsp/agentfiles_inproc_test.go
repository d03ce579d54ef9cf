package lsp

import (
	"os"
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

// A skill created on disk is checked once the client reports it, and a
// subagent naming it is then satisfied.
func TestInprocAgentFileCreated(t *testing.T) {
	dir := t.TempDir()
	inprocWrite(t, dir, map[string]string{
		".claude/agents/a.md": "---\nname: a\ndescription: Reviews.\nskills: [deploy]\n---\nAgent.\n",
	})
	c := inprocStart(t, dir, inprocOptions{})
	agent := string(uriOf(filepath.Join(dir, ".claude/agents/a.md")))
	c.waitDiagnostics(agent, func(d inprocDiagnostics) bool {
		return len(d.Diagnostics) == 1 && d.Diagnostics[0].Code == "subagent-skill-missing"
	})
	inprocWrite(t, dir, map[string]string{".claude/skills/deploy/SKILL.md": "---\nname: deploy-x\ndescription: Deploys.\n---\n"})
	skill := string(uriOf(filepath.Join(dir, ".claude/skills/deploy/SKILL.md")))
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": skill, "type": 1}, map[string]any{"uri": agent, "type": 2}}})
	c.waitDiagnostics(skill, func(d inprocDiagnostics) bool {
		return len(d.Diagnostics) == 1 && d.Diagnostics[0].Code == "skill-name-mismatch"
	})
	c.waitDiagnostics(agent, func(d inprocDiagnostics) bool { return len(d.Diagnostics) == 0 })

	// Deleting the skill clears its diagnostics and breaks the subagent again.
	if err := os.Remove(filepath.Join(dir, ".claude/skills/deploy/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	since := c.noteCount()
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": skill, "type": 3}, map[string]any{"uri": agent, "type": 2}}})
	c.waitDiagnosticsSince(since, skill, func(d inprocDiagnostics) bool { return len(d.Diagnostics) == 0 })
	c.waitDiagnosticsSince(since, agent, func(d inprocDiagnostics) bool {
		return len(d.Diagnostics) == 1 && d.Diagnostics[0].Code == "subagent-skill-missing"
	})
}

// A skill edited on disk, in a hidden folder the library's watcher skips
// and with no event from the client, is checked again by the server's
// own watcher.
func TestInprocAgentFileWatched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inprocWrite(t, dir, map[string]string{
		".claude/skills/x/SKILL.md": "---\nname: y\ndescription: Does x.\n---\nBody.\n",
		"context/python/x.md":       "# X\n\nBody.\n",
	})
	c := inprocStart(t, dir, inprocOptions{watch: true})
	mismatch := func(d inprocDiagnostics) bool {
		return len(d.Diagnostics) == 1 && d.Diagnostics[0].Code == "skill-name-mismatch"
	}
	skill := string(uriOf(filepath.Join(dir, ".claude/skills/x/SKILL.md")))
	c.waitDiagnostics(skill, mismatch)
	since := c.noteCount()
	inprocWrite(t, dir, map[string]string{".claude/skills/x/SKILL.md": "---\nname: x\ndescription: Does x.\n---\nBody.\n"})
	c.waitDiagnosticsSince(since, skill, func(d inprocDiagnostics) bool { return len(d.Diagnostics) == 0 })
	// A skill created in a folder that did not exist is seen too.
	fresh := string(uriOf(filepath.Join(dir, ".claude/skills/fresh/SKILL.md")))
	inprocWrite(t, dir, map[string]string{".claude/skills/fresh/SKILL.md": "---\nname: stale\ndescription: New.\n---\n"})
	c.waitDiagnostics(fresh, mismatch)
}
