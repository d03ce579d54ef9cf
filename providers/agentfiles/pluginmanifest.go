package agentfiles

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard"
)

// replacingPathFields are the manifest fields whose paths replace the
// plugin's default folder rather than add to it, with that folder.
// skills adds to skills/; hooks, mcpServers and lspServers merge.
var replacingPathFields = []struct{ field, folder string }{
	{"commands", "commands"},
	{"agents", "agents"},
	{"outputStyles", "output-styles"},
}

// pluginFolderShadowed reports a default component folder that a manifest
// path field replaces: Claude Code loads the manifest's paths only, so
// the folder's files are not loaded. A path into the folder addresses it,
// and then nothing is said.
func (c *checker) pluginFolderShadowed(root *jnode) {
	base := c.pluginRoot()
	for _, rf := range replacingPathFields {
		v, k := root.get(rf.field)
		if k == nil || !c.s.hasDir(path.Join(base, rf.folder)) {
			continue
		}
		var paths []string
		switch v.kind {
		case '"':
			paths = []string{v.str}
		case '[':
			for _, it := range v.items {
				if it.kind == '"' {
					paths = append(paths, it.str)
				}
			}
		default:
			continue
		}
		if slices.ContainsFunc(paths, func(p string) bool {
			return fsguard.Within(rf.folder, path.Clean(p))
		}) {
			continue
		}
		c.add(k.span, diag.PluginFolderShadowed, "%s replaces the default %s/ folder, so Claude Code does not load the files in %s/; list \"./%s/\" among the paths to keep them", rf.field, rf.folder, rf.folder, rf.folder)
	}
}

// pluginHooksDefault reports a manifest hooks path naming the default
// hooks/hooks.json, which Claude Code loads on its own: the second load
// fails as a duplicate, and the file's hooks do not load.
func (c *checker) pluginHooksDefault(v *jnode) {
	if v.kind == '"' && path.Clean(v.str) == "hooks/hooks.json" {
		c.add(v.span, diag.PluginHooksDuplicate, "hooks/hooks.json is loaded on its own; naming it in the manifest's hooks makes Claude Code reject it as a duplicate, so its hooks do not load: remove it (hooks lists additional files only)")
	}
}

// pluginHooks checks hooks given inline in a plugin manifest: an event
// map, or a list of event maps and paths.
func (c *checker) pluginHooks(v *jnode) {
	at := hookPlace{plugin: c.pluginRoot(), what: "plugin hooks"}
	// The hooks.json form, with its hooks wrapper, is read as the
	// wrapped map: whether the manifest accepts it is not documented.
	if inner, k := v.get("hooks"); k != nil && inner.kind == '{' && !slices.ContainsFunc(v.keys, func(k *jnode) bool { return k.str != "hooks" && k.str != "description" }) {
		v = inner
	}
	c.hookConfig(v, at)
}

// userConfigTypes are the documented types of a userConfig option.
var userConfigTypes = []string{"string", "number", "boolean", "directory", "file"}

// userConfigFields are the fields of a userConfig option, with their
// JSON kinds; default takes any value.
var userConfigFields = map[string]jsonKind{
	"type": jString, "title": jString, "description": jString, "sensitive": jBool,
	"required": jBool, "default": jAny, "multiple": jBool, "min": jNumber, "max": jNumber,
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// userConfig checks a plugin's userConfig (or a channel's): an object
// mapping identifiers to options, each with a type, a title and a
// description.
func (c *checker) userConfig(v *jnode, where string) {
	if v.kind != '{' {
		c.add(v.span, diag.PluginUserConfigInvalid, "%s must be an object mapping option names to options ({\"type\": …, \"title\": …, \"description\": …}), not %s", where, kindName(v.kind))
		return
	}
	for i, k := range v.keys {
		opt := v.vals[i]
		if !identRE.MatchString(k.str) {
			c.add(k.span, diag.PluginUserConfigInvalid, "option name %q is not a valid identifier (letters, digits and _, not starting with a digit), which ${user_config.KEY} needs", k.str)
		}
		if opt.kind != '{' {
			c.add(opt.span, diag.PluginUserConfigInvalid, "option %s must be an object with type, title and description, not %s", k.str, kindName(opt.kind))
			continue
		}
		for _, f := range []string{"type", "title", "description"} {
			if _, fk := opt.get(f); fk == nil {
				c.add(k.span, diag.PluginUserConfigInvalid, "option %s has no %s, which Claude Code requires", k.str, f)
			}
		}
		typ := ""
		for j, fk := range opt.keys {
			fv := opt.vals[j]
			want, known := userConfigFields[fk.str]
			if !known {
				msg := fmt.Sprintf("%s is not a field of a userConfig option; it has no effect", fk.str)
				if s := nearestName(fk.str, mapKeysOf(userConfigFields)); s != "" {
					msg += fmt.Sprintf("; did you mean %s?", s)
				}
				c.add(fk.span, diag.PluginUserConfigInvalid, "%s", msg)
				continue
			}
			if !want.accepts(fv) {
				c.add(fv.span, diag.PluginUserConfigInvalid, "%s must be %s, not %s", fk.str, want, kindName(fv.kind))
				continue
			}
			if fk.str == "type" {
				typ = fv.str
				if !slices.Contains(userConfigTypes, fv.str) {
					c.add(fv.span, diag.PluginUserConfigInvalid, "%q is not an option type: it is one of %s", fv.str, strings.Join(userConfigTypes, ", "))
					typ = "?"
				}
			}
		}
		if typ == "" || typ == "?" {
			continue
		}
		if _, mk := opt.get("multiple"); mk != nil && typ != "string" {
			c.add(mk.span, diag.PluginUserConfigInvalid, "multiple applies to string options only, not to a %s option", typ)
		}
		for _, f := range []string{"min", "max"} {
			if _, fk := opt.get(f); fk != nil && typ != "number" {
				c.add(fk.span, diag.PluginUserConfigInvalid, "%s bounds number options only, not a %s option", f, typ)
			}
		}
	}
}

// userConfigRefRE matches a ${user_config.KEY} substitution.
var userConfigRefRE = regexp.MustCompile(`\$\{user_config\.([^}]*)\}`)

// userConfigRefs reports ${user_config.KEY} substitutions in the
// manifest's strings that name no declared option.
func (c *checker) userConfigRefs(root *jnode) {
	declared := map[string]bool{}
	if uc, _ := root.get("userConfig"); uc != nil && uc.kind == '{' {
		for _, k := range uc.keys {
			declared[k.str] = true
		}
	}
	if ch, _ := root.get("channels"); ch != nil {
		for _, it := range ch.items {
			if uc, _ := it.get("userConfig"); uc != nil && uc.kind == '{' {
				for _, k := range uc.keys {
					declared[k.str] = true
				}
			}
		}
	}
	var walk func(n *jnode, depth int)
	walk = func(n *jnode, depth int) {
		if depth > maxJSONDepth {
			return
		}
		if n.kind == '"' {
			for _, m := range userConfigRefRE.FindAllStringSubmatch(n.str, -1) {
				if !declared[m[1]] {
					c.add(n.span, diag.PluginUserConfigInvalid, "%s names no option of the plugin's userConfig, so it is not substituted", m[0])
				}
			}
			return
		}
		for _, v := range append(n.vals, n.items...) {
			walk(v, depth+1)
		}
	}
	for i, k := range root.keys {
		if k.str != "userConfig" && k.str != "channels" {
			walk(root.vals[i], 0)
		}
	}
}
