package agentfiles

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// settingKey is a top-level key of a Claude Code settings file.
type settingKey struct {
	kind   jsonKind
	values []string // the values a string key takes, when they are few
	// managed: only managed (policy) settings read the key.
	managed bool
	doc     string
}

// settingKeys are the keys of Claude Code's settings files, with the
// types its settings reference and schema give them.
var settingKeys = map[string]settingKey{
	"$schema":                           {kind: jString, doc: "The JSON schema of the file, for editors."},
	"apiKeyHelper":                      {kind: jString, doc: "A script whose output is sent as the API key."},
	"autoMemoryEnabled":                 {kind: jBool, doc: "Whether Claude saves automatic memories."},
	"autoUpdatesChannel":                {kind: jString, values: []string{"stable", "latest"}, doc: "The release channel updates follow."},
	"awsCredentialExport":               {kind: jString, doc: "A command that prints AWS credentials as JSON."},
	"awsAuthRefresh":                    {kind: jString, doc: "A command run when AWS credentials are expired."},
	"claudeMdExcludes":                  {kind: jStrings, doc: "Globs of CLAUDE.md files not to load."},
	"cleanupPeriodDays":                 {kind: jInt, doc: "Days sessions and other local data are kept."},
	"env":                               {kind: jObject, doc: "Environment variables of every session; values are strings."},
	"attribution":                       {kind: jObject, doc: "The attribution of commits and pull requests."},
	"includeGitInstructions":            {kind: jBool, doc: "Whether the git workflow instructions are in the system prompt."},
	"includeCoAuthoredBy":               {kind: jBool, doc: "Deprecated: use attribution."},
	"plansDirectory":                    {kind: jString, doc: "Where plan files are stored."},
	"respectGitignore":                  {kind: jBool, doc: "Whether the @ file picker skips ignored files."},
	"permissions":                       {kind: jObject, doc: "allow, ask and deny rules, defaultMode and additionalDirectories."},
	"language":                          {kind: jString, doc: "The language Claude answers in."},
	"model":                             {kind: jString, doc: "The default model: an alias or a model id."},
	"availableModels":                   {kind: jStrings, doc: "The models users may pick."},
	"modelOverrides":                    {kind: jObject, doc: "Provider model ids for Anthropic model ids."},
	"effortLevel":                       {kind: jString, values: []string{"low", "medium", "high", "xhigh"}, doc: "The reasoning effort kept across sessions."},
	"fastMode":                          {kind: jBool, doc: "Whether fast mode is on."},
	"fastModePerSessionOptIn":           {kind: jBool, doc: "Whether fast mode must be turned on in each session."},
	"feedbackSurveyRate":                {kind: jNumber, doc: "The probability the session survey appears."},
	"enableAllProjectMcpServers":        {kind: jBool, doc: "Approve every MCP server of the project's .mcp.json."},
	"enabledMcpjsonServers":             {kind: jStrings, doc: "The servers of .mcp.json approved."},
	"disabledMcpjsonServers":            {kind: jStrings, doc: "The servers of .mcp.json rejected."},
	"allowedMcpServers":                 {kind: jArray, doc: "An allowlist of MCP servers."},
	"deniedMcpServers":                  {kind: jArray, doc: "A denylist of MCP servers."},
	"httpHookAllowedEnvVars":            {kind: jStrings, doc: "The variables HTTP hooks may put in headers."},
	"hooks":                             {kind: jObject, doc: "Hooks: event → matcher groups → handlers."},
	"disableAllHooks":                   {kind: jBool, doc: "Turn off every hook and the status line."},
	"allowedChannelPlugins":             {kind: jArray, managed: true},
	"allowedHttpHookUrls":               {kind: jStrings, doc: "The URLs HTTP hooks may call."},
	"allowManagedHooksOnly":             {kind: jBool, managed: true},
	"allowManagedPermissionRulesOnly":   {kind: jBool, managed: true},
	"statusLine":                        {kind: jObject, doc: "A command that prints the status line: {\"type\": \"command\", \"command\": …}."},
	"fileSuggestion":                    {kind: jObject, doc: "A command that suggests files for the @ picker."},
	"enabledPlugins":                    {kind: jObject, doc: "Plugins turned on, as \"plugin@marketplace\": true."},
	"extraKnownMarketplaces":            {kind: jObject, doc: "Marketplaces offered to everyone who opens the project."},
	"strictKnownMarketplaces":           {kind: jArray, managed: true},
	"skippedMarketplaces":               {kind: jStrings},
	"skippedPlugins":                    {kind: jStrings},
	"forceLoginMethod":                  {kind: jString, values: []string{"claudeai", "console"}},
	"forceLoginOrgUUID":                 {kind: jString},
	"otelHeadersHelper":                 {kind: jString},
	"outputStyle":                       {kind: jString, doc: "The output style: a built-in one or one of .claude/output-styles."},
	"skipWebFetchPreflight":             {kind: jBool},
	"sandbox":                           {kind: jObject, doc: "The sandbox of Bash commands."},
	"spinnerVerbs":                      {kind: jObject},
	"spinnerTipsEnabled":                {kind: jBool},
	"spinnerTipsOverride":               {kind: jObject},
	"terminalProgressBarEnabled":        {kind: jBool},
	"showTurnDuration":                  {kind: jBool},
	"skillOverrides":                    {kind: jObject, doc: "Per-skill visibility: on, name-only, user-invocable-only or off."},
	"prefersReducedMotion":              {kind: jBool},
	"prUrlTemplate":                     {kind: jString},
	"alwaysThinkingEnabled":             {kind: jBool},
	"companyAnnouncements":              {kind: jStrings},
	"teammateMode":                      {kind: jString, values: []string{"auto", "in-process", "tmux", "iterm2"}},
	"worktree":                          {kind: jObject},
	"parentSettingsBehavior":            {kind: jString, managed: true},
	"pluginTrustMessage":                {kind: jString, managed: true},
	"pluginConfigs":                     {kind: jObject},
	"allowManagedMcpServersOnly":        {kind: jBool, managed: true},
	"blockedMarketplaces":               {kind: jArray, managed: true},
	"agent":                             {kind: jString, doc: "The agent the main thread runs as."},
	"autoMemoryDirectory":               {kind: jString},
	"autoMode":                          {kind: jObject},
	"channelsEnabled":                   {kind: jBool, managed: true},
	"defaultShell":                      {kind: jString, values: []string{"bash", "powershell"}},
	"disableDeepLinkRegistration":       {kind: jString, values: []string{"disable"}},
	"disableSkillShellExecution":        {kind: jBool},
	"forceRemoteSettingsRefresh":        {kind: jBool, managed: true},
	"minimumVersion":                    {kind: jString},
	"showClearContextOnPlanAccept":      {kind: jBool},
	"showThinkingSummaries":             {kind: jBool},
	"skipDangerousModePermissionPrompt": {kind: jBool},
	"strictPluginOnlyCustomization":     {kind: jAny},
	"tui":                               {kind: jString, values: []string{"fullscreen", "default"}},
	"viewMode":                          {kind: jString, values: []string{"default", "verbose", "focus"}},
	"useAutoModeDuringPlan":             {kind: jBool},
	"voiceEnabled":                      {kind: jBool},
	"wslInheritsWindowsSettings":        {kind: jBool, managed: true},
	"subagentStatusLine":                {kind: jObject},
	"advisorModel":                      {kind: jString},
	"autoCompactEnabled":                {kind: jBool},
	"disableAgentView":                  {kind: jBool},
	"editorMode":                        {kind: jString, values: []string{"normal", "vim"}},
	"enforceAvailableModels":            {kind: jBool},
	"fallbackModel":                     {kind: jStrings},
	"fileCheckpointingEnabled":          {kind: jBool},
	"gcpAuthRefresh":                    {kind: jString},
	"managedMcpServers":                 {kind: jArray},
	"skillListingMaxDescChars":          {kind: jInt},
	"preferredNotifChannel":             {kind: jString, values: []string{"auto", "terminal_bell", "iterm2", "iterm2_with_bell", "kitty", "ghostty", "notifications_disabled"}},
	"pluginSuggestionMarketplaces":      {kind: jStrings, managed: true},
	"requiredMaximumVersion":            {kind: jString, managed: true},
	"requiredMinimumVersion":            {kind: jString, managed: true},
	"respondToBashCommands":             {kind: jBool},
	"skillListingBudgetFraction":        {kind: jNumber},
	"sshConfigs":                        {kind: jArray},
	"sshHostAllowlist":                  {kind: jStrings, managed: true},
	"theme":                             {kind: jString},
	"voice":                             {kind: jObject},
	"wheelScrollAccelerationEnabled":    {kind: jBool},
	"disableBundledSkills":              {kind: jBool},
	"awaySummaryEnabled":                {kind: jBool},
	"autoScrollEnabled":                 {kind: jBool},
	"allowAllClaudeAiMcps":              {kind: jBool, managed: true},
	"agentPushNotifEnabled":             {kind: jBool},
	"axScreenReader":                    {kind: jBool},
	"claudeMd":                          {kind: jString, managed: true},
	"disableArtifact":                   {kind: jBool},
	"disableAutoMode":                   {kind: jString, values: []string{"disable"}},
	"disableClaudeAiConnectors":         {kind: jBool},
	"disableRemoteControl":              {kind: jBool},
	"disableWorkflows":                  {kind: jBool},
	"footerLinksRegexes":                {kind: jArray},
	"inputNeededNotifEnabled":           {kind: jBool},
	"policyHelper":                      {kind: jObject, managed: true},
	"remoteControlAtStartup":            {kind: jBool},
	"syntaxHighlightingDisabled":        {kind: jBool},
	"verbose":                           {kind: jBool},
	"workflowKeywordTriggerEnabled":     {kind: jBool},
	"leftArrowOpensAgents":              {kind: jBool},
}

// builtinOutputStyles are the styles Claude Code ships.
var builtinOutputStyles = []string{"default", "Proactive", "Explanatory", "Learning"}

// permissionTools are the tools a permission rule names, as the settings
// schema lists them; Task is the older name of Agent.
var permissionTools = []string{"Agent", "Bash", "Cd", "Edit", "ExitPlanMode", "Glob", "Grep", "KillShell", "LSP", "Monitor", "MultiEdit",
	"NotebookEdit", "PowerShell", "Read", "Skill", "Task", "TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate",
	"TodoWrite", "ToolSearch", "WebFetch", "WebSearch", "Write"}

var (
	permissionModeValues = []string{"acceptEdits", "bypassPermissions", "default", "delegate", "dontAsk", "plan", "auto", "manual"}
	// permissionRule is Tool or Tool(specifier).
	permissionRule = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)(?:\((.*)\))?$`)
	envName        = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// settings checks a project's .claude/settings.json or settings.local.json.
func (c *checker) settings(root *jnode) {
	local := path.Base(c.f.Rel) == "settings.local.json"
	names := mapKeysOf(settingKeys)
	for i, k := range root.keys {
		v := root.vals[i]
		spec, ok := settingKeys[k.str]
		if !ok {
			msg := fmt.Sprintf("%s is not a setting Claude Code documents; it is kept but has no effect", k.str)
			if s := nearestName(k.str, names); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			c.add(k.span, diag.SettingsKeyUnknown, "%s", msg)
			continue
		}
		switch {
		case spec.managed:
			c.add(k.span, diag.SettingsKeyIgnored, "only managed (policy) settings read %s; in a project's settings it has no effect", k.str)
			continue
		case k.str == "autoMemoryDirectory" && !local:
			c.add(k.span, diag.SettingsKeyIgnored, "autoMemoryDirectory is ignored in the shared .claude/settings.json, so that a repository cannot redirect where memories are written; set it in settings.local.json or the user's settings")
			continue
		case k.str == "footerLinksRegexes":
			c.add(k.span, diag.SettingsKeyIgnored, "footerLinksRegexes is read from user and managed settings only; project and local settings are ignored")
			continue
		}
		if v.kind == 'n' {
			continue
		}
		if !spec.kind.accepts(v) {
			c.add(v.span, diag.SettingsValueInvalid, "%s must be %s, not %s", k.str, spec.kind, kindName(v.kind))
			continue
		}
		if len(spec.values) > 0 && !slices.Contains(spec.values, v.str) {
			c.add(v.span, diag.SettingsValueInvalid, "%s %q is not one of %s", k.str, v.str, strings.Join(spec.values, ", "))
			continue
		}
		switch k.str {
		case "permissions":
			c.permissions(v)
		case "env":
			for j, ek := range v.keys {
				ev := v.vals[j]
				if ev.kind != '"' {
					lit := spanText(c.f.Text, ev.span)
					d := c.add(ev.span, diag.SettingsValueInvalid, "env values must be strings: write \"%s\" in quotes", lit)
					if d != nil && (ev.kind == '0' || ev.kind == 't' || ev.kind == 'f') {
						d.Fixes = []diag.Fix{{Title: "Quote the value", Edits: []diag.Edit{{Span: ev.span, NewText: `"` + lit + `"`}}, Preferred: true}}
					}
				}
				if !envName.MatchString(ek.str) {
					c.add(ek.span, diag.SettingsValueInvalid, "%q is not an environment variable name", ek.str)
				}
			}
		case "hooks":
			c.hookConfig(v, hookPlace{what: "settings", project: path.Dir(path.Dir(c.f.Rel))})
		case "statusLine", "subagentStatusLine", "fileSuggestion":
			c.commandSetting(k.str, v)
		case "outputStyle":
			if !local { // a personal file may name the user's own style
				c.outputStyleSetting(v)
			}
		case "enabledPlugins":
			for j, pk := range v.keys {
				pv := v.vals[j]
				if !strings.Contains(pk.str, "@") {
					c.add(pk.span, diag.SettingsValueInvalid, "enabledPlugins keys are plugin@marketplace; %q names no marketplace", pk.str)
				}
				if pv.kind != 't' && pv.kind != 'f' && pv.kind != '[' {
					c.add(pv.span, diag.SettingsValueInvalid, "an enabledPlugins value must be true or false, not %s", kindName(pv.kind))
				}
			}
		case "theme":
			themes := []string{"auto", "dark", "light", "dark-daltonized", "light-daltonized", "dark-ansi", "light-ansi"}
			if !slices.Contains(themes, v.str) && !strings.HasPrefix(v.str, "custom:") {
				c.add(v.span, diag.SettingsValueInvalid, "theme %q is not one of %s, nor custom:NAME", v.str, strings.Join(themes, ", "))
			}
		case "cleanupPeriodDays", "skillListingMaxDescChars":
			if n := spanText(c.f.Text, v.span); strings.HasPrefix(n, "-") || strings.Trim(n, "0") == "" {
				c.add(v.span, diag.SettingsValueInvalid, "%s must be at least 1, not %s", k.str, n)
			}
		case "sandbox":
			if _, ak := v.get("allowAppleEvents"); ak != nil && !local {
				c.add(ak.span, diag.SettingsKeyIgnored, "project settings cannot turn on sandbox.allowAppleEvents; only user, managed or command-line settings can")
			}
		}
	}
}

// jsonText returns the text of a span, for a value's literal.
func spanText(text []byte, s document.Span) string {
	if s.Start < 0 || s.End > len(text) || s.Start > s.End {
		return ""
	}
	return string(text[s.Start:s.End])
}

// mapKeysOf returns the sorted keys of a map.
func mapKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// permissions checks the permissions object: its rule lists and mode.
func (c *checker) permissions(p *jnode) {
	known := []string{"allow", "ask", "deny", "defaultMode", "disableBypassPermissionsMode", "disableAutoMode", "additionalDirectories"}
	for i, k := range p.keys {
		v := p.vals[i]
		switch k.str {
		case "allow", "ask", "deny":
			if v.kind != '[' {
				c.add(v.span, diag.SettingsValueInvalid, "permissions.%s must be an array of rules, not %s", k.str, kindName(v.kind))
				continue
			}
			for _, it := range v.items {
				if it.kind != '"' {
					c.add(it.span, diag.SettingsPermissionInvalid, "a permission rule must be a string such as \"Bash(npm test)\", not %s", kindName(it.kind))
					continue
				}
				if why, fixed := permissionProblem(it.str); why != "" {
					d := c.add(it.span, diag.SettingsPermissionInvalid, "permission rule %q %s", it.str, why)
					// The tool's name is the rule's start; rewrite it alone,
					// when the file writes it without escapes.
					n := len(it.str)
					if i := strings.IndexByte(it.str, '('); i > 0 {
						n = i
					}
					tool := document.Span{Start: it.span.Start + 1, End: it.span.Start + 1 + n}
					if d != nil && fixed != "" && tool.End <= it.span.End && strings.EqualFold(spanText(c.f.Text, tool), fixed[:tool.Len()]) {
						d.Fixes = []diag.Fix{{Title: "Write " + fixed, Edits: []diag.Edit{{Span: tool, NewText: fixed[:tool.Len()]}}, Preferred: true}}
					}
				}
			}
		case "defaultMode":
			if v.kind != '"' || !slices.Contains(permissionModeValues, v.str) {
				c.add(v.span, diag.SettingsValueInvalid, "permissions.defaultMode %s is not one of %s", spanText(c.f.Text, v.span), strings.Join(permissionModeValues, ", "))
			}
		case "disableBypassPermissionsMode", "disableAutoMode":
			if v.kind != '"' || v.str != "disable" {
				c.add(v.span, diag.SettingsValueInvalid, "permissions.%s takes only \"disable\"", k.str)
			}
		case "additionalDirectories":
			if !jStrings.accepts(v) {
				c.add(v.span, diag.SettingsValueInvalid, "permissions.additionalDirectories must be an array of strings")
			}
		default:
			msg := fmt.Sprintf("permissions.%s is not documented (allow, ask, deny, defaultMode, additionalDirectories, …); it has no effect", k.str)
			if s := nearestName(k.str, known); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			c.add(k.span, diag.SettingsKeyUnknown, "%s", msg)
		}
	}
}

// permissionProblem says why a permission rule is not Tool or
// Tool(specifier) as Claude Code reads them, or "", and the rule as it
// is meant when that is certain.
func permissionProblem(r string) (why, fixed string) {
	if strings.HasPrefix(r, "mcp__") {
		return "", ""
	}
	m := permissionRule.FindStringSubmatch(r)
	if m == nil {
		if i := strings.IndexByte(r, '('); i > 0 && !strings.HasSuffix(r, ")") {
			return "opens a parenthesis it does not close at its end; write Tool(specifier)", ""
		}
		return "is not Tool or Tool(specifier)", ""
	}
	tool := m[1]
	if strings.Contains(r, "(") && strings.TrimSpace(m[2]) == "" {
		return fmt.Sprintf("has an empty specifier; write %s alone to match every use", tool), ""
	}
	if !slices.Contains(permissionTools, tool) {
		if j := slices.IndexFunc(permissionTools, func(t string) bool { return strings.EqualFold(t, tool) }); j >= 0 {
			return fmt.Sprintf("names %s, but tool names are case-sensitive: write %s", tool, permissionTools[j]), permissionTools[j] + r[len(tool):]
		}
	}
	return "", ""
}

// commandSetting checks statusLine, subagentStatusLine or fileSuggestion:
// {"type": "command", "command": …}.
func (c *checker) commandSetting(key string, v *jnode) {
	head := document.Span{Start: v.span.Start, End: v.span.Start + 1}
	t, tk := v.get("type")
	switch {
	case tk == nil:
		c.add(head, diag.SettingsValueInvalid, "%s needs \"type\": \"command\"", key)
	case t.kind != '"' || t.str != "command":
		c.add(t.span, diag.SettingsValueInvalid, "%s type must be \"command\"", key)
	}
	cmd, ck := v.get("command")
	switch {
	case ck == nil:
		c.add(head, diag.SettingsValueInvalid, "%s needs a command, the script that prints it", key)
	case cmd.kind != '"':
		c.add(cmd.span, diag.SettingsValueInvalid, "%s command must be a string, not %s", key, kindName(cmd.kind))
	default:
		c.scriptPath(cmd, cmd.str, hookPlace{what: key, project: path.Dir(path.Dir(c.f.Rel))}, false)
	}
}

// outputStyleSetting checks that outputStyle names a style Claude Code
// finds: a built-in one or one of the project.
func (c *checker) outputStyleSetting(v *jnode) {
	name := v.str
	if strings.Contains(name, ":") {
		return // a plugin's style, namespaced by the plugin
	}
	if slices.ContainsFunc(builtinOutputStyles, func(b string) bool { return strings.EqualFold(b, name) }) || c.s.partial {
		return // a partial set does not hold every style of the project
	}
	var have []string
	for _, f := range c.s.Files {
		if f.Kind != KindOutputStyle {
			continue
		}
		n := f.Meta.Name
		if n == "" {
			n = strings.TrimSuffix(path.Base(f.Rel), ".md")
		}
		if strings.EqualFold(n, name) || strings.EqualFold(strings.TrimSuffix(path.Base(f.Rel), ".md"), name) {
			return
		}
		have = append(have, n)
	}
	msg := fmt.Sprintf("outputStyle %q is neither a built-in style (%s) nor one of the project's .claude/output-styles", name, strings.Join(builtinOutputStyles, ", "))
	if s := nearestName(name, append(slices.Clone(builtinOutputStyles), have...)); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	msg += "; who has no user style of that name gets the default style"
	c.add(v.span, diag.SettingsOutputStyleMissing, "%s", msg)
}

// outputStyleFields are the frontmatter fields of an output style.
var outputStyleFields = []field{
	{"name", tString, "The style's name, shown in /output-style and given to outputStyle; the file's name when left out.", nil},
	{"description", tString, "What the style does, shown in the /output-style menu.", nil},
	{"keep-coding-instructions", tBool, "true keeps the coding parts of Claude Code's system prompt; by default a style replaces them.", boolValues},
}

func (c *checker) outputStyle() {
	if root := c.frontmatter(false, "an output style"); root.Exists() {
		c.typed(root, outputStyleFields, diag.OutputStyleFieldInvalid)
	}
}

// claudeJSON checks a settings file or a plugin's hooks.json: valid JSON
// holding an object, then its keys.
func (c *checker) claudeJSON() {
	root, off, err := parseJSON(c.f.Text)
	if err != nil {
		end := off
		if end < len(c.f.Text) {
			end++
		}
		c.add(document.Span{Start: off, End: end}, diag.JSONSyntax, "not valid JSON, so Claude Code ignores the whole file: %v", err)
		return
	}
	if root.kind != '{' {
		c.add(root.span, diag.SettingsValueInvalid, "the file must hold a JSON object, not %s", kindName(root.kind))
		return
	}
	c.duplicateKeys(root, "Claude Code")
	if c.f.Kind == KindHooks {
		c.hooksFile(root)
		return
	}
	c.settings(root)
}
