package agentfiles

import (
	"path"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
)

// pluginComponents are the folders of a plugin's components, which
// Claude Code looks for at the plugin's root.
var pluginComponents = []string{"commands", "agents", "skills", "hooks", "output-styles"}

// pluginLayout reports component folders placed inside .claude-plugin,
// next to the manifest, where Claude Code does not look for them.
func (c *checker) pluginLayout(at document.Span) {
	dir := path.Dir(c.f.Rel)
	for _, comp := range pluginComponents {
		if c.s.hasDir(path.Join(dir, comp)) {
			c.add(at, diag.PluginComponentMisplaced, "%s/ lies inside .claude-plugin/, where Claude Code does not look: move it to the plugin's root, next to .claude-plugin", comp)
		}
	}
}

// pluginPathOutside reports a manifest path that is absolute or climbs
// out of the plugin, and says whether it did.
func (c *checker) pluginPathOutside(v *jnode, field string) bool {
	p := v.str
	switch {
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || (len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')):
		c.add(v.span, diag.PluginPathOutside, "%s path %q is absolute; a plugin's paths are relative to its root, starting with ./, since an installed plugin is copied elsewhere", field, p)
		return true
	case strings.Contains(p, "${") || strings.Contains(p, "://"):
		return false
	}
	if fsguard.Climbs(p) {
		c.add(v.span, diag.PluginPathOutside, "%s path %q climbs out of the plugin; an installed plugin is copied on its own, so it will not be there", field, p)
		return true
	}
	return false
}
