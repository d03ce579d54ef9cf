package agentload

import (
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/tokens"
)

// FileTokens is what the agent file f puts in context when it loads, as a
// session's cost counts it: the body after the frontmatter for a skill, a
// command or a subagent, whose markdown after the frontmatter is the
// prompt Claude Code gives the model (code.claude.com/docs/en/skills), and
// the whole text for the others. Every listing of a file's tokens uses it,
// so that one file has one figure in one tokenizer.
func FileTokens(counter tokens.Counter, f *agentfiles.File) int {
	switch f.Kind {
	case agentfiles.KindSkill, agentfiles.KindCommand, agentfiles.KindSubagent, agentfiles.KindOutputStyle:
		if f.Doc != nil {
			return counter.Count(string(f.Doc.Slice(f.Doc.Body)))
		}
	}
	return counter.Count(string(f.Text))
}
