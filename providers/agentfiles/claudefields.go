package agentfiles

import (
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// modelAliases are the model names Claude Code accepts besides full model
// ids: the aliases and inherit, which keeps the main conversation's.
var modelAliases = []string{"sonnet", "opus", "haiku", "fable", "opusplan", "inherit", "default"}

// modelProblem says why a model field names no model Claude Code runs,
// or "": an alias, a Claude model id, or a provider's id or ARN of one.
func modelProblem(m string) string {
	base := strings.ToLower(strings.TrimSpace(m))
	if i := strings.IndexByte(base, '['); i > 0 {
		base = base[:i] // sonnet[1m]
	}
	for _, a := range modelAliases {
		if base == a {
			return ""
		}
	}
	if strings.Contains(base, "claude") || strings.Contains(base, "anthropic") || strings.HasPrefix(base, "arn:") {
		return ""
	}
	return fmt.Sprintf("model %q is not a Claude model: write an alias (sonnet, opus, haiku), inherit, or a full Claude model id (claude-…)", m)
}

// checkModel reports a model field naming no Claude model under code.
func (c *checker) checkModel(root document.Node, code string) {
	m, _, v := str(root, "model")
	if !v.Exists() || m == "" {
		return
	}
	if why := modelProblem(m); why != "" {
		c.add(c.f.Doc.ValueSpan(v), code, "%s", why)
	}
}

// toolNames returns the tool items of a tools field: a comma-separated
// string or a list, each item with its node.
func toolNames(v document.Node) map[string]document.Node {
	out := map[string]document.Node{}
	for _, it := range listItems(v) {
		for _, t := range splitTools(it.Value()) {
			if _, ok := out[t]; !ok {
				out[t] = it
			}
		}
	}
	return out
}

// splitTools splits a comma-separated tool list at commas outside
// parentheses: Bash(git add, git commit) is one tool.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '(':
				depth++
				continue
			case ')':
				if depth > 0 {
					depth--
				}
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if t := strings.TrimSpace(s[start:i]); t != "" {
			out = append(out, t)
		}
		start = i + 1
	}
	return out
}

// subagentClaude checks what Claude Code documents of a subagent besides
// the field types: its model, tools both allowed and denied, and hooks.
func (c *checker) subagentClaude(root document.Node) {
	c.checkModel(root, diag.SubagentFieldInvalid)
	_, tv := root.Field("tools")
	_, dv := root.Field("disallowedTools")
	if tv.Exists() && dv.Exists() {
		allowed := toolNames(tv)
		for _, it := range listItems(dv) {
			for _, t := range splitTools(it.Value()) {
				if _, ok := allowed[t]; ok {
					c.add(c.nodeSpan(it), diag.SubagentFieldInvalid, "%s is in both tools and disallowedTools; disallowedTools removes it, so the subagent cannot use it", t)
				}
			}
		}
	}
	c.frontmatterHooks(root)
}

// skillClaude checks what Claude Code documents of a skill besides the
// field types: who can invoke it, agent without a fork, its model, hooks.
func (c *checker) skillClaude(root document.Node) {
	_, dmi := root.Field("disable-model-invocation")
	uk, ui := root.Field("user-invocable")
	if dmi.Tag() == "!!bool" && dmi.Value() == "true" && ui.Tag() == "!!bool" && ui.Value() == "false" {
		c.add(c.nodeSpan(uk), diag.SkillFieldInvalid, "with disable-model-invocation: true and user-invocable: false, neither the model nor the user can invoke this skill")
	}
	ak, av := root.Field("agent")
	if isString(av) && av.Value() != "" {
		if ctx, _, _ := str(root, "context"); ctx != "fork" {
			c.add(c.nodeSpan(ak), diag.SkillFieldInvalid, "agent takes effect only with context: fork, which runs the skill in that subagent; without it the skill runs inline")
		}
	}
	c.checkModel(root, diag.SkillFieldInvalid)
	c.frontmatterHooks(root)
}
