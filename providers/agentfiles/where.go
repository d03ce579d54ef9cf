package agentfiles

import (
	"path"
	"strings"
)

// audience says which agents load a skill from where it lies, so that a
// rule is an error only when that agent would skip or misread the file,
// and the Agent Skills specification's rules are warnings for the skills
// that other agents read too.
type audience struct {
	// claude: Claude Code loads it, from a .claude/skills folder or a
	// plugin, and its documented rules apply: every field is optional.
	claude bool
	// codex: Codex loads it, from .agents/skills (or the older
	// .codex/skills), and skips a skill without frontmatter, name or
	// description, or whose YAML does not parse.
	codex bool
	// opencode: OpenCode loads it, from .opencode/skills (or
	// .opencode/skill), with a loader whose fallback for YAML that does
	// not parse rewrites only values holding ":", and fails the skill
	// when that does not help.
	opencode bool
	// spec: agents that follow the specification may read it: a skill of
	// .agents/skills or .github/skills, one that travels (a collection, a
	// package), or one that lies where no agent looks.
	spec bool
}

// audienceOf returns the agents that load the skill at rel, reached also
// by the links in via.
func (s *Set) audienceOf(rel string, via []string) audience {
	var a audience
	for _, p := range append([]string{rel}, via...) {
		segs := strings.Split(p, "/")
		switch {
		case indexPair(segs, ".claude", "skills") >= 0:
			a.claude = true
		case indexPair(segs, ".agents", "skills") >= 0, indexPair(segs, ".codex", "skills") >= 0:
			a.codex, a.spec = true, true
		case indexPair(segs, ".opencode", "skills") >= 0, indexPair(segs, ".opencode", "skill") >= 0:
			a.opencode, a.spec = true, true
		case s.pluginRoot(p) != "":
			a.claude = true
		default:
			// .github/skills (Copilot), collections, packages, examples.
			a.spec = true
		}
	}
	return a
}

// pluginRoot returns the folder of the Claude Code plugin that holds the
// file at rel, or "": the nearest folder above it with a
// .claude-plugin/plugin.json, or a folder plugins/NAME of a marketplace
// (whose .claude-plugin/marketplace.json is above plugins).
func (s *Set) pluginRoot(rel string) string {
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if s.exists(path.Join(dir, ".claude-plugin/plugin.json")) {
			return dir
		}
		if dir == "." || dir == "/" {
			return ""
		}
		if up := path.Dir(dir); path.Base(up) == "plugins" && s.exists(path.Join(path.Dir(up), ".claude-plugin/marketplace.json")) {
			return dir
		}
	}
}

// travelRoot returns the folder that travels with the skill at rel when
// it is installed elsewhere, and what that folder is, or "" for a skill
// that runs where it lies: a plugin travels whole; a skill of a
// collection (skills/NAME at the repository's root) is installed alone;
// a package's skills travel with the package and its siblings, which are
// installed side by side. A project's own skills (.claude/skills,
// .agents/skills, .github/skills) run in the repository, so a link out
// of their folder that resolves works.
func (s *Set) travelRoot(rel string) (root, what string) {
	segs := strings.Split(rel, "/")
	for _, dir := range []string{".claude", ".agents", ".github", ".codex", ".cursor"} {
		if indexPair(segs, dir, "skills") >= 0 {
			return "", ""
		}
	}
	if p := s.pluginRoot(rel); p != "" {
		return p, "plugin"
	}
	if len(segs) >= 3 && segs[0] == "skills" {
		return path.Dir(rel), "skill"
	}
	// packages/NAME/skills/...: the package and its siblings.
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] == "packages" && segs[i+2] == "skills" {
			return path.Join(segs[:i+1]...), "package"
		}
	}
	return "", ""
}
