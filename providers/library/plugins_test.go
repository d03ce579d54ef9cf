package library

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// TestPluginCommandsDoNotCollide: two plugins may each have a command of
// a name, which the agent calls by the plugin's name and the command's;
// two plain command folders with one collide, and are warned about.
func TestPluginCommandsDoNotCollide(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"plugins/claude/context7/.claude-plugin/plugin.json": "{\"name\": \"context7\"}\n",
		"plugins/claude/context7/commands/docs.md":           "# Docs\n",
		"plugins/copilot/context7/plugin.json":               "{\"name\": \"context7\"}\n",
		"plugins/copilot/context7/commands/docs.md":          "# Docs\n",
		"commands/ship.md":                                   "# Ship\n",
		"tools/commands/ship.md":                             "# Ship\n",
	})
	l := loadWithin(t, dir)
	var warned []string
	for _, w := range l.Snapshot().Warnings() {
		warned = append(warned, w.Message)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "command ship is also defined by") {
		t.Errorf("warnings %q, want one, about ship", warned)
	}
}
