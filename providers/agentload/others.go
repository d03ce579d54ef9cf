package agentload

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/imports"
)

// Agents ctxls knows besides Claude Code, Codex, Gemini CLI, Cursor and
// Copilot.
const (
	Windsurf = "windsurf"
	Cline    = "cline"
	Kiro     = "kiro"
	OpenCode = "opencode"
)

// nestedAgentsMd lists the AGENTS.md files of subfolders as loading when
// the agent works there.
func (b *builder) nestedAgentsMd(agent string) {
	for _, f := range b.files(agentfiles.KindAgentsMd) {
		if dir := path.Dir(f.Rel); dir != "." && path.Base(f.Rel) == "AGENTS.md" {
			b.onDemand(f.Rel, b.count(f.Text), fmt.Sprintf("AGENTS.md of %s/, when %s works there", dir, agent))
		}
	}
}

// rootFile returns the readable agent file at rel, or nil.
func (b *builder) rootFile(rel string) *agentfiles.File {
	f, ok := b.set.File(filepath.Join(b.set.Root, filepath.FromSlash(rel)))
	if !ok || f.Skipped != "" {
		return nil
	}
	return f
}

// cutChars returns at most n characters of text.
func cutChars(text []byte, n int) []byte {
	i := 0
	for k := 0; k < n && i < len(text); k++ {
		_, w := utf8.DecodeRune(text[i:])
		i += w
	}
	return text[:i]
}

func (b *builder) windsurf() {
	limit, total := b.opt.Config.Limits.WindsurfRuleChars, 0
	add := func(f *agentfiles.File, reason string) {
		text := f.Text
		if n := utf8.RuneCount(text); n > limit {
			b.warn("%s is %d characters; Windsurf reads the first %d of a rule file", f.Rel, n, limit)
			text = cutChars(text, limit)
			reason += fmt.Sprintf(", cut at %d characters", limit)
		}
		total += utf8.RuneCount(text)
		b.always(f.Rel, b.count(text), reason)
	}
	if f := b.rootFile("AGENTS.md"); f != nil {
		add(f, "project instructions (AGENTS.md)")
	}
	b.nestedAgentsMd("Windsurf")
	if f := b.rootFile(".windsurfrules"); f != nil {
		add(f, "legacy .windsurfrules")
	}
	for _, f := range b.files(agentfiles.KindWindsurfRule) {
		body := b.count(cutChars(f.Text, limit))
		from := len(b.cost.OnDemand)
		switch m := f.Meta; m.Trigger {
		case "always_on":
			add(f, "Windsurf rule, trigger always_on")
		case "model_decision":
			b.always(f.Rel, b.count([]byte(listingLine(strings.TrimSuffix(path.Base(f.Rel), ".md"), m.Description))), "Windsurf rule listing")
			b.onDemand(f.Rel, body, "Windsurf rule, when Cascade decides it fits (model_decision)")
		case "glob":
			if len(m.Globs) == 0 {
				b.onDemand(f.Rel, body, "Windsurf rule with trigger glob but no globs: for no file")
				break
			}
			b.onDemand(f.Rel, body, fmt.Sprintf("Windsurf rule, for files matching %s", strings.Join(m.Globs, ", ")))
		case "manual":
			b.onDemand(f.Rel, body, "Windsurf rule, only when @-mentioned (manual)")
		default:
			b.onDemand(f.Rel, body, "Windsurf rule without a trigger, as Windsurf applies it")
		}
		if utf8.RuneCount(f.Text) > limit {
			for i := from; i < len(b.cost.OnDemand); i++ {
				b.cost.OnDemand[i].Reason += fmt.Sprintf(", cut at %d characters", limit)
			}
		}
	}
	if cap := b.opt.Config.Limits.WindsurfTotalChars; total > cap {
		b.warn("the Windsurf rules that apply at start are %d characters; Windsurf reads %d of all rules together, global rules first, and cuts the rest", total, cap)
	}
}

func (b *builder) cline() {
	rules := b.files(agentfiles.KindClineRule)
	for _, f := range rules {
		switch {
		case f.Rel == ".clinerules":
			b.always(f.Rel, b.count(f.Text), "the .clinerules file")
		case len(f.Meta.Globs) > 0:
			b.onDemand(f.Rel, b.count(f.Text), fmt.Sprintf("Cline rule, when files matching %s are in context", strings.Join(f.Meta.Globs, ", ")))
		default:
			b.always(f.Rel, b.count(f.Text), "Cline rule of .clinerules/")
		}
	}
	if len(rules) == 0 {
		// Without .clinerules, Cline reads the rules of other agents.
		for _, f := range b.files(agentfiles.KindCursorRule, agentfiles.KindWindsurfRule) {
			if !strings.HasPrefix(f.Rel, ".cursor/") && !strings.HasPrefix(f.Rel, ".windsurf/") {
				continue
			}
			b.always(f.Rel, b.count(f.Text), "rule of another agent, which Cline reads when there is no .clinerules")
		}
	}
	if f := b.rootFile("AGENTS.md"); f != nil {
		b.always(f.Rel, b.count(f.Text), "project instructions (AGENTS.md)")
	}
	b.nestedAgentsMd("Cline")
}

// kiro adds the AGENTS.md files Kiro always includes, the workspace's
// steering files by their inclusion, and the files their #[[file:…]]
// references embed where the steering file loads.
func (b *builder) kiro() {
	if f := b.rootFile("AGENTS.md"); f != nil {
		b.always(f.Rel, b.count(f.Text), "AGENTS.md, always included")
	}
	for _, f := range b.files(agentfiles.KindAgentsMd) {
		if dir := path.Dir(f.Rel); dir != "." && path.Base(f.Rel) == "AGENTS.md" {
			b.always(f.Rel, b.count(f.Text), fmt.Sprintf("AGENTS.md of %s/, always included (Kiro discovers AGENTS.md in subfolders)", dir))
		}
	}
	// The files included always first: what they embed is in context from
	// the start, whichever file loaded later embeds it too.
	steering := b.files(agentfiles.KindKiroSteering)
	slices.SortStableFunc(steering, func(x, y *agentfiles.File) int {
		always := func(f *agentfiles.File) bool { return f.Meta.Inclusion == "" || f.Meta.Inclusion == "always" }
		switch {
		case always(x) && !always(y):
			return -1
		case always(y) && !always(x):
			return 1
		}
		return 0
	})
	for _, f := range steering {
		if path.Dir(f.Rel) != ".kiro/steering" {
			continue // a subfolder's .kiro: not the workspace's steering
		}
		body := b.count(f.Text)
		name := strings.TrimSuffix(path.Base(f.Rel), ".md")
		atStart := false
		switch m := f.Meta; m.Inclusion {
		case "", "always":
			b.always(f.Rel, body, "steering, inclusion always")
			atStart = true
		case "fileMatch":
			if len(m.Globs) == 0 {
				b.onDemand(f.Rel, body, "steering with inclusion fileMatch but no fileMatchPattern: no file includes it")
				break
			}
			b.onDemand(f.Rel, body, fmt.Sprintf("steering, when files matching %s are in context", strings.Join(m.Globs, ", ")))
		case "manual":
			b.onDemand(f.Rel, body, fmt.Sprintf("steering, only when referenced as #%s", name))
		case "auto":
			b.always(f.Rel, b.count([]byte(listingLine(name, m.Description))), "steering listing")
			b.onDemand(f.Rel, body, "steering, when its description fits the request (auto)")
		default:
			b.onDemand(f.Rel, body, fmt.Sprintf("steering with inclusion %q, which Kiro does not document", m.Inclusion))
		}
		b.kiroRefs(f, atStart)
	}
}

// kiroRefs adds the files a steering file's #[[file:…]] references embed,
// each once, at start or later with the steering file.
func (b *builder) kiroRefs(f *agentfiles.File, always bool) {
	for _, r := range b.set.FileRefs(f.Path, f.Text) {
		if r.What != "file reference" {
			continue
		}
		text, err := imports.ReadFile(b.set.Guard(), r.Target)
		if err != nil {
			continue
		}
		rel, why := b.rel(r.Target), fmt.Sprintf("embedded by %s (#[[file:]])", f.Rel)
		switch {
		case always && !b.seen[r.Target]:
			b.seen[r.Target] = true
			b.always(rel, b.count(text), why)
		case !always && !b.seen[r.Target] && !b.later[r.Target]:
			b.later[r.Target] = true
			b.onDemand(rel, b.count(text), why+", when it loads")
		}
	}
}

func (b *builder) opencode() {
	if f := b.rootFile("AGENTS.md"); f != nil {
		b.always(f.Rel, b.count(f.Text), "project instructions (AGENTS.md)")
	} else if f := b.rootFile("CLAUDE.md"); f != nil {
		b.always(f.Rel, b.count(f.Text), "project instructions (CLAUDE.md, read when there is no AGENTS.md)")
	}
	for _, f := range b.files(agentfiles.KindAgentsMd, agentfiles.KindMemory) {
		dir := path.Dir(f.Rel)
		base := path.Base(f.Rel)
		if dir == "." || (base != "AGENTS.md" && base != "CLAUDE.md") {
			continue
		}
		if base == "CLAUDE.md" && b.rootFile(path.Join(dir, "AGENTS.md")) != nil {
			continue // AGENTS.md wins in its folder
		}
		b.onDemand(f.Rel, b.count(f.Text), fmt.Sprintf("%s of %s/, when OpenCode reads files there", base, dir))
	}
	for _, rel := range b.set.OpenCodeInstructions() {
		if b.seen[rel] {
			continue
		}
		b.seen[rel] = true
		text, err := imports.ReadFile(b.set.Guard(), filepath.Join(b.set.Root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		b.always(rel, b.count(text), "instructions of opencode.json")
	}
	b.opencodeSkills()
}

// openCodeSkillDirs are the project folders OpenCode finds skills in, in
// the order its skills page lists them; .opencode/skill is the singular
// form its loader still reads.
var openCodeSkillDirs = []string{".opencode/skills/", ".opencode/skill/", ".claude/skills/", ".agents/skills/"}

// opencodeSkills adds the skills a session at the project root finds: a
// SKILL.md at any depth of a skill folder. The skill tool lists each by
// name and description; the body loads when the agent calls it. A name
// found twice is one skill, listed once.
func (b *builder) opencodeSkills() {
	names := map[string]bool{}
	for _, dir := range openCodeSkillDirs {
		for _, f := range b.files(agentfiles.KindSkill) {
			if !strings.HasPrefix(f.Rel, dir) {
				continue
			}
			name := f.SkillName()
			if names[name] {
				continue
			}
			names[name] = true
			from := strings.TrimSuffix(dir, "/")
			b.always(f.Rel, b.count([]byte(listingLine(name, strings.TrimSpace(f.Meta.Description)))), "skill listing ("+from+")")
			b.onDemand(f.Rel, FileTokens(b.opt.Counter, f), "skill body, when the agent loads it with its skill tool")
		}
	}
}

// copilotAgents adds the custom agents and chat modes: a custom agent's
// name and description are there for Copilot to delegate by, its prompt
// runs in an agent's own context.
func (b *builder) copilotAgents() {
	for _, f := range b.files(agentfiles.KindCopilotAgent) {
		name := f.Meta.Name
		if name == "" {
			name = strings.TrimSuffix(strings.TrimSuffix(path.Base(f.Rel), ".md"), ".agent")
		}
		if flag(f.Doc, "disable-model-invocation") {
			b.onDemand(f.Rel, b.count(f.Text), "custom agent prompt, only when the agent is picked (disable-model-invocation)")
			continue
		}
		b.always(f.Rel, b.count([]byte(listingLine(name, f.Meta.Description))), "custom agent listing")
		b.onDemand(f.Rel, b.count(f.Text), "custom agent prompt, when the agent is picked")
	}
	for _, f := range b.files(agentfiles.KindCopilotChatMode) {
		b.onDemand(f.Rel, b.count(f.Text), "chat mode, when picked")
	}
}

// configured says whether a project holds files of the agent's own, the
// ones that tell a team uses it: AGENTS.md counts for Codex, whose own
// file it is, and for the others only beside files of theirs.
func configured(set *agentfiles.Set, agent string) bool {
	has := func(kinds ...agentfiles.Kind) bool {
		return slices.ContainsFunc(set.Files, func(f *agentfiles.File) bool { return slices.Contains(kinds, f.Kind) })
	}
	switch agent {
	case Claude:
		return has(agentfiles.KindMemory, agentfiles.KindRule, agentfiles.KindCommand, agentfiles.KindSubagent) ||
			slices.ContainsFunc(set.Files, func(f *agentfiles.File) bool {
				return f.Kind == agentfiles.KindSkill && strings.HasPrefix(f.Rel, ".claude/")
			})
	case Codex:
		return slices.ContainsFunc(set.Files, func(f *agentfiles.File) bool {
			b := path.Base(f.Rel)
			return f.Kind == agentfiles.KindAgentsMd && b != "GEMINI.md"
		})
	case Gemini:
		return slices.ContainsFunc(set.Files, func(f *agentfiles.File) bool { return path.Base(f.Rel) == "GEMINI.md" }) ||
			slices.Contains(set.WorkspaceFiles(), ".gemini/settings.json")
	case Cursor:
		return has(agentfiles.KindCursorRule, agentfiles.KindCursorRuleMd, agentfiles.KindCursorLegacy)
	case Copilot:
		return has(agentfiles.KindCopilotInstructions, agentfiles.KindCopilotPrompt, agentfiles.KindCopilotAgent, agentfiles.KindCopilotChatMode)
	case Windsurf:
		return has(agentfiles.KindWindsurfRule, agentfiles.KindWindsurfLegacy)
	case Cline:
		return has(agentfiles.KindClineRule)
	case Kiro:
		return has(agentfiles.KindKiroSteering)
	case OpenCode:
		return has(agentfiles.KindOpenCodeConfig) || slices.ContainsFunc(set.Files, func(f *agentfiles.File) bool {
			return f.Kind == agentfiles.KindSkill && strings.HasPrefix(f.Rel, ".opencode/")
		})
	}
	return false
}

// Configured returns the agents the project holds files of, in the order
// of Agents.
func Configured(set *agentfiles.Set) []string {
	var out []string
	for _, a := range Agents {
		if configured(set, a) {
			out = append(out, a)
		}
	}
	return out
}
