package agentfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/agentfacts"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/glob"
)

// cursorRuleMd reports a plain .md file in a .cursor/rules folder:
// Cursor's rules page documents rules as .mdc files, and what Cursor does
// with a plain .md there is not documented, so it is said as a hint.
func (c *checker) cursorRuleMd() {
	if f, ok := c.s.fact("cursor", "rules-md"); !ok || f.Load != agentfacts.Never {
		return // the installed version loads it
	}
	c.add(c.lineSpan(0), diag.CursorRuleNotMdc, "Cursor's rules page documents project rules as .mdc files; whether Cursor loads a plain .md from .cursor/rules is not documented: rename it to %s.mdc to be sure it loads",
		strings.TrimSuffix(path.Base(c.f.Rel), ".md"))
}

var (
	copilotTargets     = []string{"vscode", "github-copilot"}
	copilotAgentFields = []field{
		{"name", tString, "The name shown for the agent; the file name without .agent.md when left out.", nil},
		{"description", tString, "What the agent is for; Copilot picks the agent by it. Required.", nil},
		{"target", tString, "Where the agent runs: vscode or github-copilot; both when left out.", copilotTargets},
		{"tools", tStringOrList, "The tools the agent may use, a list or a comma-separated string; all tools when left out, none with [].", nil},
		{"model", tStringOrList, "The model the agent runs with (in VS Code, a list is tried in order).", nil},
		{"disable-model-invocation", tBool, "true keeps Copilot from picking the agent by itself: it must be chosen.", boolValues},
		{"user-invocable", tBool, "false hides the agent from the picker: only other agents use it.", boolValues},
		{"infer", tBool, "Retired: use disable-model-invocation and user-invocable.", boolValues},
		{"mcp-servers", tMap, "MCP servers the agent uses on GitHub (not in VS Code).", nil},
		{"metadata", tMap, "Names and values annotating the agent (not in VS Code).", nil},
		{"argument-hint", tString, "The hint shown in the chat input (VS Code).", nil},
		{"handoffs", tAny, "Agents to hand over to, with a label and a prompt (VS Code).", nil},
		{"agents", tStringOrList, "The agents this one may call as subagents (VS Code).", nil},
		{"hooks", tMap, "Hooks that run while the agent is active (VS Code).", nil},
	}
)

// copilotAgent checks a custom agent or a chat mode.
func (c *checker) copilotAgent() {
	what := "a custom agent"
	if c.f.Kind == KindCopilotChatMode {
		what = "a chat mode"
		name := strings.TrimSuffix(path.Base(c.f.Rel), ".chatmode.md")
		c.add(c.lineSpan(0), diag.CopilotChatModeLegacy, "chat modes are the older form of custom agents: VS Code and GitHub read .github/agents/%s.agent.md now", name)
	}
	root := c.frontmatter(false, what)
	if c.f.Doc.Frontmatter != nil && !root.Exists() {
		return // the frontmatter does not parse: its diagnostic says why
	}
	if root.Exists() {
		c.typed(root, copilotAgentFields, diag.CopilotFieldInvalid, "target")
		if t, _, v := str(root, "target"); v.Exists() && !slices.Contains(copilotTargets, t) {
			c.add(c.f.Doc.ValueSpan(v), diag.CopilotFieldInvalid, "target %q is not one of %s", t, strings.Join(copilotTargets, ", "))
		} else if v.Exists() && !isString(v) && v.Tag() != "!!null" {
			c.add(c.nodeSpan(v), diag.CopilotFieldInvalid, "target must be vscode or github-copilot")
		}
	}
	if c.f.Kind == KindCopilotAgent {
		k, v := root.Field("description")
		if !v.Exists() || v.Tag() == "!!null" || (isString(v) && strings.TrimSpace(v.Value()) == "") {
			sp := c.lineSpan(0)
			if k.Exists() {
				sp = c.nodeSpan(k)
			}
			c.add(sp, diag.CopilotAgentFieldMissing, "a custom agent needs a description: GitHub documents it as required, and Copilot picks the agent by it")
		}
		c.charCap(c.f.Doc.Body.Start, c.s.cfg.Limits.CopilotAgentChars, diag.CopilotAgentTooLong, func(n, limit int) string {
			return fmt.Sprintf("the agent's prompt is %d characters, over the %d GitHub allows a custom agent's prompt (limits.copilotAgentChars); this line passes it", n, limit)
		})
	}
}

// charCap reports where a body passes a cap in characters, at the line
// where the cap falls; msg says it from the body's length and the cap.
func (c *checker) charCap(start, limit int, code string, msg func(n, limit int) string) {
	text := c.f.Doc.Text[start:]
	n := utf8.RuneCount(text)
	if n <= limit {
		return
	}
	off := start
	for i := 0; i < limit; i++ {
		_, w := utf8.DecodeRune(c.f.Doc.Text[off:])
		off += w
	}
	at := c.f.Doc.Lines.LineOf(off)
	c.add(c.lineSpan(at), code, "%s", msg(n, limit))
}

var (
	windsurfTriggers = []string{"always_on", "model_decision", "glob", "manual"}
	windsurfFields   = []field{
		{"trigger", tString, "When Cascade applies the rule: always_on, model_decision (when its description fits the task), glob (for files matching globs) or manual (@-mentioned).", windsurfTriggers},
		{"description", tString, "What the rule is for; with trigger model_decision, Cascade applies the rule when it fits the task.", nil},
		{"globs", tStringOrList, "Globs of the files the rule applies to, with trigger glob.", nil},
	}
)

// windsurfRule checks a Windsurf rule: its trigger and the field the
// trigger needs, and its size against the per-rule cap.
func (c *checker) windsurfRule() {
	if c.f.Kind == KindWindsurfRule {
		root := c.frontmatter(false, "a Windsurf rule")
		if c.f.Doc.Frontmatter != nil && !root.Exists() {
			return
		}
		if root.Exists() {
			c.typed(root, windsurfFields, diag.WindsurfFieldInvalid, "trigger")
			trigger, k, v := str(root, "trigger")
			switch {
			case v.Exists() && !isString(v) && v.Tag() != "!!null":
				c.add(c.nodeSpan(v), diag.WindsurfFieldInvalid, "trigger must be one of %s", strings.Join(windsurfTriggers, ", "))
			case v.Exists() && isString(v) && !slices.Contains(windsurfTriggers, trigger):
				c.add(c.f.Doc.ValueSpan(v), diag.WindsurfFieldInvalid, "trigger %q is not one of %s", trigger, strings.Join(windsurfTriggers, ", "))
			case trigger == "model_decision":
				if d, _, _ := str(root, "description"); strings.TrimSpace(d) == "" {
					c.add(c.nodeSpan(k), diag.WindsurfFieldInvalid, "trigger model_decision needs a description: Cascade applies the rule when the description fits the task, and there is none")
				}
			case trigger == "glob":
				if _, g := root.Field("globs"); !g.Exists() || g.Tag() == "!!null" || (isString(g) && strings.TrimSpace(g.Value()) == "") {
					c.add(c.nodeSpan(k), diag.WindsurfFieldInvalid, "trigger glob needs globs: without them the rule applies to no file")
				}
			}
		}
	}
	c.charCap(0, c.s.cfg.Limits.WindsurfRuleChars, diag.WindsurfRuleTooLong, func(n, limit int) string {
		return fmt.Sprintf("%s is %d characters; Windsurf reads the first %d of a rule file (limits.windsurfRuleChars) and cuts the rest, from this line on", path.Base(c.f.Rel), n, limit)
	})
}

var clineFields = []field{
	{"paths", tList, "Globs of the files the rule applies to, a list: the rule loads when files matching one are in context. Without paths it loads for every request.", nil},
}

// clineRule checks a Cline rule: paths, when given, must be a list.
func (c *checker) clineRule() {
	if c.f.Doc == nil {
		return
	}
	root := c.frontmatter(false, "a Cline rule")
	if !root.Exists() {
		return
	}
	k, v := root.Field("paths")
	if !k.Exists() || v.Tag() == "!!null" {
		return
	}
	if v.Kind() != document.SequenceNode {
		c.add(c.valueSpan(k, v), diag.ClinePathsInvalid, "paths must be a list of globs, one per line under paths: as - \"src/**\"; Cline documents no other form")
		return
	}
	c.globs(v, glob.Options{}, diag.ClinePathsInvalid, "", "paths")
}

var (
	kiroInclusions = []string{"always", "fileMatch", "manual", "auto"}
	kiroFields     = []field{
		{"inclusion", tString, "When Kiro includes the file: always (the default), fileMatch (for files matching fileMatchPattern), manual (#name in chat) or auto (when its description fits the request).", kiroInclusions},
		{"fileMatchPattern", tStringOrList, "The glob, or globs, of the files that include the steering file, with inclusion fileMatch.", nil},
		{"name", tString, "The name of the steering file, with inclusion auto.", nil},
		{"description", tString, "What the steering file is about; with inclusion auto, Kiro includes it when this fits the request.", nil},
	}
)

// kiroSteering checks a Kiro steering file's inclusion and the field
// each inclusion needs, and its references to files of the workspace.
func (c *checker) kiroSteering() {
	c.kiroFileRefs()
	root := c.frontmatter(false, "a Kiro steering file")
	if !root.Exists() {
		return
	}
	c.typed(root, kiroFields, diag.KiroFieldInvalid, "inclusion")
	inc, k, v := str(root, "inclusion")
	switch {
	case v.Exists() && isString(v) && !slices.Contains(kiroInclusions, inc):
		msg := fmt.Sprintf("inclusion %q is not one of %s", inc, strings.Join(kiroInclusions, ", "))
		if j := slices.IndexFunc(kiroInclusions, func(m string) bool { return strings.EqualFold(m, inc) }); j >= 0 {
			msg += fmt.Sprintf("; did you mean %s?", kiroInclusions[j])
		}
		c.add(c.f.Doc.ValueSpan(v), diag.KiroFieldInvalid, "%s", msg)
	case v.Exists() && !isString(v) && v.Tag() != "!!null":
		c.add(c.nodeSpan(v), diag.KiroFieldInvalid, "inclusion must be one of %s", strings.Join(kiroInclusions, ", "))
	case inc == "fileMatch":
		if _, p := root.Field("fileMatchPattern"); !p.Exists() || p.Tag() == "!!null" || (isString(p) && strings.TrimSpace(p.Value()) == "") {
			c.add(c.nodeSpan(k), diag.KiroFieldInvalid, "inclusion fileMatch needs fileMatchPattern, the glob of the files that include this file; without it no file does")
		}
	case inc == "auto":
		if d, _, _ := str(root, "description"); strings.TrimSpace(d) == "" {
			c.add(c.nodeSpan(k), diag.KiroFieldInvalid, "inclusion auto needs a description: Kiro includes the file when it fits the request")
		}
	}
}

// openCodeConfig checks that every instructions entry of opencode.json
// names a file of the project: a path, or a glob that matches one.
func (c *checker) openCodeConfig() {
	root, off, err := parseJSON(c.f.Text)
	if err != nil {
		end := min(off+1, len(c.f.Text))
		c.add(document.Span{Start: off, End: end}, diag.JSONSyntax, "not valid JSON, so OpenCode cannot load it: %v", err)
		return
	}
	if root.kind != '{' {
		return
	}
	c.duplicateKeys(root, "OpenCode")
	v, k := root.get("instructions")
	if k == nil {
		return
	}
	if v.kind != '[' {
		c.add(v.span, diag.OpenCodeInstructionsMissing, "instructions must be a list of paths or globs, not %s", kindName(v.kind))
		return
	}
	for _, it := range v.items {
		if it.kind != '"' {
			c.add(it.span, diag.OpenCodeInstructionsMissing, "an instructions entry must be a path or a glob, not %s", kindName(it.kind))
			continue
		}
		p := it.str
		if strings.Contains(p, "://") || strings.HasPrefix(p, "~") || path.IsAbs(p) || fsguard.Climbs(p) {
			continue // a URL or a file outside the project: not checked
		}
		clean := strings.TrimPrefix(p, "./")
		if !strings.ContainsAny(clean, "*?[{") {
			if !c.existsRel(clean) {
				c.add(it.span, diag.OpenCodeInstructionsMissing, "instructions names %s, but the project has no such file; OpenCode loads nothing for it", p)
			}
			continue
		}
		g, err := c.s.compile(clean, glob.Options{})
		if err != nil {
			c.add(it.span, diag.OpenCodeInstructionsMissing, "instructions %q is not a valid glob: %v", p, err)
			continue
		}
		if !c.s.matchesAny(clean, glob.Options{}, g) {
			c.add(it.span, diag.OpenCodeInstructionsMissing, "instructions %q matches no file of the project; OpenCode loads nothing for it", p)
		}
	}
}

// OpenCodeInstructions returns the files of the project that the
// instructions of the root opencode.json name, relative and sorted, each
// once: paths that exist and the files globs match. URLs and files
// outside the project are left out.
func (s *Set) OpenCodeInstructions() []string {
	f, ok := s.File(filepath.Join(s.Root, "opencode.json"))
	if !ok || f.Skipped != "" {
		return nil
	}
	root, _, err := parseJSON(f.Text)
	if err != nil || root.kind != '{' {
		return nil
	}
	v, k := root.get("instructions")
	if k == nil || v.kind != '[' {
		return nil
	}
	var out []string
	for _, it := range v.items {
		p := strings.TrimPrefix(it.str, "./")
		if it.kind != '"' || strings.Contains(p, "://") || strings.HasPrefix(p, "~") || path.IsAbs(p) || fsguard.Climbs(p) {
			continue
		}
		if !strings.ContainsAny(p, "*?[{") {
			if _, found := slices.BinarySearch(s.all, path.Clean(p)); found {
				out = append(out, path.Clean(p))
			}
			continue
		}
		g, err := s.compile(p, glob.Options{})
		if err != nil {
			continue
		}
		for _, rel := range s.all {
			if g.Match(rel) {
				out = append(out, rel)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fact returns the agent's fact with the ID at the version .ctxls.yaml
// names for it, the newest documented behaviour by default.
func (s *Set) fact(agent, id string) (agentfacts.Fact, bool) {
	a, ok := agentfacts.Lookup(agent)
	if !ok {
		return agentfacts.Fact{}, false
	}
	return a.Fact(id, s.cfg.AgentVersion(agent))
}

// openCodeFields are the keys of opencode.json ctxls reads.
var openCodeFields = []field{
	{"instructions", tList, "Paths and globs of files OpenCode adds to its instructions besides AGENTS.md, relative to the project (URLs are fetched); each must name a file.", nil},
}

// OpenCodeFieldAt returns the documented top-level key of opencode.json
// at byte offset off of text, and the key's span.
func OpenCodeFieldAt(text []byte, off int) (Field, document.Span, bool) {
	spot, ok := jsonSpotAt(text, off)
	if !ok || spot.Value || len(spot.path) != 0 {
		return Field{}, document.Span{}, false
	}
	for _, f := range openCodeFields {
		if f.name == spot.Key {
			return Field{Name: f.name, Type: f.typ.String(), Doc: f.doc}, spot.KeySpan, true
		}
	}
	return Field{}, document.Span{}, false
}

// CompleteOpenCode returns the files of the project whose paths start as
// the instructions entry at byte offset off of text, the editor's
// opencode.json, and the span they replace: the entry's text. ok is
// false elsewhere.
func (s *Set) CompleteOpenCode(text []byte, off int, limit int) ([]Completion, document.Span, bool) {
	root, _, err := parseJSON(text)
	if err != nil {
		return nil, document.Span{}, false
	}
	v, _ := root.get("instructions")
	if v == nil || v.kind != '[' {
		return nil, document.Span{}, false
	}
	listed := map[string]bool{}
	var at *jnode
	for _, it := range v.items {
		if it.kind != '"' {
			continue
		}
		if off > it.span.Start && off < it.span.End {
			at = it
		} else {
			listed[path.Clean(strings.TrimPrefix(it.str, "./"))] = true
		}
	}
	if at == nil {
		return nil, document.Span{}, false
	}
	rep := document.Span{Start: at.span.Start + 1, End: at.span.End - 1}
	prefix := string(text[rep.Start:off])
	var out []Completion
	for _, rel := range s.all {
		if len(out) >= limit {
			break
		}
		if strings.HasPrefix(rel, strings.TrimPrefix(prefix, "./")) && !listed[rel] {
			out = append(out, Completion{Label: rel, Insert: rel, Detail: "file", Value: true})
		}
	}
	return out, rep, true
}

// kiroFileRefs reports a #[[file:…]] reference that names no file: from
// the workspace root, as Kiro documents it, nor from the steering file's
// folder. A path out of the workspace is not judged.
func (c *checker) kiroFileRefs() {
	if c.f.Doc == nil {
		return
	}
	dir := filepath.Dir(c.f.Path)
	for _, r := range kiroRefs(c.f.Doc) {
		if path.IsAbs(r.path) || strings.HasPrefix(r.path, "~") || strings.Contains(r.path, "://") || fsguard.Climbs(r.path) {
			continue
		}
		found := false
		for _, base := range []string{c.s.Root, dir} {
			if _, err := c.s.Guard().Stat(filepath.Join(base, filepath.FromSlash(r.path))); err == nil || !errors.Is(err, fs.ErrNotExist) {
				found = true // there, or there in a form ctxls does not judge
				break
			}
		}
		if !found {
			c.add(r.span, diag.KiroFileReferenceMissing, "#[[file:%s]] names no file (looked for %s and %s); Kiro includes nothing in its place",
				r.path, c.s.show(filepath.Join(c.s.Root, filepath.FromSlash(r.path))), c.s.show(filepath.Join(dir, filepath.FromSlash(r.path))))
		}
	}
}
