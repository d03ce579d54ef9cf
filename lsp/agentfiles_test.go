package lsp

import (
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
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
	// A skill created with a command's name shadows the command, which is
	// checked again.
	cmd := c.uri(".claude/commands/lint.md")
	testtree.WriteFiles(t, dir, map[string]string{".claude/commands/lint.md": "Lint as @docs/lint-rules.md says.\n"})
	c.waitDiagnostics(cmd, diagCodes("command-file-missing"))
	since = c.noteCount()
	testtree.WriteFiles(t, dir, map[string]string{".claude/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lints.\n---\nLint.\n"})
	c.waitDiagnosticsSince(since, cmd, diagHas("command-shadowed"))
}

// A settings file edited on disk, with no event from the client, is
// checked again by the server's own watcher. A plugin's hooks.json, which
// the client reports, is the fixture
// testdata/requests/agents/plugin-hooks.txtar.
func TestInprocHooksWatched(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".claude/settings.json": "{\"hooks\": {\"PostToolUsed\": []}}\n",
		"context/python/x.md":   "# X\n\nBody.\n",
	}, inprocOptions{watch: true})
	settings := c.uri(".claude/settings.json")
	c.waitDiagnostics(settings, diagCodes("hook-event-unknown"))
	since := c.noteCount()
	testtree.WriteFiles(t, c.root, map[string]string{".claude/settings.json": "{\"hooks\": {\"PostToolUse\": []}}\n"})
	c.waitDiagnosticsSince(since, settings, diagCodes())
}
