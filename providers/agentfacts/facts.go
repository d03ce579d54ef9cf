// Package agentfacts is the one table of what each coding agent loads
// from a project: the files, when they load, the caps on their size and
// the unit of each cap, how they import other files, and for every fact
// the documentation page it rests on, the agent version it holds from and
// the date it was checked. The README's per-agent table is generated from
// it, and the checks and the session cost read their limits and load
// policies from it.
package agentfacts

import (
	"slices"
	"strconv"
	"strings"
)

// Load says when an agent puts a file in context.
type Load string

// Load policies.
const (
	// AtStart: in context from the first prompt.
	AtStart Load = "at start"
	// Listed: a name and description at start, the body when picked.
	Listed Load = "listed by name and description"
	// OnDemand: when the agent or the user asks for it.
	OnDemand Load = "on demand"
	// ByPath: when files matching its globs, or files of its folder, are
	// read or in context.
	ByPath Load = "attached by path"
	// Never: the agent does not load it.
	Never Load = "never"
)

// Unit is what a cap counts.
type Unit string

// Units of caps.
const (
	Bytes      Unit = "bytes"
	Characters Unit = "characters"
	Tokens     Unit = "tokens"
	Hops       Unit = "hops"
)

// Cap is a documented size limit.
type Cap struct {
	// Limit is the documented default.
	Limit int
	// Unit is what Limit counts.
	Unit Unit
	// Scope says what the cap covers: "per file", "the whole chain", ….
	Scope string
	// Setting is the agent's own name of the setting, or "".
	Setting string
	// Key is the .ctxls.yaml limits key that overrides it, or "".
	Key string
}

// Fact is one thing an agent documents about a kind of file it loads.
type Fact struct {
	// ID names the fact within its agent; the checks look facts up by it.
	ID string
	// Files names the files, as a reader would say it.
	Files string
	// Patterns are slash-separated globs of the files, relative to the
	// folder they apply in.
	Patterns []string
	// Precedence says which file wins when several could load.
	Precedence string
	// Nesting says what files in subfolders do.
	Nesting string
	// Load says when the file is in context.
	Load Load
	// Cap is the size limit, or nil.
	Cap *Cap
	// Import is the syntax by which the file pulls in others, or "".
	Import string
	// ImportDepth is how many hops of imports are followed; 0 when the
	// file imports nothing.
	ImportDepth int
	// Source is the documentation page the fact rests on.
	Source string
	// Since is the agent version the fact holds from; "" for every
	// documented version.
	Since string
	// Until is the first version it no longer holds in; "" while it holds.
	Until string
	// Verified is the date the fact was checked against Source.
	Verified string
}

// Agent is a coding agent and its facts.
type Agent struct {
	// Name is what --agent and .ctxls.yaml call it.
	Name string
	// Title is how the agent calls itself.
	Title string
	// Tokenizer is the ctxls encoding that counts the agent's tokens:
	// "estimate" for an agent that runs whatever model its user picks.
	Tokenizer string
	// Facts are the agent's facts, newest last when several hold at
	// different versions.
	Facts []Fact
}

// Documentation pages the facts rest on.
const (
	docClaudeMemory   = "https://code.claude.com/docs/en/memory"
	docClaudeSkills   = "https://code.claude.com/docs/en/skills"
	docClaudeAgents   = "https://code.claude.com/docs/en/sub-agents"
	docCodexAgentsMd  = "https://developers.openai.com/codex/guides/agents-md"
	docGeminiMd       = "https://geminicli.com/docs/cli/gemini-md"
	docGeminiImports  = "https://github.com/google-gemini/gemini-cli/blob/main/docs/core/memport.md"
	docCursorRules    = "https://cursor.com/docs/context/rules"
	docCopilotRepo    = "https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions"
	docCopilotAgents  = "https://docs.github.com/en/copilot/reference/custom-agents-configuration"
	docCopilotCheat   = "https://docs.github.com/en/copilot/reference/customization-cheat-sheet"
	docVSCodeInstr    = "https://code.visualstudio.com/docs/agent-customization/custom-instructions"
	docVSCodeAgents   = "https://code.visualstudio.com/docs/agent-customization/custom-agents"
	docWindsurfRules  = "https://docs.windsurf.com/windsurf/cascade/memories"
	docClineRules     = "https://docs.cline.bot/features/cline-rules/overview"
	docClineCondition = "https://docs.cline.bot/features/cline-rules/conditional-rules"
	docKiroSteering   = "https://kiro.dev/docs/steering/"
	docOpenCode       = "https://opencode.ai/docs/instructions"
	docOpenCodeRules  = "https://opencode.ai/docs/rules"
	docOpenCodeSkills = "https://opencode.ai/docs/skills"
)

// verified is the date the facts below were last checked.
const verified = "2026-12-02"

// agents is the table. Keep each agent's facts in the order a session
// meets them.
var agents = []Agent{
	{Name: "claude", Title: "Claude Code", Tokenizer: "claude", Facts: []Fact{
		{ID: "memory", Files: "CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md", Patterns: []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"},
			Precedence: "every one found loads; CLAUDE.local.md after CLAUDE.md", Nesting: "a CLAUDE.md of a subfolder loads when Claude reads files there",
			Load: AtStart, Cap: &Cap{Limit: 40000, Unit: Characters, Scope: "per file, a warning", Key: "memoryChars"},
			Import: "@path, relative to the importing file; ~/ and absolute paths; not in code", ImportDepth: 4, Source: docClaudeMemory, Verified: verified},
		{ID: "imports", Files: "files imported by memory files", Load: AtStart, Cap: &Cap{Limit: 4, Unit: Hops, Scope: "from the memory file", Key: "importDepth"},
			Import: "@path", ImportDepth: 4, Source: docClaudeMemory, Verified: verified},
		{ID: "agents-md", Files: "AGENTS.md", Patterns: []string{"AGENTS.md"}, Precedence: "not read: import it with @AGENTS.md from CLAUDE.md",
			Load: Never, Source: docClaudeMemory, Verified: verified},
		{ID: "rules", Files: ".claude/rules/**/*.md", Patterns: []string{".claude/rules/**/*.md"}, Precedence: "every rule loads",
			Nesting: "paths globs attach a rule to the files they match", Load: AtStart, Source: docClaudeMemory, Verified: verified},
		{ID: "skills", Files: ".claude/skills/*/SKILL.md", Patterns: []string{".claude/skills/*/SKILL.md"}, Load: Listed,
			Cap: &Cap{Limit: 1536, Unit: Characters, Scope: "description and when_to_use in the listing", Key: "skillListing"}, Source: docClaudeSkills, Verified: verified},
		{ID: "subagents", Files: ".claude/agents/*.md", Patterns: []string{".claude/agents/*.md"}, Load: Listed, Source: docClaudeAgents, Verified: verified},
	}},
	{Name: "codex", Title: "Codex", Tokenizer: "o200k_base", Facts: []Fact{
		{ID: "agents-md", Files: "AGENTS.override.md, AGENTS.md, project_doc_fallback_filenames", Patterns: []string{"AGENTS.override.md", "AGENTS.md"},
			Precedence: "in each folder AGENTS.override.md, else AGENTS.md, else the fallback names in order; one file per folder, empty files skipped",
			Nesting:    "the chain from the project root down to the working folder, joined root first",
			Load:       AtStart, Cap: &Cap{Limit: 32 << 10, Unit: Bytes, Scope: "the whole chain", Setting: "project_doc_max_bytes", Key: "agentsMdBytes"},
			Source: docCodexAgentsMd, Verified: verified},
	}},
	{Name: "gemini", Title: "Gemini CLI", Tokenizer: "estimate", Facts: []Fact{
		{ID: "gemini-md", Files: "GEMINI.md, or the names of context.fileName in .gemini/settings.json", Patterns: []string{"GEMINI.md"},
			Precedence: "every file found is concatenated, global first", Nesting: "the working folder and its parents up to the project root at start; a subfolder's when a tool reads there",
			Load: AtStart, Import: "@./file.md, @../file.md, @/absolute; relative to the importing file; cycles skipped; not in code", ImportDepth: 5,
			Cap: &Cap{Limit: 5, Unit: Hops, Scope: "from the context file", Key: "geminiImportDepth"}, Source: docGeminiMd, Verified: verified},
		{ID: "imports", Files: "files imported by context files", Load: AtStart, Import: "@path", ImportDepth: 5, Source: docGeminiImports, Verified: verified},
	}},
	{Name: "cursor", Title: "Cursor", Tokenizer: "estimate", Facts: []Fact{
		{ID: "rules", Files: ".cursor/rules/**/*.mdc", Patterns: []string{".cursor/rules/**/*.mdc"}, Precedence: "every rule of its type",
			Nesting: "a .cursor/rules folder of a subfolder applies to that folder", Load: ByPath, Source: docCursorRules, Verified: verified},
		{ID: "rules-md", Files: "plain .md files in .cursor/rules", Patterns: []string{".cursor/rules/**/*.md"}, Precedence: "the rules page documents .mdc files with frontmatter; sources disagree on whether a plain .md loads",
			Load: Never, Source: docCursorRules, Verified: verified},
		{ID: "cursorrules", Files: ".cursorrules (legacy)", Patterns: []string{".cursorrules"}, Load: AtStart, Source: docCursorRules, Verified: verified},
		{ID: "agents-md", Files: "AGENTS.md", Patterns: []string{"AGENTS.md"}, Nesting: "an AGENTS.md of a subfolder applies to that folder", Load: AtStart, Source: docCursorRules, Verified: verified},
	}},
	{Name: "copilot", Title: "GitHub Copilot", Tokenizer: "estimate", Facts: []Fact{
		{ID: "instructions", Files: ".github/copilot-instructions.md", Patterns: []string{".github/copilot-instructions.md"}, Load: AtStart, Source: docCopilotRepo, Verified: verified},
		{ID: "path-instructions", Files: ".github/instructions/**/*.instructions.md, and the folders chat.instructionsFilesLocations of .vscode/settings.json adds", Patterns: []string{".github/instructions/**/*.instructions.md"},
			Precedence: "applyTo globs, tried under any folder; a *.instructions.md elsewhere (.github/prompts, …) loads only when a loaded file links to it",
			Load:       ByPath, Source: docVSCodeInstr, Verified: verified},
		{ID: "prompts", Files: ".github/prompts/*.prompt.md", Patterns: []string{".github/prompts/*.prompt.md"}, Load: OnDemand, Source: docVSCodeInstr, Verified: verified},
		{ID: "custom-agents", Files: ".github/agents/*.agent.md (or *.md)", Patterns: []string{".github/agents/*.agent.md", ".github/agents/*.md"},
			Precedence: "the file name without .agent.md or .md names the agent; a user's agent overrides the repository's, which overrides the organization's",
			Load:       Listed, Cap: &Cap{Limit: 30000, Unit: Characters, Scope: "the agent's prompt, its body", Key: "copilotAgentChars"}, Source: docCopilotAgents, Verified: verified},
		{ID: "chat-modes", Files: ".github/chatmodes/*.chatmode.md (older form of custom agents)", Patterns: []string{".github/chatmodes/*.chatmode.md"},
			Load: OnDemand, Source: docVSCodeAgents, Verified: verified},
		{ID: "agents-md", Files: "AGENTS.md, for the coding agent", Patterns: []string{"AGENTS.md"}, Nesting: "the nearest AGENTS.md up the tree", Load: AtStart, Source: docCopilotCheat, Verified: verified},
	}},
	{Name: "windsurf", Title: "Windsurf", Tokenizer: "estimate", Facts: []Fact{
		{ID: "rules", Files: ".windsurf/rules/*.md", Patterns: []string{".windsurf/rules/*.md"}, Precedence: "trigger: always_on, model_decision (by description), glob (by globs), manual (@-mention)",
			Nesting: ".windsurf/rules of subfolders, and of parents up to the Git root", Load: ByPath,
			Cap: &Cap{Limit: 6000, Unit: Characters, Scope: "per rule file; the rest is cut", Key: "windsurfRuleChars"}, Source: docWindsurfRules, Verified: verified},
		{ID: "windsurfrules", Files: ".windsurfrules (legacy)", Patterns: []string{".windsurfrules"}, Load: AtStart,
			Cap: &Cap{Limit: 6000, Unit: Characters, Scope: "per rule file; the rest is cut", Key: "windsurfRuleChars"}, Source: docWindsurfRules, Verified: verified},
		{ID: "total", Files: "global and workspace rules together", Load: AtStart, Cap: &Cap{Limit: 12000, Unit: Characters, Scope: "all rules, global first", Key: "windsurfTotalChars"}, Source: docWindsurfRules, Verified: verified},
		{ID: "agents-md", Files: "AGENTS.md", Patterns: []string{"AGENTS.md"}, Nesting: "at the root always on, in a subfolder for the files there", Load: AtStart, Source: docWindsurfRules, Verified: verified},
	}},
	{Name: "cline", Title: "Cline", Tokenizer: "estimate", Facts: []Fact{
		{ID: "clinerules", Files: ".clinerules/*.md, or a .clinerules file", Patterns: []string{".clinerules/**/*.md", ".clinerules"},
			Precedence: "the folder's files combined in name order, else the single file; .cursor/rules and .windsurf/rules only when there is no .clinerules",
			Nesting:    "paths (a list of globs) attaches a rule to the files in context that match", Load: AtStart, Source: docClineRules, Verified: verified},
		{ID: "conditional", Files: "rules with paths frontmatter", Load: ByPath, Source: docClineCondition, Verified: verified},
		{ID: "agents-md", Files: "AGENTS.md", Patterns: []string{"AGENTS.md"}, Nesting: "searched in subfolders too", Load: AtStart, Source: docClineRules, Verified: verified},
	}},
	{Name: "kiro", Title: "Kiro", Tokenizer: "estimate", Facts: []Fact{
		{ID: "steering", Files: ".kiro/steering/*.md", Patterns: []string{".kiro/steering/*.md"},
			Precedence: "inclusion: always (the default), fileMatch (with fileMatchPattern), manual (#name in chat), auto (by description)",
			Load:       AtStart, Import: "#[[file:path]], from the workspace root; the file's content is embedded in its place", ImportDepth: 1,
			Source: docKiroSteering, Verified: verified},
		{ID: "agents-md", Files: "AGENTS.md", Patterns: []string{"AGENTS.md"}, Precedence: "no inclusion modes: always included",
			Nesting: "at the root, and those discovered in subfolders", Load: AtStart, Source: docKiroSteering, Verified: verified},
	}},
	{Name: "opencode", Title: "OpenCode", Tokenizer: "estimate", Facts: []Fact{
		{ID: "agents-md", Files: "AGENTS.md, else CLAUDE.md", Patterns: []string{"AGENTS.md", "CLAUDE.md"},
			Precedence: "in each folder AGENTS.md, else CLAUDE.md", Nesting: "every one from the working folder up to the project root at start; a subfolder's when the agent reads there",
			Load: AtStart, Source: docOpenCode, Verified: verified},
		{ID: "instructions", Files: "the instructions paths and globs of opencode.json", Patterns: []string{"opencode.json"}, Load: AtStart, Source: docOpenCodeRules, Verified: verified},
		{ID: "skills", Files: ".opencode/skills, .claude/skills, .agents/skills: a SKILL.md at any depth", Patterns: []string{".opencode/skills/**/SKILL.md", ".claude/skills/**/SKILL.md", ".agents/skills/**/SKILL.md"},
			Precedence: "every folder is read; the skill tool lists each skill by name and description", Nesting: "the folders of the working folder and of every parent up to the project root",
			Load: Listed, Source: docOpenCodeSkills, Verified: "2026-12-04"},
	}},
}

// All returns every agent, in table order.
func All() []Agent { return slices.Clone(agents) }

// Names returns the agents' names, in table order.
func Names() []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.Name
	}
	return out
}

// Lookup returns the agent of a name.
func Lookup(name string) (Agent, bool) {
	for _, a := range agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// At returns the facts that hold at version ("" for the newest
// documented behaviour).
func (a Agent) At(version string) []Fact {
	var out []Fact
	for _, f := range a.Facts {
		if f.holds(version) {
			out = append(out, f)
		}
	}
	return out
}

// Fact returns the fact with the ID that holds at version.
func (a Agent) Fact(id, version string) (Fact, bool) {
	for _, f := range a.At(version) {
		if f.ID == id {
			return f, true
		}
	}
	return Fact{}, false
}

func (f Fact) holds(version string) bool {
	if version == "" {
		return f.Until == ""
	}
	if f.Since != "" && Compare(version, f.Since) < 0 {
		return false
	}
	return f.Until == "" || Compare(version, f.Until) < 0
}

// CapOf returns the documented default of the cap of an agent's fact at
// the newest version; it panics on a fact the table lacks, which a test
// of the callers catches.
func CapOf(agent, id string) int {
	a, ok := Lookup(agent)
	if !ok {
		panic("agentfacts: no agent " + agent)
	}
	f, ok := a.Fact(id, "")
	if !ok || f.Cap == nil {
		panic("agentfacts: no cap " + agent + "." + id)
	}
	return f.Cap.Limit
}

// ValidVersion reports whether v is a version Compare orders: numbers
// separated by dots, with an optional suffix after a hyphen.
func ValidVersion(v string) bool {
	core, _, _ := strings.Cut(v, "-")
	if core == "" {
		return false
	}
	for _, p := range strings.Split(core, ".") {
		if _, err := strconv.Atoi(p); err != nil || p == "" {
			return false
		}
	}
	return true
}

// Compare orders two versions by their dot-separated numbers: -1, 0 or 1.
// A missing part counts as 0; a pre-release suffix orders before the
// release.
func Compare(a, b string) int {
	ac, as, _ := strings.Cut(a, "-")
	bc, bs, _ := strings.Cut(b, "-")
	ap, bp := strings.Split(ac, "."), strings.Split(bc, ".")
	for i := range max(len(ap), len(bp)) {
		var x, y int
		if i < len(ap) {
			x, _ = strconv.Atoi(ap[i])
		}
		if i < len(bp) {
			y, _ = strconv.Atoi(bp[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case as == bs:
		return 0
	case as == "":
		return 1
	case bs == "":
		return -1
	}
	return strings.Compare(as, bs)
}
