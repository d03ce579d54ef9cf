package discover

import (
	"os"
	"path/filepath"
)

// pluginOf returns the folder of the agent plugin a command file belongs
// to, or "": the folder holding its commands folder, when that folder has
// a plugin manifest (.claude-plugin/, plugin.json, .codex-plugin/) or
// lies in a folder named plugins. An agent calls a plugin's command by
// the plugin's name and the command's, so two plugins may each have one
// of a name.
func pluginOf(command string) string {
	for dir := filepath.Dir(command); ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "commands" {
			root := filepath.Dir(dir)
			if filepath.Base(filepath.Dir(root)) == "plugins" {
				return root
			}
			for _, m := range []string{".claude-plugin", "plugin.json", ".codex-plugin"} {
				if _, err := os.Stat(filepath.Join(root, m)); err == nil {
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

// Namespaced reports whether two command files of a name are commands of
// two plugins, which do not collide.
func Namespaced(a, b string) bool {
	pa, pb := pluginOf(a), pluginOf(b)
	return pa != "" && pb != "" && pa != pb
}
