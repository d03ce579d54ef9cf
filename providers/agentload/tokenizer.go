package agentload

import (
	"fmt"

	"github.com/ctxls/ctxls/providers/agentfacts"
	"github.com/ctxls/ctxls/providers/tokens"
)

// AgentTokenizer is the encoding an agent's model counts its prompt in.
type AgentTokenizer struct {
	// Name is the encoding's name in package tokens.
	Name string `json:"tokenizer"`
	// Note says why, and that the count is an estimate when it is one.
	Note string `json:"tokenizerNote,omitempty"`
}

// TokenizerOf returns the encoding agent counts in. Claude Code runs
// Claude models, counted exactly in the newest Claude family; Codex runs
// OpenAI's GPT-5 models, whose encoding is o200k_base (tiktoken's
// model table: https://github.com/openai/tiktoken/blob/main/tiktoken/model.py).
// The other agents run whatever model the user picks, so their counts
// are estimates, and said to be.
func TokenizerOf(agent string) AgentTokenizer {
	switch agent {
	case Claude, "":
		return AgentTokenizer{Name: tokens.Claude, Note: "Claude Code runs Claude models: counted in the newest Claude family, as count_tokens counts"}
	case Codex:
		return AgentTokenizer{Name: tokens.O200kBase, Note: "Codex runs OpenAI's GPT-5 models, whose encoding is o200k_base"}
	}
	return AgentTokenizer{Name: tokens.Estimate, Note: fmt.Sprintf("an estimate (words ÷ 0.75): %s runs the model its user picks, whose tokenizer ctxls cannot know; give --tokenizer to count in one", agentTitle(agent))}
}

// NotCounted lists what a real session of agent puts in context beyond
// the files a Cost lists: ctxls sees only the project.
func NotCounted(agent string) []string {
	out := []string{
		agentTitle(agent) + "'s own system prompt and the definitions of its built-in tools",
		"the tool schemas of every MCP server the session connects to",
	}
	switch agent {
	case Claude, "":
		out = append(out, "files outside the project: the user's memory file ~/.claude/CLAUDE.md and what it imports, managed policy memory, and the user's own skills, commands and subagents under ~/.claude")
	default:
		out = append(out, "files outside the project, such as the user's own instruction files and settings")
	}
	return out
}

// agentTitle is an agent's name as its makers write it.
func agentTitle(agent string) string {
	if agent == "" {
		agent = Claude
	}
	if a, ok := agentfacts.Lookup(agent); ok {
		return a.Title
	}
	return agent
}
