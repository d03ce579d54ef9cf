// Package agentload computes what a session of a coding agent loads from a
// project: the files in context from the start (memory files and their
// import trees, rules that apply everywhere, AGENTS.md), the listing of
// skills, commands and subagents by name and description, and what loads
// later, on demand or when files matching a rule's globs are read. Every
// count comes from the real tokenizer.
package agentload

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/agentfacts"
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/memory"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Agents whose sessions Compute knows.
const (
	Claude  = "claude"
	Codex   = "codex"
	Cursor  = "cursor"
	Copilot = "copilot"
	Gemini  = "gemini"
)

// Agents lists the accepted agent names: those of the agent facts.
var Agents = agentfacts.Names()

// DefaultContextWindow is the context window assumed when none is given.
const DefaultContextWindow = 200_000

// listingShare is the part of the context window past which Claude Code
// drops descriptions from the listing of skills and commands. Claude Code
// counts the budget in characters, four to a token: 8,000 characters of a
// 200,000-token window.
const listingShare = 0.01

// charsPerToken converts the listing budget from tokens to characters.
const charsPerToken = 4

// Cost is what a session loads. It is the result of `ctxls cost` and of
// the MCP session_cost tool.
type Cost struct {
	// Agent is the agent's name.
	Agent string `json:"agent"`
	// AlwaysLoaded lists what is in context from the first prompt: whole
	// files, and one listing entry per skill, command or subagent.
	AlwaysLoaded []Entry `json:"alwaysLoaded"`
	// OnDemand lists what loads later: skill bodies when invoked, rules
	// when matching files are read, nested memory files, prompts.
	OnDemand []Entry `json:"onDemand"`
	// TotalAlwaysLoaded is the sum of AlwaysLoaded's tokens.
	TotalAlwaysLoaded int `json:"totalAlwaysLoaded"`
	// Tokenizer names the encoding every figure is counted in, and
	// TokenizerNote says why (and that it is an estimate when it is).
	Tokenizer     string `json:"tokenizer"`
	TokenizerNote string `json:"tokenizerNote,omitempty"`
	// NotCounted says what a real session adds beyond the files listed.
	NotCounted []string `json:"notCounted"`
	// Warnings say where the agent drops or cuts what the files hold.
	Warnings []string `json:"warnings,omitempty"`
	// Agents holds, for agent "all", the cost of each agent the project
	// configures, side by side; the lists above are then empty.
	Agents []AgentCost `json:"agents,omitempty"`
}

// AgentCost is one agent's column of a cost of all agents: a Cost
// without the columns of others. Its fields are Cost's.
type AgentCost struct {
	Agent             string   `json:"agent"`
	AlwaysLoaded      []Entry  `json:"alwaysLoaded"`
	OnDemand          []Entry  `json:"onDemand"`
	TotalAlwaysLoaded int      `json:"totalAlwaysLoaded"`
	Warnings          []string `json:"warnings,omitempty"`
	Tokenizer         string   `json:"tokenizer"`
	TokenizerNote     string   `json:"tokenizerNote,omitempty"`
}

// All asks Compute for every agent the project configures.
const All = "all"

// Entry is one file, or one file's listing entry, and its cost.
type Entry struct {
	// File is relative to the project, with forward slashes.
	File string `json:"file"`
	// Tokens is what the entry puts in context.
	Tokens int `json:"tokens"`
	// Reason says why and when it loads.
	Reason string `json:"reason"`
}

// Options configure Compute.
type Options struct {
	// Agent is one of Agents; "" means Claude.
	Agent string
	// ContextWindow is the model's window in tokens; 0 means
	// DefaultContextWindow.
	ContextWindow int
	// Config supplies the limits; nil means the defaults.
	Config *config.Config
	// Counter counts tokens; nil means the agent's own tokenizer
	// (TokenizerOf).
	Counter tokens.Counter
}

// Compute returns what a session of opt.Agent started at the root of set
// loads.
func Compute(ctx context.Context, set *agentfiles.Set, opt Options) (*Cost, error) {
	if opt.Agent == "" {
		opt.Agent = Claude
	}
	if opt.Agent == All {
		return computeAll(ctx, set, opt)
	}
	if !slices.Contains(Agents, opt.Agent) {
		return nil, fmt.Errorf("unknown agent %q (want one of %s)", opt.Agent, strings.Join(Agents, ", "))
	}
	if opt.ContextWindow <= 0 {
		opt.ContextWindow = DefaultContextWindow
	}
	if opt.Config == nil {
		opt.Config = config.Default()
	}
	own := TokenizerOf(opt.Agent)
	if opt.Counter == nil {
		c, err := tokens.New(own.Name)
		if err != nil {
			return nil, fmt.Errorf("session cost: %w", err)
		}
		opt.Counter = c
	}
	cost := &Cost{Agent: opt.Agent, AlwaysLoaded: []Entry{}, OnDemand: []Entry{},
		Tokenizer: opt.Counter.Name(), NotCounted: NotCounted(opt.Agent)}
	if c, err := tokens.New(own.Name); err == nil && c.Name() == cost.Tokenizer {
		cost.TokenizerNote = own.Note
	}
	b := &builder{ctx: ctx, set: set, opt: opt, seen: map[string]bool{}, later: map[string]bool{}, refused: map[string]bool{},
		cost: cost}
	switch opt.Agent {
	case Claude:
		b.claude()
	case Codex:
		b.codex()
	case Cursor:
		b.cursor()
	case Copilot:
		b.copilot()
	case Gemini:
		b.gemini()
	case Windsurf:
		b.windsurf()
	case Cline:
		b.cline()
	case Kiro:
		b.kiro()
	case OpenCode:
		b.opencode()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, e := range b.cost.AlwaysLoaded {
		b.cost.TotalAlwaysLoaded += e.Tokens
	}
	return b.cost, nil
}

// computeAll costs the session of every agent the project configures,
// each counted in its own tokenizer unless opt names one.
func computeAll(ctx context.Context, set *agentfiles.Set, opt Options) (*Cost, error) {
	out := &Cost{Agent: All, AlwaysLoaded: []Entry{}, OnDemand: []Entry{}, NotCounted: []string{}, Agents: []AgentCost{}}
	if opt.Counter != nil {
		out.Tokenizer = opt.Counter.Name()
	}
	for _, a := range Configured(set) {
		o := opt
		o.Agent = a
		c, err := Compute(ctx, set, o)
		if err != nil {
			return nil, err
		}
		out.Agents = append(out.Agents, AgentCost{Agent: c.Agent, AlwaysLoaded: c.AlwaysLoaded, OnDemand: c.OnDemand,
			TotalAlwaysLoaded: c.TotalAlwaysLoaded, Warnings: c.Warnings, Tokenizer: c.Tokenizer, TokenizerNote: c.TokenizerNote})
	}
	return out, nil
}

type builder struct {
	ctx  context.Context
	set  *agentfiles.Set
	opt  Options
	cost *Cost
	// seen holds the files already counted as always loaded: the agent
	// loads a file once however many memory files import it.
	seen map[string]bool
	// later holds the files already listed as loading later.
	later map[string]bool
	// refused holds the imported files already reported as not read.
	refused map[string]bool
}

func (b *builder) always(rel string, n int, reason string) {
	b.cost.AlwaysLoaded = append(b.cost.AlwaysLoaded, Entry{File: rel, Tokens: n, Reason: reason})
}

func (b *builder) onDemand(rel string, n int, reason string) {
	b.cost.OnDemand = append(b.cost.OnDemand, Entry{File: rel, Tokens: n, Reason: reason})
}

func (b *builder) warn(format string, args ...any) {
	b.cost.Warnings = append(b.cost.Warnings, fmt.Sprintf(format, args...))
}

func (b *builder) count(text []byte) int { return b.opt.Counter.Count(string(text)) }

// files returns the readable agent files of the given kinds, by path.
func (b *builder) files(kinds ...agentfiles.Kind) []*agentfiles.File {
	var out []*agentfiles.File
	for _, f := range b.set.Files {
		if f.Skipped == "" && slices.Contains(kinds, f.Kind) {
			out = append(out, f)
		}
	}
	return out
}

func (b *builder) rel(p string) string {
	if r, ok := fsguard.Rel(b.set.Root, p); ok {
		return r
	}
	return p
}

// tree returns the files a memory file's imports load, itself first, each
// with its hop. An import that the workspace's root check refuses is
// neither read nor counted; it is reported once.
func (b *builder) tree(f *agentfiles.File) []*imports.File {
	opt := memory.Options(b.opt.Config, b.set.Root, b.opt.Counter)
	opt.Guard = b.set.Guard()
	opt.Read = func(p string) ([]byte, error) {
		if p == f.Path {
			return f.Text, nil
		}
		return imports.ReadFile(opt.Guard, p)
	}
	t, err := imports.Build(b.ctx, f.Path, opt)
	if err != nil {
		return nil
	}
	for _, tf := range t.Files {
		for _, e := range tf.Imports {
			if (e.Status != imports.Escapes && e.Status != imports.Special) || b.refused[e.Target] {
				continue
			}
			b.refused[e.Target] = true
			why := "it leads out of the workspace through a symbolic link"
			if e.Status == imports.Special {
				why = "it is " + e.Why
			}
			b.warn("%s, imported by %s, is neither read nor counted: %s", b.rel(e.Target), b.rel(e.From), why)
		}
	}
	return t.Files
}

// memory adds a memory file and the files its imports load.
func (b *builder) memory(f *agentfiles.File, reason string, always bool) {
	for _, m := range b.tree(f) {
		if always {
			if b.seen[m.Path] {
				continue
			}
			b.seen[m.Path] = true
		}
		why := reason
		if m.Hop > 0 {
			why = fmt.Sprintf("imported by %s (hop %d)", f.Rel, m.Hop)
			if !always {
				why += ", loads with it"
			}
		}
		switch {
		case always:
			b.always(b.rel(m.Path), m.Tokens, why)
		case m.Hop > 0 && b.later[m.Path]:
			// Imported by another file that loads later too: once is
			// enough to say it.
		default:
			b.later[m.Path] = true
			b.onDemand(b.rel(m.Path), m.Tokens, why)
		}
	}
}

func (b *builder) claude() {
	mem := b.files(agentfiles.KindMemory, agentfiles.KindRule)
	// Project memory, then local memory, then rules, as Claude Code
	// lists them.
	for _, k := range []memory.Kind{memory.Project, memory.Local} {
		for _, f := range mem {
			if memory.Classify(f.Rel) == k {
				b.memory(f, k.String(), true)
			}
		}
	}
	for _, f := range mem {
		switch memory.Classify(f.Rel) {
		case memory.Rule:
			globs, scoped := memory.RulePaths(f.Doc)
			switch {
			case !topLevel(f.Rel, ".claude/rules/"):
				b.memory(f, fmt.Sprintf("rule of %s, when Claude works there", nestedDir(f.Rel, ".claude/rules/")), false)
			case scoped:
				b.memory(f, fmt.Sprintf("rule, when files matching %s are read", strings.Join(globs, ", ")), false)
			default:
				b.memory(f, "rule without paths", true)
			}
		case memory.Nested:
			b.memory(f, fmt.Sprintf("nested memory, when Claude reads files in %s/", nestedDir(f.Rel, "")), false)
		}
	}
	b.outputStyle()
	// A command named like a skill is the skill's: the skill wins.
	skills := map[string]bool{}
	for _, f := range b.files(agentfiles.KindSkill) {
		if projectLevel(f) {
			name, _ := listingOf(f, 0)
			skills[name] = true
		}
	}
	// The skill listing: skills and commands (subagents are listed apart).
	listing, listingChars := 0, 0
	for _, f := range b.files(agentfiles.KindSkill, agentfiles.KindCommand, agentfiles.KindSubagent) {
		if b.ctx.Err() != nil {
			return
		}
		kind := map[agentfiles.Kind]string{agentfiles.KindSkill: "skill", agentfiles.KindCommand: "command", agentfiles.KindSubagent: "subagent"}[f.Kind]
		if !projectLevel(f) {
			// Plugin and nested files load only where the plugin is
			// installed or Claude works in that folder.
			continue
		}
		body := FileTokens(b.opt.Counter, f)
		name, desc := listingOf(f, b.opt.Config.Limits.SkillListing)
		switch {
		case f.Kind == agentfiles.KindCommand && skills[name]:
			// Never listed nor run: /name runs the skill.
		case f.Kind == agentfiles.KindSubagent:
			n := b.count([]byte(listingLine(name, desc)))
			b.always(f.Rel, n, "subagent listing")
			b.onDemand(f.Rel, body, "subagent prompt, in the subagent's own context when it runs")
		case flag(f.Doc, "disable-model-invocation"):
			b.onDemand(f.Rel, body, fmt.Sprintf("%s, only when run as /%s (disable-model-invocation)", kind, name))
		default:
			line := listingLine(name, desc)
			n := b.count([]byte(line))
			listing += n
			listingChars += utf8.RuneCountInString(line)
			b.always(f.Rel, n, kind+" listing")
			b.onDemand(f.Rel, body, fmt.Sprintf("%s body, when invoked", kind))
		}
	}
	if budget := int(float64(b.opt.ContextWindow) * listingShare * charsPerToken); listingChars > budget {
		b.warn("the listing of skills and commands is %d characters (%d tokens), over Claude Code's budget of %d characters, 1%% of the %d-token context window: Claude Code drops descriptions past that, and a skill without one is not picked",
			listingChars, listing, budget, b.opt.ContextWindow)
	}
}

// outputStyle adds the output style the project's settings select: its
// body joins the system prompt of every session. settings.local.json
// overrides settings.json; a built-in style or one outside the project
// is not counted.
func (b *builder) outputStyle() {
	name, from := "", ""
	for _, f := range b.files(agentfiles.KindSettings) {
		if f.Rel != ".claude/settings.json" && f.Rel != ".claude/settings.local.json" {
			continue
		}
		var s struct {
			OutputStyle string `json:"outputStyle"`
		}
		if json.Unmarshal(f.Text, &s) != nil || s.OutputStyle == "" {
			continue
		}
		if name == "" || f.Rel == ".claude/settings.local.json" {
			name, from = s.OutputStyle, f.Rel
		}
	}
	if name == "" {
		return
	}
	for _, f := range b.files(agentfiles.KindOutputStyle) {
		if !topLevel(f.Rel, ".claude/output-styles/") {
			continue
		}
		file := strings.TrimSuffix(path.Base(f.Rel), ".md")
		if strings.EqualFold(f.Meta.Name, name) || (f.Meta.Name == "" && strings.EqualFold(file, name)) {
			b.always(f.Rel, FileTokens(b.opt.Counter, f), fmt.Sprintf("output style %s (outputStyle in %s), in the system prompt", name, from))
			return
		}
	}
}

// agentsMd adds the AGENTS.md at the root (for Codex, AGENTS.override.md
// in its place when there is one), cut at the configured byte cap for
// Codex, and lists the nested ones as on demand.
func (b *builder) agentsMd(agent string) {
	limit := b.opt.Config.Limits.AgentsMdBytes
	for _, f := range b.files(agentfiles.KindAgentsMd) {
		if path.Base(f.Rel) != "AGENTS.md" {
			continue
		}
		if path.Dir(f.Rel) != "." {
			b.onDemand(f.Rel, b.count(f.Text), fmt.Sprintf("AGENTS.md of %s/, when %s works there", path.Dir(f.Rel), agent))
			continue
		}
		name, text := f.Rel, f.Text
		if agent == "Codex" {
			if o, err := imports.ReadFile(b.set.Guard(), filepath.Join(b.set.Root, "AGENTS.override.md")); err == nil {
				name, text = "AGENTS.override.md", o
			}
		}
		reason := fmt.Sprintf("project instructions (%s)", name)
		if agent == "Codex" && len(text) > limit {
			b.warn("%s is %d bytes; Codex reads the first %d (project_doc_max_bytes) and drops the rest", name, len(text), limit)
			text = cutUTF8(text, limit)
			reason = fmt.Sprintf("project instructions (%s), cut at %d bytes", name, limit)
		}
		b.always(name, b.count(text), reason)
	}
}

// codex adds the chain of AGENTS.md files Codex reads when it starts at
// the root, and lists the chain of each folder that has a file of its
// own as loading when Codex starts there.
func (b *builder) codex() {
	budget := b.set.CodexCap()
	if p := b.set.CodexConfigProblem(); p != "" {
		b.warn("%s, so Codex cannot load it; counted with Codex's defaults: AGENTS.override.md, else AGENTS.md, in each folder, and a cap of %d bytes", p, budget)
	}
	for _, l := range b.set.CodexChain(".") {
		b.codexLink(l, budget, "project instructions")
	}
	for _, f := range b.files(agentfiles.KindAgentsMd) {
		dir := path.Dir(f.Rel)
		if dir == "." {
			continue
		}
		chain := b.set.CodexChain(dir)
		if len(chain) == 0 || chain[len(chain)-1].File != f {
			continue // another file of the folder is read, or the cap falls before it
		}
		l := chain[len(chain)-1]
		reason := fmt.Sprintf("%s of %s/, when Codex starts there (after the %d bytes of the chain above)", path.Base(f.Rel), dir, l.Start)
		if l.Read < len(f.Text) {
			reason += fmt.Sprintf(", cut at %d of its bytes by the %d-byte cap", l.Read, budget)
		}
		b.onDemand(f.Rel, b.count(cutUTF8(f.Text, l.Read)), reason)
	}
}

// codexLink adds a file of the chain read at start.
func (b *builder) codexLink(l agentfiles.ChainLink, budget int, what string) {
	f := l.File
	reason := fmt.Sprintf("%s (%s)", what, path.Base(f.Rel))
	if l.Read < len(f.Text) {
		b.warn("the AGENTS.md chain is %d bytes with %s; Codex reads the first %d (project_doc_max_bytes) and drops the rest", l.Start+len(f.Text), f.Rel, budget)
		reason += fmt.Sprintf(", cut at %d bytes", l.Read)
	}
	b.always(f.Rel, b.count(cutUTF8(f.Text, l.Read)), reason)
}

func (b *builder) cursor() {
	b.agentsMd("Cursor")
	if f := b.rootFile(".cursorrules"); f != nil {
		b.always(f.Rel, b.count(f.Text), "legacy .cursorrules")
	}
	for _, f := range b.files(agentfiles.KindCursorRule) {
		m := f.Meta
		body := b.count(f.Text)
		switch {
		case !strings.HasPrefix(f.Rel, ".cursor/rules/"):
			b.onDemand(f.Rel, body, fmt.Sprintf("Cursor rule of %s/, when Cursor works there", nestedDir(f.Rel, ".cursor/rules/")))
		case m.AlwaysApply:
			b.always(f.Rel, body, "Cursor rule, alwaysApply")
		case len(m.Globs) > 0:
			b.onDemand(f.Rel, body, fmt.Sprintf("Cursor rule, when files matching %s are in context", strings.Join(m.Globs, ", ")))
		case strings.TrimSpace(m.Description) != "":
			b.always(f.Rel, b.count([]byte(listingLine(strings.TrimSuffix(path.Base(f.Rel), ".mdc"), m.Description))), "Cursor rule description, for the agent to request it")
			b.onDemand(f.Rel, body, "Cursor rule, when the agent requests it")
		default:
			b.onDemand(f.Rel, body, "Cursor rule, only when @-mentioned")
		}
	}
}

func (b *builder) copilot() {
	if f := b.rootFile("AGENTS.md"); f != nil {
		b.always(f.Rel, b.count(f.Text), "project instructions (AGENTS.md), for the coding agent")
	}
	b.nestedAgentsMd("Copilot's coding agent")
	b.copilotAgents()
	for _, f := range b.files(agentfiles.KindCopilotInstructions) {
		body := b.count(f.Text)
		if path.Base(f.Rel) == "copilot-instructions.md" {
			if f.Rel == ".github/copilot-instructions.md" {
				b.always(f.Rel, body, "repository instructions")
			} else {
				b.onDemand(f.Rel, body, fmt.Sprintf("repository instructions of %s/, when it is opened as a workspace of its own", strings.TrimSuffix(f.Rel, "/.github/copilot-instructions.md")))
			}
			continue
		}
		globs := f.Meta.Globs
		switch {
		case slices.ContainsFunc(globs, everywhere):
			b.always(f.Rel, body, fmt.Sprintf("instructions, applyTo %s", strings.Join(globs, ", ")))
		case len(globs) > 0:
			b.onDemand(f.Rel, body, fmt.Sprintf("instructions, when files matching %s are in the request", strings.Join(globs, ", ")))
		default:
			b.onDemand(f.Rel, body, "instructions without applyTo, only when attached by hand")
		}
	}
	for _, f := range b.files(agentfiles.KindCopilotPrompt) {
		name := strings.TrimSuffix(path.Base(f.Rel), ".prompt.md")
		b.onDemand(f.Rel, b.count(f.Text), fmt.Sprintf("prompt, when run as /%s", name))
	}
}

// gemini adds Gemini CLI's context files at the root (GEMINI.md, or the
// names of context.fileName) and what their @file imports load, and lists
// those of subfolders as loading when a tool reads files there.
func (b *builder) gemini() {
	if p := b.set.GeminiSettingsProblem(); p != "" {
		b.warn("%s, so its context.fileName is not read; counted with Gemini CLI's default context file, GEMINI.md", p)
	}
	for _, name := range b.set.GeminiNames() {
		f, ok := b.set.File(filepath.Join(b.set.Root, name))
		if !ok || f.Skipped != "" {
			continue
		}
		b.geminiTree(f, fmt.Sprintf("context file (%s)", name), true)
	}
	for _, f := range b.files(agentfiles.KindAgentsMd) {
		if dir := path.Dir(f.Rel); dir != "." && slices.Contains(b.set.GeminiNames(), path.Base(f.Rel)) {
			b.geminiTree(f, fmt.Sprintf("context file of %s/, when a tool reads files there", dir), false)
		}
	}
}

// geminiTree adds a context file and the files its imports load.
func (b *builder) geminiTree(f *agentfiles.File, reason string, always bool) {
	t, err := b.set.GeminiTree(b.ctx, f, b.opt.Counter)
	if err != nil {
		return
	}
	for _, m := range t.Files {
		why := reason
		if m.Hop > 0 {
			why = fmt.Sprintf("imported by %s (hop %d)", f.Rel, m.Hop)
		}
		switch {
		case always && !b.seen[m.Path]:
			b.seen[m.Path] = true
			b.always(b.rel(m.Path), m.Tokens, why)
		case !always && !b.later[m.Path]:
			b.later[m.Path] = true
			b.onDemand(b.rel(m.Path), m.Tokens, why)
		}
	}
}

// everywhere reports whether an applyTo glob matches every file.
func everywhere(g string) bool { return g == "**" || g == "**/*" || g == "*" }

// projectLevel reports whether a skill, command or subagent belongs to
// the project's own .claude folder, which every session at the root reads.
func projectLevel(f *agentfiles.File) bool {
	return strings.HasPrefix(f.Rel, ".claude/")
}

// listingOf returns the name and description the agent lists a skill,
// command or subagent with. A skill's description and when_to_use are
// joined and cut at max characters; a file without a description is
// listed with its first paragraph.
func listingOf(f *agentfiles.File, max int) (string, string) {
	name := f.Meta.Name
	switch f.Kind {
	case agentfiles.KindSkill:
		name = f.SkillName()
	case agentfiles.KindCommand:
		name = strings.TrimSuffix(path.Base(f.Rel), ".md")
	default:
		if name == "" {
			name = strings.TrimSuffix(path.Base(f.Rel), ".md")
		}
	}
	desc := strings.TrimSpace(f.Meta.Description)
	if desc == "" && f.Doc != nil {
		desc = firstParagraph(f.Doc)
	}
	if f.Kind == agentfiles.KindSkill {
		if w := strings.TrimSpace(f.Meta.WhenToUse); w != "" {
			desc += " " + w
		}
		if max > 0 && utf8.RuneCountInString(desc) > max {
			desc = string([]rune(desc)[:max])
		}
	}
	return name, desc
}

func listingLine(name, desc string) string { return "- " + name + ": " + desc + "\n" }

// firstParagraph returns the body's first paragraph that is not a heading.
func firstParagraph(doc *document.Doc) string {
	var lines []string
	for _, l := range strings.Split(string(doc.Slice(doc.Body)), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" && len(lines) > 0:
			return strings.Join(lines, " ")
		case l == "" || strings.HasPrefix(l, "#"):
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, " ")
}

// flag reports whether the frontmatter sets a boolean field to true.
func flag(doc *document.Doc, key string) bool {
	if doc == nil || doc.Frontmatter == nil {
		return false
	}
	_, v := doc.Frontmatter.Root().Field(key)
	return v.Exists() && v.Kind() == document.ScalarNode && v.Value() == "true"
}

// topLevel reports whether rel lies under prefix at the project root.
func topLevel(rel, prefix string) bool { return strings.HasPrefix(rel, prefix) }

// nestedDir returns the folder holding a nested memory file or the
// .claude folder of a nested rule.
func nestedDir(rel, marker string) string {
	if marker != "" {
		if i := strings.Index(rel, "/"+marker); i >= 0 {
			return rel[:i]
		}
	}
	d := path.Dir(rel)
	return strings.TrimSuffix(d, "/.claude")
}

// cutUTF8 returns at most n bytes of b, not splitting a character.
func cutUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}
