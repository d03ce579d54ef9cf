// Package agentfiles knows the files coding agents load besides a context
// library: Agent Skills, Claude Code commands, subagents, memory, rules and
// plugins, AGENTS.md and GEMINI.md, Cursor rules and Copilot instructions
// and prompts. It finds them in a workspace (Load), reads the
// frontmatter fields listings need (Meta), and checks each kind against
// what the agent documents (Check), with a code from the rules table.
package agentfiles

import (
	"path"
	"strings"
)

// Kind is a kind of agent file.
type Kind int

// Kinds of agent files.
const (
	KindUnknown Kind = iota
	// KindSkill is an Agent Skill: a SKILL.md in a folder of its name.
	KindSkill
	// KindCommand is a Claude Code slash command.
	KindCommand
	// KindSubagent is a Claude Code subagent.
	KindSubagent
	// KindMemory is a Claude Code memory file: CLAUDE.md, CLAUDE.local.md.
	KindMemory
	// KindRule is a Claude Code rule under .claude/rules, loaded always
	// or, with paths globs, when a matching file is read.
	KindRule
	// KindPlugin is a plugin manifest, .claude-plugin/plugin.json.
	KindPlugin
	// KindMarketplace is a plugin marketplace, .claude-plugin/marketplace.json.
	KindMarketplace
	// KindMCP is a file of MCP server configurations: .mcp.json,
	// .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json or
	// .codex/config.toml.
	KindMCP
	// KindLSP is a language server configuration of a plugin, .lsp.json.
	KindLSP
	// KindAgentsMd is an AGENTS.md, AGENTS.override.md or GEMINI.md, or
	// a file .codex/config.toml names in project_doc_fallback_filenames.
	KindAgentsMd
	// KindCursorRule is a Cursor rule, .cursor/rules/**/*.mdc.
	KindCursorRule
	// KindCopilotInstructions is .github/copilot-instructions.md or a
	// .github/instructions/*.instructions.md file.
	KindCopilotInstructions
	// KindCopilotPrompt is a .github/prompts/*.prompt.md file.
	KindCopilotPrompt
	// KindSettings is a Claude Code settings file of the project,
	// .claude/settings.json or .claude/settings.local.json.
	KindSettings
	// KindHooks is a plugin's hook configuration, hooks/hooks.json.
	KindHooks
	// KindOutputStyle is a Claude Code output style,
	// .claude/output-styles/*.md or a plugin's output-styles/*.md.
	KindOutputStyle
	// KindCursorRuleMd is a plain .md file in a .cursor/rules folder.
	KindCursorRuleMd
	// KindCursorLegacy is the legacy .cursorrules file at the root.
	KindCursorLegacy
	// KindCopilotAgent is a Copilot custom agent, .github/agents/*.agent.md
	// or agents/*.agent.md of a Copilot CLI plugin (a folder with plugin.json).
	KindCopilotAgent
	// KindCopilotChatMode is a .github/chatmodes/*.chatmode.md file, the
	// older form of custom agents.
	KindCopilotChatMode
	// KindWindsurfRule is a Windsurf rule, .windsurf/rules/*.md.
	KindWindsurfRule
	// KindWindsurfLegacy is the legacy .windsurfrules file at the root.
	KindWindsurfLegacy
	// KindClineRule is a Cline rule: a .clinerules file, or a .md file of
	// a .clinerules folder.
	KindClineRule
	// KindKiroSteering is a Kiro steering file, .kiro/steering/*.md.
	KindKiroSteering
	// KindOpenCodeConfig is OpenCode's opencode.json at the root.
	KindOpenCodeConfig
)

var kindNames = [...]string{
	KindUnknown:             "unknown",
	KindSkill:               "skill",
	KindCommand:             "command",
	KindSubagent:            "subagent",
	KindMemory:              "memory",
	KindRule:                "rule",
	KindPlugin:              "plugin",
	KindMarketplace:         "marketplace",
	KindMCP:                 "mcp",
	KindLSP:                 "lsp",
	KindAgentsMd:            "agents-md",
	KindCursorRule:          "cursor-rule",
	KindCopilotInstructions: "copilot-instructions",
	KindCopilotPrompt:       "copilot-prompt",
	KindSettings:            "settings",
	KindHooks:               "hooks",
	KindOutputStyle:         "output-style",
	KindCursorRuleMd:        "cursor-rule-md",
	KindCursorLegacy:        "cursorrules",
	KindCopilotAgent:        "copilot-agent",
	KindCopilotChatMode:     "copilot-chat-mode",
	KindWindsurfRule:        "windsurf-rule",
	KindWindsurfLegacy:      "windsurfrules",
	KindClineRule:           "cline-rule",
	KindKiroSteering:        "kiro-steering",
	KindOpenCodeConfig:      "opencode-config",
}

// String returns the kind's name: "skill", "command", "cursor-rule", ….
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// isJSON reports whether files of the kind are JSON (or, for Codex's
// MCP configuration, TOML) rather than markdown.
func (k Kind) isJSON() bool {
	return k == KindPlugin || k == KindMarketplace || k == KindMCP || k == KindLSP || k == KindSettings || k == KindHooks || k == KindOpenCodeConfig
}

// Classify returns the kind of the file at rel, a slash-separated path
// relative to the workspace root, or KindUnknown. pluginRoot reports
// whether a folder (slash-separated, relative; "." for the root) holds a
// .claude-plugin folder, whose commands/ and agents/ belong to the plugin;
// it may be nil.
func Classify(rel string, pluginRoot func(dir string) bool) Kind {
	rel = path.Clean(strings.TrimPrefix(rel, "./"))
	if mcpConfigOf(rel) != nil {
		return KindMCP
	}
	base := path.Base(rel)
	dir := path.Dir(rel)
	segs := strings.Split(rel, "/")
	switch base {
	case "SKILL.md":
		if dir != "." {
			return KindSkill
		}
		return KindUnknown
	case "CLAUDE.md", "CLAUDE.local.md":
		return KindMemory
	case "AGENTS.md", "AGENTS.override.md", "GEMINI.md":
		return KindAgentsMd
	case "plugin.json":
		if path.Base(dir) == ".claude-plugin" {
			return KindPlugin
		}
	case "marketplace.json":
		if path.Base(dir) == ".claude-plugin" {
			return KindMarketplace
		}
	case ".mcp.json":
		return KindMCP
	case ".lsp.json":
		return KindLSP
	case "copilot-instructions.md":
		if path.Base(dir) == ".github" {
			return KindCopilotInstructions
		}
	case "settings.json", "settings.local.json":
		if dir == ".claude" || strings.HasSuffix(dir, "/.claude") {
			return KindSettings
		}
	case "hooks.json":
		if path.Base(dir) == "hooks" && isPluginDir(path.Dir(dir), segs[:len(segs)-2], pluginRoot) {
			return KindHooks
		}
	case ".cursorrules":
		if dir == "." {
			return KindCursorLegacy
		}
	case ".windsurfrules":
		if dir == "." {
			return KindWindsurfLegacy
		}
	case ".clinerules":
		if dir == "." {
			return KindClineRule
		}
	case "opencode.json":
		if dir == "." {
			return KindOpenCodeConfig
		}
	}
	if strings.EqualFold(base, "README.md") && (indexPair(segs, ".cursor", "rules") >= 0 || indexPair(segs, ".github", "agents") == 0) {
		return KindUnknown // documents its folder: no rule, no agent
	}
	if n := len(segs); n == 2 && segs[0] == ".clinerules" && strings.HasSuffix(base, ".md") {
		return KindClineRule
	}
	if i := indexPair(segs, ".windsurf", "rules"); i >= 0 && i+3 == len(segs) && strings.HasSuffix(base, ".md") {
		return KindWindsurfRule
	}
	if i := indexPair(segs, ".kiro", "steering"); i >= 0 && i+3 == len(segs) && strings.HasSuffix(base, ".md") {
		return KindKiroSteering
	}
	if i := indexPair(segs, ".github", "agents"); i == 0 && len(segs) == 3 && strings.HasSuffix(base, ".md") {
		return KindCopilotAgent
	}
	if i := indexPair(segs, ".github", "chatmodes"); i == 0 && len(segs) == 3 && strings.HasSuffix(base, ".chatmode.md") {
		return KindCopilotChatMode
	}
	switch {
	case strings.HasSuffix(base, ".mdc"):
		if i := indexPair(segs, ".cursor", "rules"); i >= 0 {
			return KindCursorRule
		}
	case strings.HasSuffix(base, ".instructions.md"):
		if i := indexPair(segs, ".github", "instructions"); i >= 0 {
			return KindCopilotInstructions
		}
	case strings.HasSuffix(base, ".prompt.md"):
		if i := indexPair(segs, ".github", "prompts"); i >= 0 && i+3 == len(segs) {
			return KindCopilotPrompt
		}
	case strings.HasSuffix(base, ".md"):
		if len(segs) >= 2 && segs[len(segs)-2] == "output-styles" && !strings.EqualFold(base, "README.md") {
			if i := indexPair(segs, ".claude", "output-styles"); i >= 0 && i+3 == len(segs) {
				return KindOutputStyle
			}
			if isPluginDir(path.Dir(dir), segs[:len(segs)-2], pluginRoot) {
				return KindOutputStyle
			}
		}
		if indexPair(segs, ".cursor", "rules") >= 0 {
			return KindCursorRuleMd
		}
		if indexPair(segs, ".claude", "rules") >= 0 {
			return KindRule
		}
		if indexPair(segs, ".claude", "commands") >= 0 {
			return KindCommand
		}
		if strings.EqualFold(base, "README.md") && len(segs) >= 2 && segs[len(segs)-2] == "agents" {
			return KindUnknown // documents the folder; Claude Code loads no agent from it
		}
		if i := indexPair(segs, ".claude", "agents"); i >= 0 && i+3 == len(segs) {
			return KindSubagent
		}
		// A plugin's commands/ and agents/ sit at its root, next to
		// .claude-plugin; plugins/NAME/ of a marketplace is the usual
		// place for one whose manifest is left out.
		for i := len(segs) - 2; i >= 0; i-- {
			if segs[i] != "commands" && segs[i] != "agents" {
				continue
			}
			root := path.Join(segs[:i]...)
			if root == "" {
				root = "."
			}
			isPlugin := isPluginDir(root, segs[:i], pluginRoot)
			if !isPlugin {
				continue
			}
			if segs[i] == "agents" && i+2 == len(segs) {
				return KindSubagent
			}
			if segs[i] == "commands" {
				return KindCommand
			}
		}
	}
	return KindUnknown
}

// isPluginDir reports whether the folder root, whose segments are segs,
// is a plugin's: it holds .claude-plugin, or it is plugins/NAME of a
// marketplace (the folder above plugins holds .claude-plugin). The
// manifest is optional, but a plugin without one loads only from a
// marketplace entry: a plugins/NAME folder elsewhere is another tool's
// (Cline's SDK plugins keep agents/ and skills/ there too).
func isPluginDir(root string, segs []string, pluginRoot func(dir string) bool) bool {
	if root == "" {
		root = "."
	}
	if pluginRoot == nil {
		return false
	}
	if pluginRoot(root) {
		return true
	}
	n := len(segs)
	return n >= 2 && segs[n-2] == "plugins" && pluginRoot(path.Join(append([]string{"."}, segs[:n-2]...)...))
}

// indexPair returns the index of the first segment a followed by b, or -1.
func indexPair(segs []string, a, b string) int {
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] == a && segs[i+1] == b {
			return i
		}
	}
	return -1
}
