package discover

import (
	"path/filepath"

	"github.com/ctxls/ctxls/providers/fsguard"
)

// pluginOf returns the folder of the agent plugin a command file belongs
// to, or "": the folder holding its commands folder, when that folder has
// a plugin manifest (.claude-plugin/, plugin.json, .codex-plugin/) or
// lies in a folder named plugins. An agent calls a plugin's command by
// the plugin's name and the command's, so two plugins may each have one
// of a name. The manifest is looked for through ws, the workspace's
// check; without one (nil) a command belongs to no plugin by manifest.
func pluginOf(ws *fsguard.Root, command string) string {
	for dir := filepath.Dir(command); ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "commands" {
			root := filepath.Dir(dir)
			if filepath.Base(filepath.Dir(root)) == "plugins" {
				return root
			}
			if ws == nil {
				return ""
			}
			for _, m := range []string{".claude-plugin", "plugin.json", ".codex-plugin"} {
				if _, err := ws.Stat(filepath.Join(root, m)); err == nil {
					return root
				}
			}
			return ""
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

// Namespaced reports whether two command files of a name, files of the
// workspace of root, are commands of two plugins, which do not collide.
func Namespaced(root *fsguard.Root, a, b string) bool {
	pa, pb := pluginOf(root, a), pluginOf(root, b)
	return pa != "" && pb != "" && pa != pb
}
