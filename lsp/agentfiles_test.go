package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// A skill edited on disk, in a hidden folder the library's watcher skips
// and with no event from the client, is checked again by the server's
// own watcher.
func TestInprocAgentFileWatched(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".agents/skills/x/SKILL.md": "---\nname: y\ndescription: Does x.\n---\nBody.\n",
		"context/python/x.md":       "# X\n\nBody.\n",
	}, inprocOptions{watch: true})
	dir := c.root
	mismatch := diagCodes("skill-name-mismatch")
	skill := c.uri(".agents/skills/x/SKILL.md")
	c.waitDiagnostics(skill, mismatch)
	since := c.noteCount()
	testtree.WriteFiles(t, dir, map[string]string{".agents/skills/x/SKILL.md": "---\nname: x\ndescription: Does x.\n---\nBody.\n"})
	c.waitDiagnosticsSince(since, skill, diagCodes())
	// A skill created in a folder that did not exist is seen too, and the
	// subagent naming it is checked again.
	agent := c.uri(".claude/agents/a.md")
	testtree.WriteFiles(t, dir, map[string]string{".claude/agents/a.md": "---\nname: a\ndescription: Reviews.\nskills: [fresh]\n---\nAgent.\n"})
	c.waitDiagnostics(agent, diagCodes("subagent-skill-missing"))
	since = c.noteCount()
	fresh := c.uri(".agents/skills/fresh/SKILL.md")
	testtree.WriteFiles(t, dir, map[string]string{".agents/skills/fresh/SKILL.md": "---\nname: stale\ndescription: New.\n---\n"})
	c.waitDiagnostics(fresh, mismatch)
	c.waitDiagnosticsSince(since, agent, diagCodes())
}

// Skills whose folders under .claude/skills are links, as Cline's
// repository keeps them, are the editor's too: a subagent may name them,
// and a linked skill opened through the link gets its diagnostics.
func TestInprocLinkedSkills(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.WriteFiles(t, dir, map[string]string{
		".cline/skills/publish/SKILL.md": "---\nname: publish\ndescription: Publishes the CLI. Use when releasing.\n---\n\nRead [the checklist](references/checklist.md).\n",
		".claude/agents/releaser.md":     "---\nname: releaser\ndescription: Releases. Use when asked to ship.\nskills: [publish, notes]\n---\nRelease.\n",
	})
	fsguardtest.Links(t, dir, map[string]string{".claude/skills/publish": "../../.cline/skills/publish"})
	c := inprocStart(t, dir, inprocOptions{})
	// Only notes is missing: publish is found through the link.
	d := c.waitDiagnostics(c.uri(".claude/agents/releaser.md"), diagCodes("subagent-skill-missing"))
	if msg := d.Diagnostics[0].Message; !strings.Contains(msg, "notes") || strings.Contains(msg, "publish") {
		t.Errorf("message %q, want it about notes only", msg)
	}
	linked := ".claude/skills/publish/SKILL.md"
	text, err := os.ReadFile(filepath.Join(dir, linked))
	if err != nil {
		t.Fatal(err)
	}
	c.open(linked, string(text))
	c.waitDiagnostics(c.uri(linked), diagCodes("skill-link-broken"))
}

// A settings file edited on disk, with no event from the client, is
// checked again by the server's own watcher; a plugin's hooks.json, out of
// the hidden folders, when the client reports the change (the extension
// watches hooks.json files).
func TestInprocHooksWatched(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".claude/settings.json":                "{\"hooks\": {\"PostToolUsed\": []}}\n",
		"plugins/p/.claude-plugin/plugin.json": "{\"name\": \"p\"}\n",
		"plugins/p/hooks/hooks.json":           "{\"hooks\": {}}\n",
		"context/python/x.md":                  "# X\n\nBody.\n",
	}, inprocOptions{watch: true})
	settings := c.uri(".claude/settings.json")
	c.waitDiagnostics(settings, diagCodes("hook-event-unknown"))
	since := c.noteCount()
	testtree.WriteFiles(t, c.root, map[string]string{".claude/settings.json": "{\"hooks\": {\"PostToolUse\": []}}\n"})
	c.waitDiagnosticsSince(since, settings, diagCodes())
	hooks := c.uri("plugins/p/hooks/hooks.json")
	testtree.WriteFiles(t, c.root, map[string]string{"plugins/p/hooks/hooks.json": "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo $TOOL_NAME\"}]}]}}\n"})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": hooks, "type": 2}}})
	c.waitDiagnostics(hooks, diagCodes("hook-env-unset"))
}
