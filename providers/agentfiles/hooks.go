package agentfiles

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
)

// hookEvent is an event Claude Code fires hooks on, and what its matcher
// is compared with.
type hookEvent struct {
	name string
	// matcher is "regexp" when the event's matcher is a regular
	// expression (a tool, agent or source name), "files" for a list of
	// file names, or "" when the event takes no matcher and fires on
	// every occurrence.
	matcher string
	// commandOnly: the event runs command handlers only.
	commandOnly bool
	// tool: the event concerns a tool call, where an if filter applies.
	tool bool
}

// hookEvents are the events the hooks reference documents.
var hookEvents = []hookEvent{
	{"PreToolUse", "regexp", false, true},
	{"PermissionRequest", "regexp", false, true},
	{"PermissionDenied", "regexp", false, true},
	{"PostToolUse", "regexp", false, true},
	{"PostToolUseFailure", "regexp", false, true},
	{"PostToolBatch", "", false, false},
	{"Notification", "regexp", false, false},
	{"UserPromptSubmit", "", false, false},
	{"UserPromptExpansion", "regexp", false, false},
	{"Stop", "", false, false},
	{"StopFailure", "regexp", false, false},
	{"SubagentStart", "regexp", false, false},
	{"SubagentStop", "regexp", false, false},
	{"TeammateIdle", "", false, false},
	{"TaskCreated", "", false, false},
	{"TaskCompleted", "", false, false},
	{"PreCompact", "regexp", false, false},
	{"PostCompact", "regexp", false, false},
	{"SessionStart", "regexp", false, false},
	{"SessionEnd", "regexp", false, false},
	{"Setup", "regexp", false, false},
	{"Elicitation", "regexp", false, false},
	{"ElicitationResult", "regexp", false, false},
	{"InstructionsLoaded", "regexp", false, false},
	{"ConfigChange", "regexp", true, false},
	{"CwdChanged", "", false, false},
	{"FileChanged", "files", false, false},
	{"DirectoryAdded", "regexp", false, false},
	{"WorktreeCreate", "", true, false},
	{"WorktreeRemove", "", true, false},
	{"PreModelSwitch", "regexp", false, false},
	{"PostModelSwitch", "regexp", false, false},
	{"MessageDisplay", "regexp", false, false},
}

// hookTypes are the handler types and the fields each requires; the
// other fields each takes, with their JSON kinds.
var hookTypes = map[string]struct {
	required []string
	fields   map[string]jsonKind
}{
	"command":  {[]string{"command"}, map[string]jsonKind{"command": jString, "args": jStrings, "async": jBool, "asyncRewake": jBool, "shell": jString, "once": jBool}},
	"prompt":   {[]string{"prompt"}, map[string]jsonKind{"prompt": jString, "model": jString, "continueOnBlock": jBool}},
	"agent":    {[]string{"prompt"}, map[string]jsonKind{"prompt": jString, "model": jString}},
	"http":     {[]string{"url"}, map[string]jsonKind{"url": jString, "headers": jObject, "allowedEnvVars": jStrings}},
	"mcp_tool": {[]string{"server", "tool"}, map[string]jsonKind{"server": jString, "tool": jString, "input": jObject}},
}

// hookCommonFields are the fields every handler takes.
var hookCommonFields = map[string]jsonKind{"type": jString, "timeout": jNumber, "if": jString, "statusMessage": jString}

var hookTypeNames = []string{"command", "prompt", "agent", "http", "mcp_tool"}

// jsonKind is the JSON shape a value must have.
type jsonKind int

const (
	jAny     jsonKind = iota
	jString           // a string
	jBool             // true or false
	jNumber           // a number
	jInt              // a whole number
	jObject           // an object
	jArray            // an array
	jStrings          // an array of strings
)

func (k jsonKind) String() string {
	switch k {
	case jString:
		return "a string"
	case jBool:
		return "true or false"
	case jNumber:
		return "a number"
	case jInt:
		return "a whole number"
	case jObject:
		return "an object"
	case jArray:
		return "an array"
	case jStrings:
		return "an array of strings"
	}
	return "any value"
}

func (k jsonKind) accepts(v *jnode) bool {
	switch k {
	case jString:
		return v.kind == '"'
	case jBool:
		return v.kind == 't' || v.kind == 'f'
	case jNumber:
		return v.kind == '0'
	case jInt:
		return v.kind == '0' && !strings.ContainsAny(v.str, ".eE")
	case jObject:
		return v.kind == '{'
	case jArray:
		return v.kind == '['
	case jStrings:
		if v.kind != '[' {
			return false
		}
		for _, it := range v.items {
			if it.kind != '"' {
				return false
			}
		}
		return true
	}
	return true
}

// hookPlace says where a hook configuration lies, so that the paths its
// commands name are resolved as Claude Code resolves them.
type hookPlace struct {
	// plugin is the folder of the plugin the hooks belong to, relative to
	// the workspace, or "" for a project's own hooks.
	plugin string
	// project is the folder of the project the hooks run in (the one
	// holding .claude), relative to the workspace, or "" when it is not
	// known: a plugin's hooks run in whichever project installs it.
	project string
	// what names the configuration in messages.
	what string
}

// hookConfig checks the event map of a hook configuration: each event
// names a list of matcher groups, each group a hooks list of handlers.
func (c *checker) hookConfig(events *jnode, at hookPlace) {
	if events.kind != '{' {
		c.add(events.span, diag.HookShapeInvalid, "hooks must be an object mapping event names to lists of matcher groups, not %s", kindName(events.kind))
		return
	}
	names := make([]string, len(hookEvents))
	for i, e := range hookEvents {
		names[i] = e.name
	}
	for i, k := range events.keys {
		v := events.vals[i]
		j := slices.IndexFunc(hookEvents, func(e hookEvent) bool { return e.name == k.str })
		if j < 0 {
			msg := fmt.Sprintf("%q is not a hook event Claude Code documents, so these hooks never run", k.str)
			if s := nearestName(k.str, names); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			c.add(k.span, diag.HookEventUnknown, "%s", msg)
			continue
		}
		ev := hookEvents[j]
		if v.kind != '[' {
			c.add(v.span, diag.HookShapeInvalid, "%s must be a list of matcher groups ({\"matcher\": …, \"hooks\": [ … ]}), not %s", ev.name, kindName(v.kind))
			continue
		}
		for _, g := range v.items {
			c.hookGroup(ev, g, at)
		}
	}
}

// hookGroup checks one matcher group of an event.
func (c *checker) hookGroup(ev hookEvent, g *jnode, at hookPlace) {
	if g.kind != '{' {
		c.add(g.span, diag.HookShapeInvalid, "a matcher group of %s must be an object with a hooks list, not %s", ev.name, kindName(g.kind))
		return
	}
	head := document.Span{Start: g.span.Start, End: g.span.Start + 1}
	for i, k := range g.keys {
		if k.str != "matcher" && k.str != "hooks" {
			msg := fmt.Sprintf("%s is not a field of a matcher group (matcher, hooks); it has no effect", k.str)
			if k.str == "type" || k.str == "command" {
				// A handler written where its group should be.
				c.add(k.span, diag.HookShapeInvalid, "%s belongs in a handler inside the group's hooks list: write {\"hooks\": [{\"type\": \"command\", \"command\": …}]}", k.str)
				return
			}
			if s := nearestName(k.str, []string{"matcher", "hooks"}); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			c.add(g.keys[i].span, diag.HookKeyUnknown, "%s", msg)
		}
	}
	if m, mk := g.get("matcher"); mk != nil {
		c.hookMatcher(ev, m)
	}
	hs, hk := g.get("hooks")
	switch {
	case hk == nil:
		c.add(head, diag.HookShapeInvalid, "this matcher group of %s has no hooks list, so it runs nothing", ev.name)
		return
	case hs.kind != '[':
		c.add(hs.span, diag.HookShapeInvalid, "hooks must be a list of handlers, not %s", kindName(hs.kind))
		return
	}
	for _, h := range hs.items {
		c.hookHandler(ev, h, at)
	}
}

// jsOnlyRegexp matches regular expression syntax JavaScript reads and Go's
// package regexp does not: lookaround and back references.
var jsOnlyRegexp = regexp.MustCompile(`\(\?<?[=!]|\\[1-9]|\\k<`)

// exactMatcher is a matcher Claude Code compares as a name or a list of
// names rather than as a regular expression.
var exactMatcher = regexp.MustCompile(`^[A-Za-z0-9_|, -]*$`)

func (c *checker) hookMatcher(ev hookEvent, m *jnode) {
	if m.kind != '"' {
		c.add(m.span, diag.HookMatcherInvalid, "matcher must be a string, not %s", kindName(m.kind))
		return
	}
	p := m.str
	if p == "" || p == "*" {
		return // every occurrence
	}
	switch ev.matcher {
	case "":
		c.add(m.span, diag.HookMatcherIgnored, "%s takes no matcher: these hooks run on every %s, not only for %q", ev.name, ev.name, p)
	case "regexp":
		if vals := hookMatcherValues[ev.name]; vals != nil {
			c.matcherValues(ev, m, vals)
		}
		if exactMatcher.MatchString(p) || jsOnlyRegexp.MatchString(p) {
			return
		}
		if _, err := regexp.Compile(p); err != nil {
			c.add(m.span, diag.HookMatcherInvalid, "matcher %q is not a valid regular expression (%v), so it matches nothing", p, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	case "files":
		c.fileMatcher(ev, m)
	}
}

// hookMatcherValues are the values the events whose matcher compares a
// closed set of names document for it.
var hookMatcherValues = map[string][]string{
	"SessionStart": {"startup", "resume", "clear", "compact"},
	"SessionEnd":   {"clear", "resume", "logout", "prompt_input_exit", "bypass_permissions_disabled", "other"},
	"PreCompact":   {"manual", "auto"},
	"PostCompact":  {"manual", "auto"},
	"ConfigChange": {"user_settings", "project_settings", "local_settings", "policy_settings", "skills"},
}

// namesMatcher is a matcher Claude Code compares as exact names: only
// letters, digits, _ and |.
var namesMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// matcherValues reports a matcher of an event with a closed set of
// values that matches none of them: an exact name outside the set, or a
// regular expression that matches no value.
func (c *checker) matcherValues(ev hookEvent, m *jnode, vals []string) {
	p := m.str
	if namesMatcher.MatchString(p) {
		for _, part := range strings.Split(p, "|") {
			if part == "" || slices.Contains(vals, part) {
				continue
			}
			msg := fmt.Sprintf("%s's matcher compares %q as an exact name, but what it is compared with is always one of %s, so this part never matches", ev.name, part, strings.Join(vals, ", "))
			if s := nearestName(part, vals); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			c.add(m.span, diag.HookMatcherNoValue, "%s", msg)
		}
		return
	}
	if jsOnlyRegexp.MatchString(p) {
		return
	}
	re, err := regexp.Compile(p)
	if err != nil || slices.ContainsFunc(vals, re.MatchString) {
		return
	}
	c.add(m.span, diag.HookMatcherNoValue, "%s's matcher %q matches none of the values it is compared with (%s), so this group never runs", ev.name, p, strings.Join(vals, ", "))
}

// filePatternChars are characters of regular expressions and globs that
// a file name seldom holds.
const filePatternChars = "^$*+?()[]{}\\"

// fileMatcher checks a FileChanged matcher: Claude Code splits it on |
// and watches each part as a literal file name of the working folder, so
// a part written as a pattern watches a file of that odd name.
func (c *checker) fileMatcher(ev hookEvent, m *jnode) {
	for _, part := range strings.Split(m.str, "|") {
		if strings.ContainsAny(part, filePatternChars) {
			c.add(m.span, diag.HookMatcherFilePattern, "%s watches each |-separated part of its matcher as a literal file name, so %q watches a file of that name, not the files it matches as a pattern: list the names, such as \".envrc|.env\"", ev.name, part)
		}
	}
}

// hookHandler checks one handler: its type, the fields the type requires
// and the types of its fields.
func (c *checker) hookHandler(ev hookEvent, h *jnode, at hookPlace) {
	if h.kind != '{' {
		c.add(h.span, diag.HookShapeInvalid, "a hook handler must be an object with a type, not %s", kindName(h.kind))
		return
	}
	head := document.Span{Start: h.span.Start, End: h.span.Start + 1}
	t, tk := h.get("type")
	if tk == nil {
		c.add(head, diag.HookHandlerInvalid, "this hook handler has no type: command, prompt, agent, http or mcp_tool")
		return
	}
	if t.kind != '"' {
		c.add(t.span, diag.HookHandlerInvalid, "type must be a string (command, prompt, agent, http or mcp_tool), not %s", kindName(t.kind))
		return
	}
	spec, ok := hookTypes[t.str]
	if !ok {
		msg := fmt.Sprintf("%q is not a hook type Claude Code runs (command, prompt, agent, http, mcp_tool)", t.str)
		if s := nearestName(t.str, hookTypeNames); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		c.add(t.span, diag.HookHandlerInvalid, "%s", msg)
		return
	}
	// MCP tool hooks run on every event, and WorktreeCreate documents
	// HTTP hooks; only prompt and agent handlers are left out.
	if ev.commandOnly && (t.str == "prompt" || t.str == "agent") {
		c.add(t.span, diag.HookHandlerInvalid, "%s runs command handlers only; a %s handler is not run", ev.name, t.str)
	}
	for _, f := range spec.required {
		v, k := h.get(f)
		switch {
		case k == nil:
			c.add(head, diag.HookHandlerInvalid, "%s %s hook needs %s", article(t.str), t.str, f)
		case v.kind == '"' && strings.TrimSpace(v.str) == "":
			c.add(v.span, diag.HookHandlerInvalid, "%s is empty, so the %s hook does nothing", f, t.str)
		}
	}
	for i, k := range h.keys {
		v := h.vals[i]
		want, known := spec.fields[k.str]
		if !known {
			want, known = hookCommonFields[k.str]
		}
		if !known {
			if _, other := hookFieldOwner(k.str); other != "" {
				c.add(k.span, diag.HookKeyUnknown, "%s is a field of %s hooks, not of %s hooks; it has no effect here", k.str, other, t.str)
				continue
			}
			msg := fmt.Sprintf("%s is not a field of a %s hook; it has no effect", k.str, t.str)
			if s := nearestName(k.str, append(mapKeysOf(spec.fields), mapKeysOf(hookCommonFields)...)); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			c.add(k.span, diag.HookKeyUnknown, "%s", msg)
			continue
		}
		if !want.accepts(v) {
			c.add(v.span, diag.HookHandlerInvalid, "%s must be %s, not %s", k.str, want, kindName(v.kind))
			continue
		}
		switch k.str {
		case "timeout":
			num := v.str
			if num == "" && v.span.End <= len(c.f.Text) {
				num = string(c.f.Text[v.span.Start:v.span.End])
			}
			if strings.HasPrefix(num, "-") || strings.Trim(num, "0.eE+-") == "" {
				c.add(v.span, diag.HookHandlerInvalid, "timeout is %s; it must be a positive number of seconds", num)
			}
		case "if":
			if !ev.tool {
				c.add(k.span, diag.HookHandlerInvalid, "if filters tool events only; on %s a hook with if never runs", ev.name)
			}
		case "shell":
			if v.str != "bash" && v.str != "powershell" {
				c.add(v.span, diag.HookHandlerInvalid, "shell %q is not bash or powershell", v.str)
			}
		}
	}
	if t.str == "command" {
		if cmd, _ := h.get("command"); cmd != nil && cmd.kind == '"' {
			_, hasArgs := h.get("args")
			c.hookCommand(cmd, at, hasArgs != nil)
		}
	}
}

// hookFieldOwner returns the hook type whose own field name is, or "".
func hookFieldOwner(name string) (jsonKind, string) {
	for _, t := range hookTypeNames {
		if k, ok := hookTypes[t].fields[name]; ok {
			return k, t
		}
	}
	return jAny, ""
}

var (
	// unsetToolVar matches a shell reference to a variable that older
	// write-ups say carries the tool's input: Claude Code sets none of
	// them and sends the input as JSON on standard input.
	unsetToolVar = regexp.MustCompile(`\$\{?((?:CLAUDE_)?TOOL_(?:NAME|INPUT|OUTPUT|RESPONSE|RESULT|USE_ID)(?:_[A-Z][A-Z_]*)?|CLAUDE_FILE_PATHS?|CLAUDE_NOTIFICATION)\b`)
	// scriptRunner is a command that runs the script named after it.
	scriptRunner = map[string]bool{"bash": true, "sh": true, "zsh": true, "python": true, "python3": true, "node": true, "bun": true, "ruby": true, "perl": true, "pwsh": true, "tsx": true, "deno": true}
)

// shellAssign matches a shell assignment (NAME=…, export NAME=…) or a
// read into a variable (read -r NAME).
var shellAssign = regexp.MustCompile(`(?:^|[\s;&|(])(?:(?:export|local)\s+)?([A-Za-z_][A-Za-z0-9_]*)=|\bread\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_]*)`)

// setsVar reports whether the shell text s assigns the variable name.
func setsVar(s, name string) bool {
	for _, m := range shellAssign.FindAllStringSubmatch(s, -1) {
		if m[1] == name || m[2] == name {
			return true
		}
	}
	return false
}

// hookCommand checks a command hook's command: the variables it reads and
// the script it runs.
func (c *checker) hookCommand(cmd *jnode, at hookPlace, exec bool) {
	s := cmd.str
	var names []string
	for _, m := range unsetToolVar.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if slices.Contains(names, "$"+name) {
			continue
		}
		if setsVar(s[:m[0]], name) {
			continue // the command sets it first
		}
		names = append(names, "$"+name)
	}
	if len(names) > 0 {
		c.add(cmd.span, diag.HookEnvUnset, "the command reads %s, which Claude Code does not set: the hook's input arrives as JSON on standard input (read it with jq, such as jq -r '.tool_input.file_path')", strings.Join(names, " and "))
	}
	c.scriptPath(cmd, s, at, exec)
}

// scriptPath checks the script a command runs, when it names one inside
// the project or plugin: it must exist and, run directly, be executable.
func (c *checker) scriptPath(cmd *jnode, s string, at hookPlace, exec bool) {
	words := shellWords(s, 4)
	if len(words) == 0 {
		return
	}
	direct := true
	w := words[0]
	if exec {
		// The exec form runs command as the program itself.
	} else if scriptRunner[path.Base(w)] {
		direct = false
		w = ""
		for _, x := range words[1:] {
			if !strings.HasPrefix(x, "-") && x != "run" {
				w = x
				break
			}
		}
	}
	rel, ok := c.hookPath(w, at)
	if !ok {
		return
	}
	fi, err := c.s.Guard().Stat(filepath.Join(c.s.Root, filepath.FromSlash(rel)))
	if err != nil {
		if exists, _ := c.lookRel(rel); exists {
			return // a link out of the workspace: not ctxls's to judge
		}
		c.add(cmd.span, diag.HookScriptMissing, "the hook runs %s, which is not there (%s), so it fails every time", w, rel)
		return
	}
	if direct && runtime.GOOS != "windows" && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 == 0 {
		c.add(cmd.span, diag.HookScriptNotExecutable, "the hook runs %s directly, but the file is not executable (chmod +x %s), so it fails; or run it through its interpreter, such as bash %s", w, rel, w)
	}
}

// hookPath resolves a script path of a hook command to a workspace path,
// reporting false for paths it cannot place: absolute ones, ones with
// other variables, ones that leave the workspace, and relative ones of a
// plugin (run from the user's project, not the plugin).
func (c *checker) hookPath(w string, at hookPlace) (string, bool) {
	if w == "" {
		return "", false
	}
	p := w
	for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR"} {
		if rest, ok := strings.CutPrefix(p, v); ok {
			if at.project == "" {
				return "", false
			}
			p = at.project + rest
			break
		}
	}
	for _, v := range []string{"${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT"} {
		if rest, ok := strings.CutPrefix(p, v); ok {
			if at.plugin == "" {
				return "", false
			}
			p = at.plugin + rest
			break
		}
	}
	if p == w {
		// A relative path runs from the project's folder.
		if at.project == "" || !(strings.HasPrefix(p, "./") || strings.HasPrefix(p, ".claude/")) {
			return "", false
		}
		p = path.Join(at.project, p)
	}
	if strings.ContainsAny(p, "$`*?[{~\\") || strings.HasPrefix(p, "/") {
		return "", false
	}
	p = path.Clean(p)
	if p == "." || fsguard.Climbs(p) {
		return "", false
	}
	return p, true
}

// shellWords splits the start of a shell command into at most n words,
// joining quoted parts as the shell does ("$DIR"/x.sh is one word). It
// stops at an operator (&&, ;, |).
func shellWords(s string, n int) []string {
	var out []string
	var b strings.Builder
	in := byte(0)
	word := false
	for i := 0; i < len(s) && len(out) < n; i++ {
		ch := s[i]
		switch {
		case in != 0:
			if ch == in {
				in = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '"' || ch == '\'':
			in, word = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if word {
				out = append(out, b.String())
				b.Reset()
				word = false
			}
		case ch == ';' || ch == '&' || ch == '|' || ch == '(' || ch == ')' || ch == '<' || ch == '>':
			if word {
				out = append(out, b.String())
			}
			return out
		default:
			b.WriteByte(ch)
			word = true
		}
	}
	if word && len(out) < n {
		out = append(out, b.String())
	}
	return out
}

// nearestName returns the name of names s is a slip of: the same but for
// case and separators, or a misspelling closestKey finds; else "".
func nearestName(s string, names []string) string {
	for _, n := range names {
		if fieldSpelling(n) == fieldSpelling(s) {
			return n
		}
	}
	return closestKey(s, names)
}

// yamlJSON converts a frontmatter node to the JSON tree the hook checks
// read, with the spans of the frontmatter's text.
func (c *checker) yamlJSON(n document.Node, depth int) *jnode {
	j := &jnode{kind: 'n', span: c.nodeSpan(n)}
	if depth > maxJSONDepth {
		return j
	}
	switch n.Kind() {
	case document.MappingNode:
		j.kind = '{'
		for k, v := range n.Entries() {
			kk := c.yamlJSON(k, depth+1)
			j.keys, j.vals = append(j.keys, kk), append(j.vals, c.yamlJSON(v, depth+1))
		}
	case document.SequenceNode:
		j.kind = '['
		for it := range n.Items() {
			j.items = append(j.items, c.yamlJSON(it, depth+1))
		}
	case document.ScalarNode:
		j.str = n.Value()
		switch n.Tag() {
		case "!!int", "!!float":
			j.kind = '0'
		case "!!bool":
			j.kind = 'f'
			if strings.EqualFold(n.Value(), "true") {
				j.kind = 't'
			}
		case "!!null":
		default:
			j.kind = '"'
		}
	}
	return j
}

// frontmatterHooks checks the hooks field of a skill or subagent.
func (c *checker) frontmatterHooks(root document.Node) {
	_, v := root.Field("hooks")
	if v.Kind() != document.MappingNode {
		return // a wrong type is the field check's to report
	}
	at := hookPlace{plugin: c.s.pluginRoot(c.f.Rel), what: c.f.Kind.String()}
	if segs := strings.Split(c.f.Rel, "/"); at.plugin == "" {
		if i := slices.Index(segs, ".claude"); i >= 0 {
			at.project = path.Join(append([]string{"."}, segs[:i]...)...)
		}
	}
	c.hookConfig(c.yamlJSON(v, 0), at)
}

// hooksFile checks a plugin's hooks/hooks.json: an object with a hooks
// map and, optionally, a description.
func (c *checker) hooksFile(root *jnode) {
	plugin := path.Dir(path.Dir(c.f.Rel))
	hs, hk := root.get("hooks")
	if hk == nil {
		at := document.Span{Start: root.span.Start, End: root.span.Start + 1}
		if slices.ContainsFunc(root.keys, func(k *jnode) bool {
			return slices.ContainsFunc(hookEvents, func(e hookEvent) bool { return e.name == k.str })
		}) {
			c.add(at, diag.HookShapeInvalid, "a plugin's hooks.json holds its events under a top-level hooks key: {\"hooks\": {\"PreToolUse\": [ … ]}}")
		} else {
			c.add(at, diag.HookShapeInvalid, "a plugin's hooks.json needs a top-level hooks object")
		}
		return
	}
	for _, k := range root.keys {
		if k.str != "hooks" && k.str != "description" {
			c.add(k.span, diag.HookKeyUnknown, "%s is not a field of a plugin's hooks.json (hooks, description); it has no effect", k.str)
		}
	}
	c.hookConfig(hs, hookPlace{plugin: plugin, what: "plugin hooks"})
}

// article is the indefinite article of a hook type's name.
func article(word string) string {
	if word == "http" || word == "mcp_tool" || word == "agent" {
		return "an"
	}
	return "a"
}
