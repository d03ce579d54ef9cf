package agentfiles

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/internal/glob"
)

var commandFields = []field{
	{"description", tString, "What the command does, shown in the / menu and in the listing the model reads.", nil},
	{"argument-hint", tStringOrList, "The arguments shown after the command's name, such as [file] [mode]; the body reads them as $ARGUMENTS, $1, $2.", nil},
	{"allowed-tools", tStringOrList, "Tools the command may use without asking, such as Bash(git status:*).", nil},
	{"model", tString, "The model the command runs with.", []string{"sonnet", "opus", "haiku", "inherit"}},
	{"disable-model-invocation", tBool, "true keeps the model from running the command on its own.", boolValues},
}

var (
	// fileLike matches a path that ends in a file extension.
	fileLike = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]*$`)
	// fileRef matches an @path file reference of a command: an @ at the
	// start of a word, then a path.
	fileRef = regexp.MustCompile(`(?:^|[\s(\["'])@((?:\.{1,2}/|[\w-])[\w./-]*[\w])`)
)

func (c *checker) command() {
	if root := c.frontmatter(false, "a command"); root.Exists() {
		c.typed(root, commandFields, diag.CommandFieldInvalid)
	}
	c.commandShadowed()
	doc := c.f.Doc
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		if _, in := doc.InFence(start); in {
			continue
		}
		text := doc.Lines.Line(n)
		codes := document.CodeSpans(doc.Text, document.Span{Start: start, End: start + len(text)})
		for _, m := range fileRef.FindAllSubmatchIndex(text, -1) {
			s := document.Span{Start: start + m[2], End: start + m[3]}
			if _, in := spanAt(codes, s.Start); in {
				continue
			}
			p := string(text[m[2]:m[3]])
			if !fileLike.MatchString(p) && !c.existsRel(strings.SplitN(path.Clean(p), "/", 2)[0]) {
				continue // @name, @scope/package: a mention, not a file
			}
			if !c.commandFileExists(p) {
				c.add(document.Span{Start: s.Start - 1, End: s.End}, diag.CommandFileMissing, "@%s names no file (looked in the project root and next to the command)", p)
			}
		}
	}
}

// commandFileExists resolves an @path of a command as Claude Code does,
// from the project root, and, for a plugin, next to the command.
func (c *checker) commandFileExists(p string) bool {
	return c.existsRel(path.Join(".", p)) || c.existsRel(path.Join(path.Dir(c.f.Rel), p))
}

var subagentFields = []field{
	{"name", tString, "The subagent's name: lowercase letters, digits and hyphens. Required.", nil},
	{"description", tString, "When the subagent should be used; Claude delegates by it. Required.", nil},
	{"tools", tStringOrList, "The tools the subagent may use, comma-separated or a list; all tools when left out.", nil},
	{"disallowedTools", tStringOrList, "Tools the subagent may not use.", nil},
	{"model", tString, "The model the subagent runs with; inherit uses the main conversation's.", []string{"sonnet", "opus", "haiku", "inherit"}},
	{"permissionMode", tString, "How the subagent asks for permissions: plan only reads, acceptEdits edits without asking, bypassPermissions asks for nothing.", permissionModes},
	{"skills", tStringOrList, "Skills loaded into the subagent's context when it starts; each must name a skill of the project.", nil},
	{"mcpServers", tStringOrList, "MCP servers the subagent may use.", nil},
	{"hooks", tMap, "Hooks that run while the subagent is active.", nil},
	{"color", tString, "The color the subagent is shown in.", []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}},
	{"maxTurns", tInt, "The most turns the subagent takes before it stops.", nil},
	{"memory", tString, "The memory the subagent keeps across runs.", []string{"user", "project", "local"}},
	{"background", tBool, "true runs the subagent in the background.", boolValues},
	{"effort", tString, "The reasoning effort of the subagent's model.", []string{"low", "medium", "high", "xhigh", "max"}},
	{"isolation", tString, "worktree runs the subagent in a temporary git worktree of its own.", []string{"worktree"}},
}

var (
	subagentNameRE  = regexp.MustCompile(`^[a-z0-9-]+$`)
	permissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"}
)

func (c *checker) subagent() {
	root := c.frontmatter(true, "a subagent")
	if !root.Exists() {
		return
	}
	// mcpServers may also be a list of server definitions.
	c.typed(root, subagentFields, diag.SubagentFieldInvalid)
	for _, key := range []string{"name", "description"} {
		v, k, n := str(root, key)
		if !k.Exists() || !n.Exists() || n.Tag() == "!!null" || (isString(n) && strings.TrimSpace(v) == "") {
			c.add(c.headSpan(k), diag.SubagentFieldMissing, "a subagent needs a %s", key)
		}
	}
	if name, _, v := str(root, "name"); v.Exists() && name != "" && !subagentNameRE.MatchString(name) {
		if strings.Contains(name, ":") {
			c.add(c.f.Doc.ValueSpan(v), diag.SubagentNameInvalid, "name %q holds \":\", which Claude Code reserves for a plugin's namespace (plugin:agent); use lowercase letters, digits and hyphens", name)
		} else {
			c.add(c.f.Doc.ValueSpan(v), diag.SubagentNameInvalid, "name %q must be lowercase letters, digits and hyphens", name)
		}
	}
	c.subagentClaude(root)
	if mode, _, v := str(root, "permissionMode"); v.Exists() && mode != "" && !slices.Contains(permissionModes, mode) {
		c.add(c.f.Doc.ValueSpan(v), diag.SubagentFieldInvalid, "permissionMode %q is not one of %s", mode, strings.Join(permissionModes, ", "))
	}
	// A partial set does not know every skill of the project.
	if _, v := root.Field("skills"); v.Exists() && !c.s.partial {
		names := c.s.skillNames()
		for _, it := range listItems(v) {
			for _, name := range strings.Split(it.Value(), ",") {
				name = strings.TrimSpace(name)
				if name == "" || names[name] || names[name[strings.LastIndex(name, ":")+1:]] {
					continue
				}
				c.add(c.nodeSpan(it), diag.SubagentSkillMissing, "skills names %q, but no skill of the project has that name", name)
			}
		}
	}
}

// listItems returns the string items of a string or list node.
func listItems(v document.Node) []document.Node {
	if isString(v) {
		return []document.Node{v}
	}
	var out []document.Node
	if v.Kind() == document.SequenceNode {
		for it := range v.Items() {
			if isString(it) {
				out = append(out, it)
			}
		}
	}
	return out
}

// commandShadowed reports a command of the project's .claude/commands
// that a skill of its .claude/skills answers for: Claude Code's skills
// page says that when a skill and a command share a name, the skill takes
// precedence, so /name runs the skill and the command never loads. A
// skill the user cannot invoke (user-invocable: false) is not said to
// shadow it, as the page does not say which one /name runs then.
func (c *checker) commandShadowed() {
	if c.s.partial || path.Dir(c.f.Rel) != ".claude/commands" {
		return
	}
	name := strings.TrimSuffix(path.Base(c.f.Rel), ".md")
	sk := c.s.projectSkill(name)
	if sk == nil {
		return
	}
	d := c.add(lineOf(c.f.Lines, 0), diag.CommandShadowed, "the skill %s is also named %s, and Claude Code runs the skill when a skill and a command share a name: /%s never loads this command", sk.Rel, name, name)
	if d != nil {
		d.Related = []diag.Related{{Path: sk.Path, Span: lineOf(sk.Lines, 0), Message: fmt.Sprintf("the skill /%s runs", name)}}
	}
}

// projectSkill returns the skill of the project's .claude/skills that
// answers to /name, or nil: its name field, else its folder's name.
func (s *Set) projectSkill(name string) *File {
	s.commandSkillsOnce.Do(func() {
		s.commandSkills = map[string]*File{}
		for _, f := range s.Files {
			rest, ok := strings.CutPrefix(f.Rel, ".claude/skills/")
			if f.Kind != KindSkill || f.Skipped != "" || !ok || strings.Count(rest, "/") != 1 || f.Doc == nil {
				continue
			}
			if fm := f.Doc.Frontmatter; fm != nil {
				if _, v := fm.Root().Field("user-invocable"); v.Exists() && v.Value() == "false" {
					continue
				}
			}
			n := f.SkillName()
			if s.commandSkills[n] == nil {
				s.commandSkills[n] = f
			}
		}
	})
	return s.commandSkills[name]
}

// skillNames are the names skills answer to: their name field and their
// folder's name.
func (s *Set) skillNames() map[string]bool {
	s.skillsOnce.Do(func() {
		s.skills = map[string]bool{}
		for _, f := range s.Files {
			if f.Kind != KindSkill {
				continue
			}
			s.skills[path.Base(path.Dir(f.Rel))] = true
			if f.Meta.Name != "" {
				s.skills[f.Meta.Name] = true
			}
		}
	})
	return s.skills
}

func (c *checker) agentsMd() {
	if c.s.isCodexName(path.Base(c.f.Rel)) {
		c.codexChainCheck()
	}
	if c.s.isGeminiName(path.Base(c.f.Rel)) {
		c.geminiImports()
	}
}

var cursorFields = []field{
	{"description", tString, "What the rule is for. Without globs and alwaysApply, the agent reads it to decide whether to load the rule (agent-requested).", nil},
	{"globs", tStringOrList, "Globs of the files the rule is attached to when they are in context (auto-attached), comma-separated or a list.", nil},
	{"alwaysApply", tBool, "true loads the rule in every request (always).", boolValues},
}

// cursorRuleType is the type a Cursor rule's frontmatter gives it.
type cursorRuleType string

// Cursor rule types.
const (
	cursorAlways         cursorRuleType = "always"
	cursorAutoAttached   cursorRuleType = "auto-attached"
	cursorAgentRequested cursorRuleType = "agent-requested"
	cursorManual         cursorRuleType = "manual"
)

// cursorType returns the rule type of a Cursor rule's metadata.
func cursorType(m Meta) cursorRuleType {
	switch {
	case m.AlwaysApply:
		return cursorAlways
	case len(m.Globs) > 0:
		return cursorAutoAttached
	case strings.TrimSpace(m.Description) != "":
		return cursorAgentRequested
	}
	return cursorManual
}

func (c *checker) cursorRule() {
	root := c.frontmatter(false, "a Cursor rule")
	if root.Exists() {
		c.typed(root, cursorFields, diag.CursorFieldInvalid)
	}
	if c.f.Doc.Frontmatter != nil && !root.Exists() {
		return // the frontmatter does not parse: its diagnostic says why
	}
	_, always := root.Field("alwaysApply")
	switch cursorType(c.f.Meta) {
	case cursorManual:
		if always.Exists() && always.Tag() != "!!bool" && always.Tag() != "!!null" {
			break // alwaysApply written wrong: its own diagnostic says so
		}
		c.add(c.lineSpan(0), diag.CursorRuleNeverLoads, "this rule has no alwaysApply: true, no globs and no description, so Cursor never loads it on its own: only an explicit @-mention does")
	case cursorAutoAttached:
		_, v := root.Field("globs")
		c.globs(v, glob.Options{}, diag.CursorFieldInvalid, diag.CursorRuleNeverLoads, "globs")
	}
}

var (
	copilotInstructionFields = []field{
		{"applyTo", tString, "Globs of the files the instructions apply to, comma-separated, such as **/*.go, tried under any folder; ** applies them everywhere.", nil},
		{"excludeAgent", tString, "The Copilot agent that does not use these instructions: code-review or coding-agent.", excludeAgents},
		{"description", tString, "What the instructions are about; VS Code may apply them when it matches the task.", nil},
		{"name", tString, "The name shown for the instructions.", nil},
	}
	copilotPromptFields = []field{
		{"description", tString, "What the prompt does, shown when it is picked.", nil},
		{"mode", tString, "The chat mode the prompt runs in (older name of agent).", []string{"ask", "edit", "agent"}},
		{"agent", tString, "The agent the prompt runs with.", []string{"ask", "edit", "agent"}},
		{"model", tString, "The model the prompt runs with.", nil},
		{"tools", tList, "The tools the prompt may use.", nil},
		{"name", tString, "The name typed after / to run the prompt.", nil},
		{"argument-hint", tStringOrList, "The hint shown in the chat input for the prompt's arguments.", nil},
	}
	excludeAgents = []string{"code-review", "coding-agent"}
	// applyToOptions read applyTo as VS Code does: a pattern that does not
	// start with / or **/ is tried under any folder, whatever the case.
	applyToOptions = glob.Options{AnyFolder: true, IgnoreCase: true}
)

func (c *checker) copilot() {
	root := c.frontmatter(false, "a Copilot file")
	if c.f.Kind == KindCopilotPrompt {
		if root.Exists() {
			c.typed(root, copilotPromptFields, diag.CopilotFieldInvalid)
		}
		return
	}
	// An empty frontmatter has no root either, and still no applyTo.
	if fm := c.f.Doc.Frontmatter; fm != nil && !root.Exists() && (fm.Err != nil || len(bytes.TrimSpace(c.f.Doc.Text[fm.Content.Start:fm.Content.End])) > 0) {
		return // the frontmatter does not parse: its diagnostic says why
	}
	if root.Exists() {
		c.typed(root, copilotInstructionFields, diag.CopilotFieldInvalid, "excludeAgent")
		c.excludeAgent(root)
	}
	if path.Base(c.f.Rel) == "copilot-instructions.md" {
		return // applies to every request without applyTo
	}
	_, v := root.Field("applyTo")
	if !v.Exists() || v.Tag() == "!!null" || (isString(v) && strings.TrimSpace(v.Value()) == "") {
		sp := c.lineSpan(0)
		if k, _ := root.Field("applyTo"); k.Exists() {
			sp = c.nodeSpan(k)
		}
		if desc, _, _ := str(root, "description"); strings.TrimSpace(desc) != "" {
			c.add(sp, diag.CopilotApplyToMissing, "these instructions have no applyTo, so Copilot never attaches them by the files at hand: VS Code adds them only when their description matches the task, and GitHub's coding agent and code review never read them; add applyTo, such as \"**\" for every file")
		} else {
			c.add(sp, diag.CopilotApplyToMissing, "these instructions have no applyTo and no description, so Copilot never applies them on its own: only attaching them by hand to a chat does; add applyTo, such as \"**\" for every file")
		}
		return
	}
	c.globs(v, applyToOptions, diag.CopilotApplyToInvalid, diag.CopilotApplyToUnmatched, "applyTo")
}

// excludeAgent checks that excludeAgent names one of the agents GitHub
// documents, as a single string.
func (c *checker) excludeAgent(root document.Node) {
	_, n := root.Field("excludeAgent")
	switch {
	case !n.Exists() || n.Tag() == "!!null":
	case n.Kind() == document.SequenceNode:
		c.add(c.nodeSpan(n), diag.CopilotFieldInvalid, "excludeAgent takes one agent as a string, code-review or coding-agent, not a list: GitHub documents no list form")
	case !isString(n):
		c.add(c.nodeSpan(n), diag.CopilotFieldInvalid, "excludeAgent must be code-review or coding-agent")
	case !slices.Contains(excludeAgents, n.Value()):
		c.add(c.f.Doc.ValueSpan(n), diag.CopilotFieldInvalid, "excludeAgent %q is not one of %s", n.Value(), strings.Join(excludeAgents, ", "))
	}
}

// globs checks the globs of a field, read with opt: each must compile
// and, unless unmatched is "", match a file of the workspace.
func (c *checker) globs(v document.Node, opt glob.Options, invalid, unmatched, field string) {
	if !v.Exists() {
		return
	}
	type miss struct {
		pat  string
		span document.Span
	}
	var misses []miss
	applies := false
	for _, it := range listItems(v) {
		for _, pat := range splitGlobs(it.Value()) {
			g, err := c.s.compile(pat, opt)
			if err != nil {
				c.add(c.nodeSpan(it), invalid, "%s: %v", field, err)
				continue
			}
			if unmatched == "" {
				continue
			}
			if c.s.matchesAny(pat, opt, g) || c.matchesNested(pat, opt) || c.s.mayMatchIgnored(pat) {
				applies = true
			} else {
				misses = append(misses, miss{pat, c.nodeSpan(it)})
			}
		}
	}
	// The file applies when any of its globs matches, so a glob that
	// matches nothing beside one that does costs nothing but may be a
	// typo; a Cursor rule that applies is no rule that never loads.
	for _, m := range misses {
		if applies && unmatched == diag.CursorRuleNeverLoads {
			break
		}
		if applies {
			c.add(m.span, unmatched, "%s %q matches no file of the workspace; the file applies by its other globs only", field, m.pat)
		} else {
			c.add(m.span, unmatched, "%s %q matches no file of the workspace, so the file is never applied", field, m.pat)
		}
	}
}

// mayMatchIgnored reports whether pat could match a file in a folder the
// walk skipped because git ignores it: then that it matches nothing
// listed does not show that it matches nothing.
func (s *Set) mayMatchIgnored(pat string) bool {
	if len(s.pruned) == 0 {
		return false
	}
	lit := strings.TrimPrefix(pat, "/")
	if i := strings.IndexAny(lit, "*?[{"); i >= 0 {
		lit = lit[:i]
	}
	lit = strings.TrimSuffix(lit, "/")
	for _, d := range s.pruned {
		if lit == "" || strings.HasPrefix(d+"/", lit) || strings.HasPrefix(lit, d+"/") || lit == d {
			return true
		}
	}
	return false
}

// globKey names a glob read with its options.
type globKey struct {
	pattern string
	opt     glob.Options
}

// nestedBase returns the folder that holds the .cursor folder of a
// Cursor rule at rel when it is not the workspace's own, else "".
func nestedBase(rel string) string {
	segs := strings.Split(rel, "/")
	i := indexPair(segs, ".cursor", "rules")
	if i <= 0 {
		return ""
	}
	return path.Join(segs[:i]...)
}

// globMeta are the characters a folder's name cannot hold to be written
// into a glob as it is.
const globMeta = "*?[]{}!\\"

// matchesNested reports whether a glob of a Cursor rule of a nested
// .cursor/rules folder matches a file when read from that folder: Cursor
// scopes such rules to their folder, and its documentation does not say
// whether their globs start there or at the workspace's root, so both are
// tried before the rule is said to match nothing.
func (c *checker) matchesNested(pat string, opt glob.Options) bool {
	if c.f.Kind != KindCursorRule {
		return false
	}
	base := nestedBase(c.f.Rel)
	if base == "" {
		return false
	}
	if strings.ContainsAny(base, globMeta) {
		return true // the folder cannot be written into a glob: say nothing
	}
	full := base + "/" + pat
	g, err := c.s.compile(full, opt)
	return err == nil && c.s.matchesAny(full, opt, g)
}

// compiledGlob is a glob compiled once for the set, or why it does not
// compile.
type compiledGlob struct {
	g   *glob.Glob
	err error
}

// maxCompiledGlobs bounds the globs a set keeps compiled: an editor's
// unsaved texts bring new ones to a set that lives on.
const maxCompiledGlobs = 20_000

// compile returns the glob of pattern read with opt, compiled once for
// the set however many files hold it; the checks of several files call
// it at once.
func (s *Set) compile(pattern string, opt glob.Options) (*glob.Glob, error) {
	k := globKey{pattern, opt}
	s.compiledMu.Lock()
	c, ok := s.compiled[k]
	s.compiledMu.Unlock()
	if ok {
		return c.g, c.err
	}
	g, err := glob.CompileWith(pattern, opt)
	s.compiledMu.Lock()
	defer s.compiledMu.Unlock()
	if s.compiled == nil {
		s.compiled = map[globKey]compiledGlob{}
	}
	if len(s.compiled) < maxCompiledGlobs {
		s.compiled[k] = compiledGlob{g, err}
	}
	return g, err
}

// matchesAny reports whether g, the pattern read with opt, matches a
// file of the workspace. The globs of every Cursor rule and Copilot
// instructions file of the set are matched together, once, in one pass
// over the files; a glob the set did not hold (an editor's unsaved text)
// is matched on its own.
func (s *Set) matchesAny(pattern string, opt glob.Options, g *glob.Glob) bool {
	if s.partial {
		return true // the files it may match were not listed
	}
	s.globOnce.Do(s.matchGlobs)
	if hit, ok := s.globHits[globKey{pattern, opt}]; ok {
		return hit
	}
	return glob.AnyMatch([]*glob.Glob{g}, s.all)[0]
}

// matchGlobs fills globHits with every distinct glob of the set's files.
func (s *Set) matchGlobs() {
	var keys []globKey
	var globs []*glob.Glob
	seen := map[globKey]bool{}
	add1 := func(pat string, opt glob.Options) {
		k := globKey{pat, opt}
		if seen[k] {
			return
		}
		seen[k] = true
		if g, err := s.compile(pat, opt); err == nil {
			keys = append(keys, k)
			globs = append(globs, g)
		}
	}
	add := func(v document.Node, opt glob.Options) {
		for _, it := range listItems(v) {
			for _, pat := range splitGlobs(it.Value()) {
				add1(pat, opt)
			}
		}
	}
	for _, f := range s.Files {
		if f.Doc == nil || f.Doc.Frontmatter == nil {
			continue
		}
		root := f.Doc.Frontmatter.Root()
		switch f.Kind {
		case KindCursorRule:
			_, v := root.Field("globs")
			add(v, glob.Options{})
			if base := nestedBase(f.Rel); base != "" && !strings.ContainsAny(base, globMeta) {
				for _, it := range listItems(v) {
					for _, pat := range splitGlobs(it.Value()) {
						add1(base+"/"+pat, glob.Options{})
					}
				}
			}
		case KindCopilotInstructions:
			_, v := root.Field("applyTo")
			add(v, applyToOptions)
		}
	}
	hits := glob.AnyMatch(globs, s.all)
	s.globHits = make(map[globKey]bool, len(keys))
	for i, k := range keys {
		s.globHits[k] = hits[i]
	}
}
