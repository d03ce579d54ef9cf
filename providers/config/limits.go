package config

import (
	"fmt"

	"github.com/ctxls/ctxls/providers/agentfacts"
)

// Limits are the sizes past which agent files are flagged. The defaults
// are what the agents document; a project may tighten or relax them.
type Limits struct {
	// SkillDescription is the longest skill description, in characters.
	SkillDescription int `yaml:"skillDescription" json:"skillDescription"`
	// SkillCompatibility is the longest skill compatibility, in characters.
	SkillCompatibility int `yaml:"skillCompatibility" json:"skillCompatibility"`
	// SkillListing is how many characters of description and when_to_use
	// together the skill listing shows.
	SkillListing int `yaml:"skillListing" json:"skillListing"`
	// SkillBodyLines and SkillBodyTokens bound a skill's body.
	SkillBodyLines  int `yaml:"skillBodyLines" json:"skillBodyLines"`
	SkillBodyTokens int `yaml:"skillBodyTokens" json:"skillBodyTokens"`
	// AgentsMdBytes is Codex's cap on the chain of AGENTS.md files.
	AgentsMdBytes int `yaml:"agentsMdBytes" json:"agentsMdBytes"`
	// GeminiImportDepth is how many hops of @file imports Gemini CLI follows.
	GeminiImportDepth int `yaml:"geminiImportDepth" json:"geminiImportDepth"`
	// CopilotAgentChars is the longest prompt of a Copilot custom agent.
	CopilotAgentChars int `yaml:"copilotAgentChars" json:"copilotAgentChars"`
	// WindsurfRuleChars is the characters of a Windsurf rule file read.
	WindsurfRuleChars int `yaml:"windsurfRuleChars" json:"windsurfRuleChars"`
	// WindsurfTotalChars is the characters of all Windsurf rules read.
	WindsurfTotalChars int `yaml:"windsurfTotalChars" json:"windsurfTotalChars"`
	// MemoryChars is the size in characters past which a memory file is flagged.
	MemoryChars int `yaml:"memoryChars" json:"memoryChars"`
	// ImportDepth is how many hops of @path imports the agent follows.
	ImportDepth int `yaml:"importDepth" json:"importDepth"`
	// FileDiagnostics is how many diagnostics of one file are reported; one
	// more says how many others there are. A file of a million broken
	// links would otherwise take gigabytes to check and report.
	FileDiagnostics int `yaml:"fileDiagnostics" json:"fileDiagnostics"`
}

// Default limits.
const (
	defaultSkillDescription   = 1024
	defaultSkillCompatibility = 500
	DefaultSkillListing       = 1536
	defaultSkillBodyLines     = 500
	defaultSkillBodyTokens    = 5000
	DefaultFileDiagnostics    = 1000
)

// Limits of the agent facts: their documented defaults.
var (
	DefaultAgentsMdBytes = agentfacts.CapOf("codex", "agents-md")
	defaultMemoryChars   = agentfacts.CapOf("claude", "memory")
	defaultImportDepth   = agentfacts.CapOf("claude", "imports")
)

// defaultLimits returns the documented limits of the agents.
func defaultLimits() Limits {
	return Limits{
		SkillDescription:   defaultSkillDescription,
		SkillCompatibility: defaultSkillCompatibility,
		SkillListing:       DefaultSkillListing,
		SkillBodyLines:     defaultSkillBodyLines,
		SkillBodyTokens:    defaultSkillBodyTokens,
		AgentsMdBytes:      DefaultAgentsMdBytes,
		MemoryChars:        defaultMemoryChars,
		ImportDepth:        defaultImportDepth,
		GeminiImportDepth:  agentfacts.CapOf("gemini", "gemini-md"),
		CopilotAgentChars:  agentfacts.CapOf("copilot", "custom-agents"),
		WindsurfRuleChars:  agentfacts.CapOf("windsurf", "rules"),
		WindsurfTotalChars: agentfacts.CapOf("windsurf", "total"),
		FileDiagnostics:    DefaultFileDiagnostics,
	}
}

// validate replaces limits below 1 by their defaults, reporting each.
func (l *Limits) validate() []Problem {
	var p []Problem
	def := defaultLimits()
	for _, f := range []struct {
		name     string
		v        *int
		fallback int
	}{
		{"skillDescription", &l.SkillDescription, def.SkillDescription},
		{"skillCompatibility", &l.SkillCompatibility, def.SkillCompatibility},
		{"skillListing", &l.SkillListing, def.SkillListing},
		{"skillBodyLines", &l.SkillBodyLines, def.SkillBodyLines},
		{"skillBodyTokens", &l.SkillBodyTokens, def.SkillBodyTokens},
		{"agentsMdBytes", &l.AgentsMdBytes, def.AgentsMdBytes},
		{"memoryChars", &l.MemoryChars, def.MemoryChars},
		{"importDepth", &l.ImportDepth, def.ImportDepth},
		{"geminiImportDepth", &l.GeminiImportDepth, def.GeminiImportDepth},
		{"copilotAgentChars", &l.CopilotAgentChars, def.CopilotAgentChars},
		{"windsurfRuleChars", &l.WindsurfRuleChars, def.WindsurfRuleChars},
		{"windsurfTotalChars", &l.WindsurfTotalChars, def.WindsurfTotalChars},
		{"fileDiagnostics", &l.FileDiagnostics, def.FileDiagnostics},
	} {
		if *f.v < 1 {
			p = append(p, Problem{Line: -1, Severity: "error", Message: fmt.Sprintf("limits.%s must be at least 1; using %d", f.name, f.fallback)})
			*f.v = f.fallback
		}
	}
	return p
}

// Disabled reports whether diagnostics of code are turned off.
func (c *Config) Disabled(code string) bool {
	for _, d := range c.Disable {
		if d == code {
			return true
		}
	}
	return false
}
