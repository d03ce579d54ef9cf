package agentfiles

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/tokens"
)

// A skill's body is measured in the tokenizer of the agent that loads it:
// the same body is over the recommended tokens for Claude Code and under
// them for Codex, whose models count fewer.
func TestSkillBodyTokensInTheAgentsTokenizer(t *testing.T) {
	t.Parallel()
	cl, _ := tokens.New(tokens.Claude)
	o2, _ := tokens.New(tokens.O200kBase)
	limit := config.Default().Limits.SkillBodyTokens
	// Few lines, so that the line limit does not speak first.
	line := strings.Repeat("getElementsByTagName(querySelectorAll) => ", 40) + "\n"
	body := ""
	for cl.Count(body) <= limit {
		body += line
	}
	if o2.Count(body) > limit {
		t.Fatalf("the body is over %d tokens in o200k_base too (%d); the test needs one between", limit, o2.Count(body))
	}
	dir := t.TempDir()
	skill := "---\nname: big\ndescription: A big skill.\n---\n" + body
	testtree.WriteFiles(t, dir, map[string]string{".claude/skills/big/SKILL.md": skill, ".agents/skills/big/SKILL.md": skill})
	set, err := Load(context.Background(), dir, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for p, ds := range set.Check(context.Background()) {
		for _, d := range ds {
			if d.Code == "skill-body-too-long" {
				rel, _ := filepath.Rel(dir, p)
				found[filepath.ToSlash(rel)] = d.Message
			}
		}
	}
	if msg := found[".claude/skills/big/SKILL.md"]; !strings.Contains(msg, "(claude-5)") {
		t.Errorf("Claude Code's skill: %q, want a warning in claude-5 tokens", msg)
	}
	if msg, ok := found[".agents/skills/big/SKILL.md"]; ok {
		t.Errorf("Codex's skill is warned: %q", msg)
	}
}
