// Package diag is the one table of every diagnostic ctxls emits: its
// stable code, default severity, a line of documentation, where the rule
// comes from and whether its fix may be applied without review. The
// README's rule list is generated from it, and every package that emits
// diagnostics takes its codes from here.
package diag

import (
	"fmt"
	"strings"
)

// Severity follows the LSP numbering.
type Severity int

// Severities.
const (
	Error       Severity = 1
	Warning     Severity = 2
	Information Severity = 3
	Hint        Severity = 4
)

// String returns "error", "warning", "info" or "hint".
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Information:
		return "info"
	}
	return "hint"
}

// FixSafety says whether the fix a rule offers may be applied unattended.
type FixSafety int

// Fix safeties.
const (
	// NoFix: the rule offers no fix.
	NoFix FixSafety = iota
	// Safe fixes keep what the author meant (`ctxls check --fix`).
	Safe
	// Unsafe fixes guess (`ctxls check --fix-unsafe`).
	Unsafe
)

// String returns "none", "safe" or "unsafe".
func (f FixSafety) String() string {
	switch f {
	case Safe:
		return "safe"
	case Unsafe:
		return "unsafe"
	}
	return "none"
}

// Rule is one diagnostic ctxls emits.
type Rule struct {
	// Code is stable: editors, scripts and .ctxls.yaml's disable list match on it.
	Code string
	// Severity is the default severity.
	Severity Severity
	// Doc says in one line when the rule fires.
	Doc string
	// Source is what the rule is based on: a specification, an agent's
	// documented behaviour or ctxls's own model.
	Source string
	// Fix says whether and how safely the rule can be fixed.
	Fix FixSafety
}

// Sources of rules.
const (
	srcCtxls       = "ctxls"
	srcSkillSpec   = "Agent Skills specification (https://agentskills.io/specification)"
	srcSkillsDocs  = "Claude Code docs (https://code.claude.com/docs/en/skills)"
	srcCodexSkills = "Codex docs (https://developers.openai.com/codex/skills)"
	srcClaudeYAML  = "Claude Code's frontmatter loader (https://github.com/anthropics/claude-code/issues/91871); OpenCode's (https://github.com/anomalyco/opencode/blob/dev/packages/opencode/src/config/markdown.ts)"
	srcVSCodeInstr = "VS Code docs (https://code.visualstudio.com/docs/agent-customization/custom-instructions)"
	srcClaudeCode  = "Claude Code docs"
	srcCodex       = "Codex docs"
	srcCodexMd     = "Codex docs (https://developers.openai.com/codex/guides/agents-md)"
	srcGeminiMd    = "Gemini CLI docs (https://geminicli.com/docs/cli/gemini-md, https://github.com/google-gemini/gemini-cli/blob/main/docs/core/memport.md)"
	srcCursor      = "Cursor docs (https://cursor.com/docs/context/rules)"
	srcCopilotAgt  = "GitHub Copilot docs (https://docs.github.com/en/copilot/reference/custom-agents-configuration)"
	srcVSCodeAgent = "VS Code docs (https://code.visualstudio.com/docs/agent-customization/custom-agents)"
	srcWindsurf    = "Windsurf docs (https://docs.windsurf.com/windsurf/cascade/memories)"
	srcCline       = "Cline docs (https://docs.cline.bot/features/cline-rules/conditional-rules)"
	srcKiro        = "Kiro docs (https://kiro.dev/docs/steering/)"
	srcOpenCode    = "OpenCode docs (https://opencode.ai/docs/rules)"
	srcCopilot     = "GitHub Copilot docs (https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions)"
	srcSubagents   = "Claude Code docs (https://code.claude.com/docs/en/sub-agents)"
	srcCommands    = "Claude Code docs (https://code.claude.com/docs/en/slash-commands)"
	srcPluginCache = "Claude Code plugin docs (https://code.claude.com/docs/en/plugins/loading)"
	srcYAML        = "YAML 1.2"
	srcJSON        = "JSON (RFC 8259)"
	srcJSONDup     = "JSON (RFC 8259 §4, https://www.rfc-editor.org/rfc/rfc8259#section-4: \"many implementations report the last name/value pair only\") and JavaScript's JSON.parse, which every agent reading these files uses or follows (ECMA-262: preceding values for the same key are overwritten)"
	srcClaudePlugs = "Claude Code plugin docs"
	srcMarkdown    = "Marksman, VS Code markdown"
	srcTOML        = "TOML 1.0 (https://toml.io/en/v1.0.0)"
	srcCodexConfig = "Codex docs (https://developers.openai.com/codex/config-reference)"
	srcGeminiConf  = "Gemini CLI docs (https://geminicli.com/docs/reference/configuration)"
	// srcMCP are the pages of every agent's MCP server configuration.
	srcMCP = "Claude Code docs (https://code.claude.com/docs/en/mcp); Cursor docs (https://cursor.com/docs/mcp); " +
		"VS Code docs (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration); " +
		"Gemini CLI docs (https://geminicli.com/docs/tools/mcp-server/); Codex docs (https://developers.openai.com/codex/mcp) " +
		"and its parser (https://github.com/openai/codex/blob/main/codex-rs/config/src/mcp_types.rs)"
	srcHooks       = "Claude Code docs (https://code.claude.com/docs/en/hooks)"
	srcSettings    = "Claude Code docs (https://code.claude.com/docs/en/settings) and its settings schema (https://json.schemastore.org/claude-code-settings.json)"
	srcPermissions = "Claude Code docs (https://code.claude.com/docs/en/settings#permission-rule-syntax)"
	srcStyles      = "Claude Code docs (https://code.claude.com/docs/en/output-styles)"
	srcPluginsRef  = "Claude Code docs (https://code.claude.com/docs/en/plugins-reference)"
	srcPluginPaths = "Claude Code docs (https://code.claude.com/docs/en/plugins-reference#path-behavior-rules)"
	srcUserConfig  = "Claude Code docs (https://code.claude.com/docs/en/plugins-reference#user-configuration)"
	srcPluginHooks = "Claude Code docs (https://code.claude.com/docs/en/plugins-reference#hooks)"
	srcFileChanged = "Claude Code docs (https://code.claude.com/docs/en/hooks#filechanged)"
	srcMCPClaude   = "Claude Code docs (https://code.claude.com/docs/en/mcp)"
)

// Codes of the context library.
const (
	UnresolvedReference = "unresolved-reference"
	UnknownSection      = "unknown-section"
	FrontmatterParse    = "frontmatter-parse-error"
	MissingField        = "frontmatter-missing-field"
	InvalidValue        = "frontmatter-invalid-value"
	UnknownField        = "frontmatter-unknown-field"
	IDMismatch          = "frontmatter-id-mismatch"
	SectionMissing      = "section-missing"
	TokenDrift          = "token-drift"
	IndexMissingTopic   = "index-missing-topic"
	IndexUnlistedTopic  = "index-unlisted-topic"
	DuplicateTopic      = "duplicate-topic"
	FileSkipped         = "file-skipped"
	Config              = "config"
	// DiagnosticsLeftOut stands for the diagnostics of a file past
	// limits.fileDiagnostics.
	DiagnosticsLeftOut = "diagnostics-left-out"
	// MarkdownLinkBroken is a relative link of a markdown file that is
	// not a skill (skills have SkillLinkBroken) naming no file or anchor.
	MarkdownLinkBroken = "markdown-link-broken"
)

// Codes of memory files and their imports.
const (
	ImportTrailingPunctuation = "import-trailing-punctuation"
	ImportMissing             = "import-missing"
	ImportCycle               = "import-cycle"
	ImportTooDeep             = "import-too-deep"
	ImportOutsideProject      = "import-outside-project"
	MemoryTooLarge            = "memory-too-large"
	RulePathsInvalid          = "rule-paths-invalid"
	MemoryCommandUndefined    = "memory-command-undefined"
	MemoryPathMissing         = "memory-path-missing"
	MemoryDuplicate           = "memory-duplicate-paragraph"
)

// Codes of agent files: skills, commands, subagents, plugins, AGENTS.md,
// Cursor and Copilot rules.
const (
	FrontmatterMissing          = "frontmatter-missing"
	AgentUnknownField           = "agent-unknown-field"
	FrontmatterLenientYAML      = "frontmatter-lenient-yaml"
	SkillNotLoaded              = "skill-not-loaded"
	SkillNameMissing            = "skill-name-missing"
	SkillNameInvalid            = "skill-name-invalid"
	SkillNameMismatch           = "skill-name-mismatch"
	SkillDescriptionMissing     = "skill-description-missing"
	SkillDescriptionTooLong     = "skill-description-too-long"
	SkillCompatibilityLong      = "skill-compatibility-too-long"
	SkillMetadataInvalid        = "skill-metadata-invalid"
	SkillFieldInvalid           = "skill-field-invalid"
	SkillListingTooLong         = "skill-listing-too-long"
	SkillBodyTooLong            = "skill-body-too-long"
	SkillLinkBroken             = "skill-link-broken"
	SkillLinkOutside            = "skill-link-outside"
	CommandFieldInvalid         = "command-field-invalid"
	CommandFileMissing          = "command-file-missing"
	CommandShadowed             = "command-shadowed"
	SubagentFieldMissing        = "subagent-field-missing"
	SubagentNameInvalid         = "subagent-name-invalid"
	SubagentFieldInvalid        = "subagent-field-invalid"
	SubagentSkillMissing        = "subagent-skill-missing"
	JSONSyntax                  = "json-syntax-error"
	JSONDuplicateKey            = "json-duplicate-key"
	PluginFieldMissing          = "plugin-field-missing"
	PluginFieldInvalid          = "plugin-field-invalid"
	PluginNameInvalid           = "plugin-name-invalid"
	PluginNameDuplicate         = "plugin-name-duplicate"
	PluginPathMissing           = "plugin-path-missing"
	TOMLSyntax                  = "toml-syntax-error"
	MCPFieldMissing             = "mcp-server-field-missing"
	MCPFieldInvalid             = "mcp-server-field-invalid"
	MCPTypeUnknown              = "mcp-server-type-unknown"
	MCPTransportConflict        = "mcp-server-transport-conflict"
	MCPKeyMisspelled            = "mcp-key-misspelled"
	MCPKeyUndocumented          = "mcp-key-undocumented"
	MCPVariableUnexpanded       = "mcp-variable-unexpanded"
	MCPSecretPlainText          = "mcp-secret-plain-text"
	AgentsMdTooLarge            = "agents-md-too-large"
	AgentsMdShadowed            = "agents-md-shadowed"
	GeminiImportMissing         = "gemini-import-missing"
	GeminiImportCycle           = "gemini-import-cycle"
	CursorFieldInvalid          = "cursor-field-invalid"
	CursorRuleNeverLoads        = "cursor-rule-never-loads"
	CopilotFieldInvalid         = "copilot-field-invalid"
	CopilotApplyToInvalid       = "copilot-applyto-invalid"
	CopilotApplyToUnmatched     = "copilot-applyto-unmatched"
	CopilotApplyToMissing       = "copilot-applyto-missing"
	CursorRuleNotMdc            = "cursor-rule-not-mdc"
	CopilotAgentFieldMissing    = "copilot-agent-field-missing"
	CopilotAgentTooLong         = "copilot-agent-too-long"
	CopilotChatModeLegacy       = "copilot-chat-mode-legacy"
	WindsurfFieldInvalid        = "windsurf-field-invalid"
	WindsurfRuleTooLong         = "windsurf-rule-too-long"
	ClinePathsInvalid           = "cline-paths-invalid"
	KiroFieldInvalid            = "kiro-field-invalid"
	OpenCodeInstructionsMissing = "opencode-instructions-missing"
	CodexConfigInvalid          = "codex-config-invalid"
	GeminiSettingsInvalid       = "gemini-settings-invalid"
	KiroFileReferenceMissing    = "kiro-file-reference-missing"
)

// Codes of Claude Code hooks, settings, output styles and plugin layout.
const (
	HookShapeInvalid           = "hook-shape-invalid"
	HookEventUnknown           = "hook-event-unknown"
	HookMatcherInvalid         = "hook-matcher-invalid"
	HookMatcherIgnored         = "hook-matcher-ignored"
	HookHandlerInvalid         = "hook-handler-invalid"
	HookKeyUnknown             = "hook-key-unknown"
	HookScriptMissing          = "hook-script-missing"
	HookScriptNotExecutable    = "hook-script-not-executable"
	HookEnvUnset               = "hook-env-unset"
	SettingsValueInvalid       = "settings-value-invalid"
	SettingsPermissionInvalid  = "settings-permission-invalid"
	SettingsKeyUnknown         = "settings-key-unknown"
	SettingsKeyIgnored         = "settings-key-ignored"
	SettingsOutputStyleMissing = "settings-output-style-missing"
	OutputStyleFieldInvalid    = "output-style-field-invalid"
	PluginComponentMisplaced   = "plugin-component-misplaced"
	PluginPathOutside          = "plugin-path-outside"
	PluginFolderShadowed       = "plugin-folder-shadowed"
	PluginUserConfigInvalid    = "plugin-user-config-invalid"
	PluginHooksDuplicate       = "plugin-hooks-duplicate"
	HookMatcherFilePattern     = "hook-matcher-file-pattern"
	HookMatcherNoValue         = "hook-matcher-no-value"
	MCPServerNameReserved      = "mcp-server-name-reserved"
)

// table lists every rule, in the order the README shows them.
var table = []Rule{
	{UnresolvedReference, Error, "a reference names no topic, domain or file; the fix is a did-you-mean", srcCtxls, Unsafe},
	{UnknownSection, Error, "`domain:topic#Section` names a section the topic lacks", srcCtxls, Unsafe},
	{FrontmatterParse, Error, "the frontmatter is not valid YAML, so the agent ignores it; fixes for the usual causes: a value holding `: ` or starting with a reserved character, mismatched quotes, an unindented continuation line, tabs", srcYAML, Safe},
	{MissingField, Warning, "a required field of a topic is missing", srcCtxls, NoFix},
	{InvalidValue, Warning, "a topic field has a bad enum value, a non-positive token count, …", srcCtxls, NoFix},
	{UnknownField, Warning, "a topic field ctxls does not know (kept)", srcCtxls, NoFix},
	{IDMismatch, Warning, "`id` or `domain` differs from the file's path", srcCtxls, Safe},
	{SectionMissing, Warning, "a section named in the frontmatter has no heading", srcCtxls, Unsafe},
	{TokenDrift, Information, "declared and measured tokens differ beyond the threshold, once per file; the fix rewrites the numbers", srcCtxls, Safe},
	{IndexMissingTopic, Warning, "an index lists a file that is not there", srcCtxls, NoFix},
	{IndexUnlistedTopic, Warning, "a topic of the domain is missing from its index", srcCtxls, NoFix},
	{DuplicateTopic, Warning, "two roots define the same `domain/topic`", srcCtxls, NoFix},
	{FileSkipped, Warning, "a file is binary, larger than `maxFileSize`, or could not be checked", srcCtxls, NoFix},
	{DiagnosticsLeftOut, Information, "a file has more problems than `limits.fileDiagnostics` (1000 by default); this one says how many are not shown", srcCtxls, NoFix},
	{Config, Error, "a problem in `.ctxls.yaml` (reported on that file, some as warnings; the defaults are used)", srcCtxls, NoFix},
	{MarkdownLinkBroken, Warning, "a relative link of a markdown file names no file, or a `#fragment` no heading (GitHub's slugs) or anchor of it; a hint when the file may be made by a build or the path may be a documentation site's page", srcMarkdown, NoFix},

	{ImportTrailingPunctuation, Warning, "an `@path` import followed by `:` `,` `;` or `)` is skipped by the agent", srcClaudeCode, Safe},
	{ImportMissing, Error, "an `@path` import names no file", srcClaudeCode, NoFix},
	{ImportCycle, Warning, "an `@path` import leads back to a file that imports it", srcClaudeCode, NoFix},
	{ImportTooDeep, Warning, "an `@path` import is past the depth limit (`limits.importDepth`) and is not loaded", srcClaudeCode, NoFix},
	{ImportOutsideProject, Information, "an `@path` import with `~/`, an absolute path or a symbolic link out of the project loads a file outside the project; ctxls neither reads nor counts it", srcClaudeCode, NoFix},
	{MemoryTooLarge, Warning, "a memory file is over `limits.memoryChars` characters (40,000)", srcClaudeCode, NoFix},
	{RulePathsInvalid, Warning, "a `.claude/rules` `paths` glob is invalid or matches no file", srcClaudeCode, NoFix},
	{MemoryCommandUndefined, Warning, "a memory file, AGENTS.md, GEMINI.md or the Copilot instructions tell the agent to run a script (`npm run lint`, `pnpm test:e2e`, `yarn x:y`), make target or just recipe that no package.json, the Makefile or the justfile defines; said only when nothing else can define it (workspace packages, includes, pattern rules, imported modules)", srcCtxls, NoFix},
	{MemoryPathMissing, Warning, "a code span of a memory file or AGENTS.md is a repository path (two segments or more, the first of which exists) that names nothing; a warning when the only file of that name lies elsewhere (it moved), else a hint; build output and `.gitignore`d paths are left alone; a file that is a symbolic link to another one checked (CLAUDE.md to AGENTS.md) is reported on that one, once", srcCtxls, NoFix},
	{MemoryDuplicate, Warning, "a paragraph (100 characters or more) that a Claude Code session loads twice at its start: in a memory file and a file it imports, or in a rule without paths; the message says the tokens it costs", srcClaudeCode, NoFix},

	{FrontmatterMissing, Error, "a subagent has no YAML frontmatter, so Claude Code finds no name and does not load it", srcSubagents, NoFix},
	{AgentUnknownField, Hint, "a frontmatter field the agent does not document (kept)", srcClaudeCode, NoFix},
	{FrontmatterLenientYAML, Warning, "the frontmatter of a skill, command or subagent is not valid YAML, but Claude Code reads it once it has quoted the values holding `: ` or a reserved character, as its loader does; strict YAML readers (Codex, validators, previews) reject it; the fix quotes them. A skill Codex (`.agents/skills`) or OpenCode (`.opencode/skills`, whose loader rewrites only values holding `:`) loads and fails to read is `frontmatter-parse-error` instead", srcClaudeYAML, Safe},
	{SkillNotLoaded, Error, "a skill of `.agents/skills` that Codex skips: no frontmatter, no `name` or `description`, a `name` over 64 or a `description` over `limits.skillDescription` characters", srcCodexSkills, NoFix},
	{SkillNameMissing, Warning, "a skill that agents following the specification read has no `name` (Claude Code names a skill after its folder and does not need one)", srcSkillSpec, NoFix},
	{SkillNameInvalid, Warning, "a skill `name` is not 1-64 characters of `a-z 0-9 -` without leading, trailing or doubled hyphens", srcSkillSpec + "; " + srcSkillsDocs, NoFix},
	{SkillNameMismatch, Warning, "the `name` of a skill that agents following the specification read differs from its folder's name; the fix renames it to the folder", srcSkillSpec, Safe},
	{SkillDescriptionMissing, Warning, "a skill has no `description` (Claude Code falls back on the first paragraph; the specification requires one)", srcSkillsDocs + "; " + srcSkillSpec, NoFix},
	{SkillDescriptionTooLong, Warning, "the `description` of a skill that agents following the specification read is over `limits.skillDescription` characters (1,024)", srcSkillSpec, NoFix},
	{SkillCompatibilityLong, Warning, "the `compatibility` of a skill that agents following the specification read is over `limits.skillCompatibility` characters (500)", srcSkillSpec, NoFix},
	{SkillMetadataInvalid, Warning, "the `metadata` of a skill that agents following the specification read is not a map of string values", srcSkillSpec, NoFix},
	{SkillFieldInvalid, Warning, "a Claude Code skill field (`when_to_use`, `model`, `allowed-tools`, …) has the wrong type, or a `paths` glob is invalid", srcSkillsDocs, NoFix},
	{SkillListingTooLong, Warning, "`description` and `when_to_use` together are over `limits.skillListing` characters (1,536); the listing cuts them", srcSkillsDocs, NoFix},
	{SkillBodyTooLong, Warning, "a skill body is over `limits.skillBodyLines` lines (500) or `limits.skillBodyTokens` tokens (5,000)", srcSkillSpec, NoFix},
	{SkillLinkBroken, Error, "a link of a skill, or a path the text points the agent at in a folder of the skill (`scripts/`, `references/`, `assets/` or one the skill has), names no file", srcSkillSpec, NoFix},
	{SkillLinkOutside, Warning, "a link of a skill that travels leaves what travels with it: a plugin's folder, a collection skill's own folder, a package's packages (a project's own skill runs in place)", srcSkillSpec + "; " + srcPluginCache, NoFix},
	{CommandFieldInvalid, Warning, "a command field (`description`, `argument-hint`, `allowed-tools`, `model`) has the wrong type", srcCommands, NoFix},
	{CommandFileMissing, Error, "an `@path` file reference in a command names no file", srcCommands, NoFix},
	{CommandShadowed, Warning, "a command of `.claude/commands` has the name of a skill of `.claude/skills` (its `name`, else its folder): the skill takes precedence, so `/name` runs the skill and the command never loads; the related place is the skill. Not said when the skill has `user-invocable: false`", srcSkillsDocs, NoFix},
	{SubagentFieldMissing, Error, "a subagent has no `name` or no `description`", srcSubagents, NoFix},
	{SubagentNameInvalid, Error, "a subagent `name` is not lowercase letters, digits and hyphens", srcSubagents, NoFix},
	{SubagentFieldInvalid, Warning, "a subagent field (`tools`, `model`, `permissionMode`, `skills`) has the wrong type or value", srcSubagents, NoFix},
	{SubagentSkillMissing, Error, "a subagent's `skills` names a skill that does not exist", srcSubagents, NoFix},
	{JSONSyntax, Error, "a plugin, marketplace, MCP configuration, `.lsp.json`, Claude Code settings, plugin `hooks.json` or `opencode.json` file is not valid JSON (VS Code, Cursor and Gemini CLI files may hold comments and trailing commas)", srcJSON, NoFix},
	{JSONDuplicateKey, Warning, "an object of a JSON file an agent reads (Claude Code settings, `.mcp.json`, a plugin's `plugin.json`, `marketplace.json`, `hooks/hooks.json`, `.lsp.json`, Cursor's or VS Code's `mcp.json`, `.gemini/settings.json`, `opencode.json`) gives a key twice, at any depth (two `hooks`, two servers of one name): the agent keeps the last value and drops the first without a word; the message names both lines, and the related place is the first. Keys written as comments (`//`, `$comment`) are not counted", srcJSONDup, NoFix},
	{PluginFieldMissing, Error, "a required field of a plugin JSON file is missing", srcClaudePlugs, NoFix},
	{PluginFieldInvalid, Warning, "a field of a plugin JSON file has the wrong type", srcClaudePlugs, NoFix},
	{PluginNameInvalid, Error, "a plugin, marketplace or server name is not kebab-case", srcClaudePlugs, NoFix},
	{PluginNameDuplicate, Error, "two plugins of a marketplace have the same name", srcClaudePlugs, NoFix},
	{PluginPathMissing, Error, "a path or local plugin source named by a plugin JSON file does not exist", srcClaudePlugs, NoFix},
	{TOMLSyntax, Error, "a Codex `.codex/config.toml` is not valid TOML, or gives a key or table twice", srcTOML, NoFix},
	{MCPFieldMissing, Error, "an MCP server (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`, `.gemini/settings.json`, `.codex/config.toml`, a plugin's `mcpServers`) has no `command` (stdio) or no `url` (http, sse), or a VS Code input no `id` or `type`", srcMCP, NoFix},
	{MCPFieldInvalid, Warning, "an MCP server field has the wrong type: `command` not a string, `args` not a list of strings, `env` or `headers` not a map of strings, a timeout not a number", srcMCP, NoFix},
	{MCPTypeUnknown, Warning, "an MCP server's `type` is not one the agent documents (`stdio`, `http`, `sse`; Cursor also `streamable-http`), or a VS Code input's type is unknown", srcMCP, NoFix},
	{MCPTransportConflict, Warning, "an MCP server gives both `command` and `url`: the agent uses one and ignores the other (Codex refuses the file)", srcMCP, NoFix},
	{MCPKeyMisspelled, Warning, "an MCP server key the agent ignores that is a misspelling of one it reads (did-you-mean), servers under another agent's key, or Codex `headers`/`bearer_token`; the fix renames the key", srcMCP, Unsafe},
	{MCPKeyUndocumented, Hint, "an MCP server key the agent does not document (kept)", srcMCP, NoFix},
	{MCPVariableUnexpanded, Warning, "a variable written as the agent does not expand it: `${env:X}` or `$X` in Claude Code (which expands `${X}` and `${X:-default}`), `${input:id}` naming no VS Code input, any variable in Codex's config.toml", srcMCP, NoFix},
	{MCPSecretPlainText, Warning, "an MCP server's env, header, argument or url holds what looks like a token or key in plain text; the message shows only its first characters", srcMCP, NoFix},
	{AgentsMdTooLarge, Warning, "the chain of `AGENTS.md` files Codex reads from the root down to a folder (one per folder: `AGENTS.override.md`, `AGENTS.md` or a `project_doc_fallback_filenames` name of `.codex/config.toml`) passes `project_doc_max_bytes` (`limits.agentsMdBytes`, 32 KiB) in this file, at the line where Codex stops reading, or before it", srcCodexMd, NoFix},
	{AgentsMdShadowed, Information, "Codex reads another file of the same folder in place of this one (`AGENTS.override.md` before `AGENTS.md` before the fallback names)", srcCodexMd, NoFix},
	{GeminiImportMissing, Warning, "an `@file` import of a Gemini CLI context file (`GEMINI.md`, or a `context.fileName` of `.gemini/settings.json`) names no file, relative to the importing file; Gemini CLI loads an error comment in its place", srcGeminiMd, NoFix},
	{GeminiImportCycle, Warning, "an `@file` import of a Gemini CLI context file leads back to a file that imports it; Gemini CLI skips it", srcGeminiMd, NoFix},
	{CursorFieldInvalid, Warning, "a Cursor rule field (`description`, `globs`, `alwaysApply`) has the wrong type", srcCursor, NoFix},
	{CursorRuleNeverLoads, Warning, "a Cursor rule has no `alwaysApply`, no `globs` and no `description` (only an explicit @-mention loads it), or none of its globs matches a file", srcCursor, NoFix},
	{CopilotFieldInvalid, Warning, "a Copilot instructions or prompt field has the wrong type", srcCopilot, NoFix},
	{CopilotApplyToInvalid, Error, "an `applyTo` glob of Copilot instructions is not a valid glob", srcVSCodeInstr, NoFix},
	{CopilotApplyToUnmatched, Warning, "an `applyTo` glob of Copilot instructions matches no file (tried under any folder and whatever the case, as VS Code matches it)", srcVSCodeInstr, NoFix},
	{CursorRuleNotMdc, Hint, "a plain `.md` file in a `.cursor/rules` folder: Cursor documents rules as `.mdc` files, and sources disagree on whether it loads a `.md` there (a `README.md` is left alone)", srcCursor, NoFix},
	{CopilotAgentFieldMissing, Warning, "a Copilot custom agent (`.github/agents/*.agent.md`, or `agents/*.agent.md` of a Copilot CLI plugin, a folder with `plugin.json`) has no `description`, which GitHub documents as required", srcCopilotAgt, NoFix},
	{CopilotAgentTooLong, Warning, "a Copilot custom agent's prompt is over `limits.copilotAgentChars` characters (30,000), GitHub's maximum; reported at the line where it is passed", srcCopilotAgt, NoFix},
	{CopilotChatModeLegacy, Information, "a `.github/chatmodes/*.chatmode.md` file: chat modes are the older form of custom agents (`.github/agents/*.agent.md`)", srcVSCodeAgent, NoFix},
	{WindsurfFieldInvalid, Warning, "a Windsurf rule's `trigger` is not `always_on`, `model_decision`, `glob` or `manual`, `model_decision` has no `description`, `glob` no `globs`, or a field has the wrong type", srcWindsurf, NoFix},
	{WindsurfRuleTooLong, Warning, "a Windsurf rule file is over `limits.windsurfRuleChars` characters (6,000), past which Windsurf cuts it; reported at the line where the cut falls", srcWindsurf, NoFix},
	{ClinePathsInvalid, Warning, "a Cline rule's `paths` is not a list of globs, or one of them is not a valid glob", srcCline, NoFix},
	{KiroFieldInvalid, Warning, "a Kiro steering file's `inclusion` is not `always`, `fileMatch`, `manual` or `auto`, `fileMatch` has no `fileMatchPattern`, `auto` no `description`, or a field has the wrong type", srcKiro, NoFix},
	{KiroFileReferenceMissing, Warning, "a `#[[file:…]]` reference of a Kiro steering file names no file, from the workspace root (as Kiro documents it) or from the steering file's folder; references in code are left alone", srcKiro, NoFix},
	{OpenCodeInstructionsMissing, Warning, "an `instructions` entry of `opencode.json` names no file of the project (a path that is not there, a glob that matches nothing), or is not a string", srcOpenCode, NoFix},
	{CodexConfigInvalid, Error, "`project_doc_fallback_filenames` of `.codex/config.toml` is not a list of file names, or `project_doc_max_bytes` not a whole number of bytes (the types Codex's configuration reference gives): Codex cannot load the file, and `cost --agent codex` says it counted with Codex's defaults", srcCodexConfig, NoFix},
	{GeminiSettingsInvalid, Warning, "`context.fileName` of `.gemini/settings.json` is not a file name or a list of file names (`string | string[]` in Gemini CLI's configuration reference); `cost --agent gemini` says it counted `GEMINI.md` in its place", srcGeminiConf, NoFix},
	{CopilotApplyToMissing, Warning, "a `.github/instructions` file has no `applyTo`, so Copilot never attaches it by the files at hand (VS Code may still add it by its description)", srcVSCodeInstr + "; " + srcCopilot, NoFix},

	{HookShapeInvalid, Error, "a hook configuration (`.claude/settings.json`, `.claude/settings.local.json`, a plugin's `hooks/hooks.json` or the `hooks` of its manifest, the `hooks` of a skill or subagent) is not event → list of matcher groups → `hooks` list of handlers", srcHooks + "; " + srcPluginHooks, NoFix},
	{HookEventUnknown, Warning, "a hook event name Claude Code does not document, so its hooks never run; with a did-you-mean", srcHooks, NoFix},
	{HookMatcherInvalid, Error, "a hook `matcher` is not a string or not a valid regular expression, so it matches nothing", srcHooks, NoFix},
	{HookMatcherIgnored, Warning, "a hook `matcher` on an event that takes none (`UserPromptSubmit`, `Stop`, `TaskCreated`, …): the hooks run on every occurrence", srcHooks, NoFix},
	{HookHandlerInvalid, Error, "a hook handler has no or an unknown `type`, lacks what its type requires (`command`; `prompt`; `url`; `server` and `tool`), gives a field the wrong type, a `timeout` that is not positive, an `if` on an event without tools, or a prompt or agent handler where only commands run", srcHooks, NoFix},
	{HookKeyUnknown, Hint, "a key of a matcher group, hook handler or plugin `hooks.json` that Claude Code does not document (kept); with a did-you-mean", srcHooks, NoFix},
	{HookScriptMissing, Error, "a command hook runs a script of the project (`$CLAUDE_PROJECT_DIR/…`, `.claude/…`) or plugin (`${CLAUDE_PLUGIN_ROOT}/…`) that is not there", srcHooks, NoFix},
	{HookScriptNotExecutable, Warning, "a command hook runs a script of the project or plugin directly, but the file is not executable", srcHooks, NoFix},
	{HookEnvUnset, Warning, "a command hook reads the tool's input from a variable Claude Code does not set (`$TOOL_INPUT`, `$TOOL_NAME`, `$CLAUDE_FILE_PATHS`, …); the input arrives as JSON on standard input", srcHooks, NoFix},
	{SettingsValueInvalid, Warning, "a key of `.claude/settings.json` or `.claude/settings.local.json` has the wrong type or value (`env` values not strings, `statusLine` without a command, `enabledPlugins` not `plugin@marketplace`, an unknown enum value, …); the fix quotes an `env` value written as a number or boolean", srcSettings, Safe},
	{SettingsPermissionInvalid, Warning, "a `permissions` `allow`, `ask` or `deny` rule is not `Tool` or `Tool(specifier)` (unbalanced or empty parentheses, a miscased tool name), so it matches nothing; the fix writes a miscased tool name as the tool is named", srcPermissions, Safe},
	{SettingsKeyUnknown, Hint, "a settings key Claude Code does not document (kept); with a did-you-mean", srcSettings, NoFix},
	{SettingsKeyIgnored, Warning, "a settings key the file's scope ignores: a managed-settings-only key in a project's settings, `autoMemoryDirectory` in the shared `.claude/settings.json`, …", srcSettings, NoFix},
	{SettingsOutputStyleMissing, Warning, "`outputStyle` names neither a built-in style nor one of the project's `.claude/output-styles` (not checked in `settings.local.json`, which may name a user's own)", srcStyles, NoFix},
	{OutputStyleFieldInvalid, Warning, "an output style's frontmatter field (`name`, `description`, `keep-coding-instructions`) has the wrong type", srcStyles, NoFix},
	{PluginComponentMisplaced, Error, "a plugin keeps `commands/`, `agents/`, `skills/`, `hooks/` or `output-styles/` inside `.claude-plugin/`, where Claude Code does not look: they belong at the plugin's root", srcPluginsRef, NoFix},
	{PluginPathOutside, Warning, "a path of a plugin manifest is absolute or climbs out of the plugin with `..`: an installed plugin is copied on its own, so the path will not be there", srcPluginsRef + "; " + srcPluginCache, NoFix},
	{PluginFolderShadowed, Warning, "a plugin manifest gives `commands`, `agents` or `outputStyles` while the plugin has the default `commands/`, `agents/` or `output-styles/` folder: the manifest's paths replace the folder, whose files are not loaded (`skills` adds to `skills/`; hooks and servers merge); said only when no path points into the folder", srcPluginPaths, NoFix},
	{PluginUserConfigInvalid, Warning, "a plugin's `userConfig` (or a channel's) is not an object of options named by identifiers, an option lacks `type`, `title` or `description`, has an unknown type (`string`, `number`, `boolean`, `directory`, `file`), field or field type, `multiple` off a string or `min`/`max` off a number option; or a `${user_config.KEY}` names no option", srcUserConfig, NoFix},
	{PluginHooksDuplicate, Error, "a plugin manifest's `hooks` names `./hooks/hooks.json`, which Claude Code loads on its own: it rejects the second load (`Duplicate hooks file detected`) and the file's hooks do not load", srcPluginHooks + " and Claude Code's loader message (quoted in https://github.com/verygoodplugins/mcp-automem/pull/35)", NoFix},
	{HookMatcherFilePattern, Warning, "a part of a `FileChanged` matcher is written as a regular expression or glob (`^\\.env`, `*.json`): Claude Code splits the matcher on `|` and watches each part as a literal file name, so the hook never fires for the files meant", srcFileChanged, NoFix},
	{HookMatcherNoValue, Warning, "a matcher of `SessionStart`, `SessionEnd`, `PreCompact`, `PostCompact` or `ConfigChange` matches none of the values the event documents for it (`startup`, `resume`, `clear`, `compact`; `manual`, `auto`; …): an exact name outside the set, or a regular expression matching none; the group never runs; with a did-you-mean", srcHooks + " (#matcher-patterns and each event's section)", NoFix},
	{MCPServerNameReserved, Warning, "a Claude Code MCP server (`.mcp.json`, a plugin's) is named as a built-in server (`workspace`, `claude-in-chrome`, `computer-use`, `Claude Preview`, `Claude Browser`): Claude Code skips it at load time", srcMCPClaude, NoFix},
}

var byCode = func() map[string]*Rule {
	m := make(map[string]*Rule, len(table))
	for i := range table {
		m[table[i].Code] = &table[i]
	}
	return m
}()

// All returns every rule, in table order.
func All() []Rule { return append([]Rule(nil), table...) }

// Lookup returns the rule of a code.
func Lookup(code string) (Rule, bool) {
	r, ok := byCode[code]
	if !ok {
		return Rule{}, false
	}
	return *r, true
}

// Default returns the default severity of a code; an unknown code is an
// error, so that a missing table row is noticed.
func Default(code string) Severity {
	if r, ok := byCode[code]; ok {
		return r.Severity
	}
	return Error
}

// markdown renders the table as the README shows it.
func markdown() string {
	var b strings.Builder
	b.WriteString("| code | severity | fix | source | when |\n|---|---|---|---|---|\n")
	for _, r := range table {
		fmt.Fprintf(&b, "| [`%s`](%s) | %s | %s | %s | %s |\n", r.Code, PageFile(r.Code), r.Severity, r.Fix, r.Source, r.Doc)
	}
	return b.String()
}

// Markers delimit the generated block in README.md.
const (
	beginMarker = "<!-- rules:begin (generated by go run ./providers/diag/gen) -->"
	endMarker   = "<!-- rules:end -->"
)

// Splice returns readme with the block between the markers replaced by
// the table, or an error when the markers are missing.
func Splice(readme string) (string, error) {
	i := strings.Index(readme, beginMarker)
	j := strings.Index(readme, endMarker)
	if i < 0 || j < i {
		return "", fmt.Errorf("README has no %q … %q block", beginMarker, endMarker)
	}
	return readme[:i+len(beginMarker)] + "\n" + markdown() + readme[j:], nil
}
