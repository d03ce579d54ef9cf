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

// mcpAgent is how one agent reads a file of MCP server configurations:
// where the servers are, which keys a server has, and how it expands
// variables. Each is as the agent's documentation gives it (the rules
// table cites the pages).
type mcpAgent struct {
	name string
	// serversKey holds the map of server names to configurations.
	serversKey string
	// keys are the documented keys of a server.
	keys []string
	// types are the documented values of type; nil when the agent infers
	// the transport from the keys given and documents no type.
	types []string
	// remote are the keys that give a remote server's address.
	remote []string
	// headers is the key of a remote server's map of HTTP headers.
	headers string
	// vars checks the variables of one string value, or is nil.
	vars func(c *checker, v *jnode, where string, inputs map[string]bool)
	// secretHint says how the agent reads a value from elsewhere.
	secretHint string
	// reserved are the server names the agent keeps for its own servers.
	reserved []string
}

var (
	claudeMCP = &mcpAgent{
		name:       "Claude Code",
		serversKey: "mcpServers",
		keys:       []string{"type", "command", "args", "env", "url", "headers", "headersHelper", "oauth", "timeout"},
		types:      []string{"stdio", "http", "sse"},
		remote:     []string{"url"},
		headers:    "headers",
		vars:       claudeVars,
		secretHint: "${VAR}",
		reserved:   []string{"workspace", "claude-in-chrome", "computer-use", "Claude Preview", "Claude Browser"},
	}
	cursorMCP = &mcpAgent{
		name:       "Cursor",
		serversKey: "mcpServers",
		keys:       []string{"type", "command", "args", "env", "envFile", "url", "headers", "auth"},
		types:      []string{"stdio", "http", "sse", "streamable-http"},
		remote:     []string{"url"},
		headers:    "headers",
		secretHint: "${env:VAR}",
	}
	vscodeMCP = &mcpAgent{
		name:       "VS Code",
		serversKey: "servers",
		keys:       []string{"type", "command", "args", "env", "envFile", "cwd", "url", "headers", "dev", "sandboxEnabled", "sandbox"},
		types:      []string{"stdio", "http", "sse"},
		remote:     []string{"url"},
		headers:    "headers",
		vars:       vscodeVars,
		secretHint: "${input:id} or ${env:VAR}",
	}
	geminiMCP = &mcpAgent{
		name:       "Gemini CLI",
		serversKey: "mcpServers",
		keys: []string{"type", "command", "args", "env", "cwd", "url", "httpUrl", "headers", "timeout", "trust", "description",
			"includeTools", "excludeTools", "oauth", "authProviderType", "targetAudience", "targetServiceAccount", "extensionName"},
		remote:     []string{"url", "httpUrl"},
		headers:    "headers",
		secretHint: "$VAR",
	}
	codexMCP = &mcpAgent{
		name:       "Codex",
		serversKey: "mcp_servers",
		keys: []string{"command", "args", "env", "env_vars", "cwd", "url", "bearer_token_env_var", "http_headers", "env_http_headers",
			"experimental_environment", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "enabled", "required",
			"supports_parallel_tool_calls", "default_tools_approval_mode", "enabled_tools", "disabled_tools", "scopes", "oauth",
			"oauth_resource", "name", "tools"},
		remote:     []string{"url"},
		headers:    "http_headers",
		vars:       codexVars,
		secretHint: "env_vars, env_http_headers or bearer_token_env_var",
	}
)

// mcpConfigOf returns how the agent that reads the file at rel, slash
// separated, reads it, or nil when rel is no MCP configuration.
func mcpConfigOf(rel string) *mcpAgent {
	base, dir := path.Base(rel), path.Base(path.Dir(rel))
	switch {
	case base == ".mcp.json":
		return claudeMCP
	case base == "mcp.json" && dir == ".cursor":
		return cursorMCP
	case base == "mcp.json" && dir == ".vscode":
		return vscodeMCP
	case base == "settings.json" && dir == ".gemini":
		return geminiMCP
	case base == "config.toml" && dir == ".codex":
		return codexMCP
	}
	return nil
}

// mcpConfig checks a file of MCP server configurations.
func (c *checker) mcpConfig() {
	agent := mcpConfigOf(c.f.Rel)
	if agent == nil {
		return
	}
	var root *jnode
	if agent == codexMCP {
		r, problems, off, err := parseTOML(c.f.Text)
		if err != nil {
			c.add(c.byteSpan(off), diag.TOMLSyntax, "not valid TOML, so Codex cannot load it: %v", err)
			return
		}
		for _, p := range problems {
			c.add(p.span, diag.TOMLSyntax, "%s", p.msg)
		}
		for _, p := range codexDocProblems(c.f.Text, r) {
			c.add(p.span, diag.CodexConfigInvalid, "%s: Codex cannot load this file, and ctxls reads the AGENTS.md chain with Codex's defaults", p.msg)
		}
		root = r
	} else {
		r, off, err := parseJSON(c.f.Text)
		if err != nil && agent != claudeMCP {
			// VS Code, Cursor and Gemini CLI read JSON with comments and
			// trailing commas.
			if r2, _, err2 := parseJSON(stripJSONC(c.f.Text)); err2 == nil {
				r, err = r2, nil
			}
		}
		if err != nil {
			c.add(c.byteSpan(off), diag.JSONSyntax, "not valid JSON, so %s cannot load it: %v", agent.name, err)
			return
		}
		if r.kind != '{' {
			c.add(r.span, diag.MCPFieldInvalid, "the file must hold a JSON object, not %s", kindName(r.kind))
			return
		}
		c.duplicateKeys(r, agent.name)
		root = r
		if agent == geminiMCP {
			if p, ok := geminiFileNameProblem(r); ok {
				c.add(p.span, diag.GeminiSettingsInvalid, "%s; ctxls reads GEMINI.md in its place", p.msg)
			}
		}
	}
	servers, k := root.get(agent.serversKey)
	if k == nil {
		c.mcpServersElsewhere(root, agent)
		return
	}
	inputs := map[string]bool{}
	if agent == vscodeMCP {
		inputs = c.vscodeInputs(root)
	}
	c.mcpServers(servers, agent, inputs)
}

// renameKey is the fix that renames the key k, written as JSON or TOML,
// to name.
func (c *checker) renameKey(k *jnode, name string) diag.Fix {
	text := name
	switch raw := c.f.Text[k.span.Start:k.span.End]; {
	case len(raw) > 0 && raw[0] == '"':
		text = `"` + name + `"`
	case len(raw) > 0 && raw[0] == '\'':
		text = "'" + name + "'"
	}
	return diag.Fix{Title: fmt.Sprintf("Rename to %s", name), Preferred: true, Edits: []diag.Edit{{Span: k.span, NewText: text}}}
}

// byteSpan covers the byte at off, or the end of the text.
func (c *checker) byteSpan(off int) document.Span {
	end := off
	if end < len(c.f.Text) {
		end++
	}
	return document.Span{Start: off, End: end}
}

// mcpServersElsewhere reports servers given under the key another agent
// reads, which this one ignores.
func (c *checker) mcpServersElsewhere(root *jnode, agent *mcpAgent) {
	for _, other := range []string{"mcpServers", "servers", "mcp_servers"} {
		if other == agent.serversKey {
			continue
		}
		if _, k := root.get(other); k != nil && (agent != geminiMCP || other == "mcp_servers") {
			if d := c.add(k.span, diag.MCPKeyMisspelled, "%s reads MCP servers from %q, not %q: these servers are never started", agent.name, agent.serversKey, other); d != nil && agent != codexMCP {
				d.Fixes = []diag.Fix{c.renameKey(k, agent.serversKey)}
			}
		}
	}
}

// mcpServers checks a map of server names to configurations, as agent
// reads them; plugin manifests give one inline.
func (c *checker) mcpServers(obj *jnode, agent *mcpAgent, inputs map[string]bool) {
	if obj.kind != '{' {
		c.add(obj.span, diag.MCPFieldInvalid, "%s must map server names to configurations, not be %s", agent.serversKey, kindName(obj.kind))
		return
	}
	for i, v := range obj.vals {
		name := obj.keys[i]
		if slices.Contains(agent.reserved, name.str) {
			c.add(name.span, diag.MCPServerNameReserved, "%q is the name of a server built into %s, which skips a configured server of that name at load time: rename it", name.str, agent.name)
		}
		if v.kind != '{' {
			c.add(v.span, diag.MCPFieldInvalid, "server %q must be an object with its configuration, not %s", name.str, kindName(v.kind))
			continue
		}
		c.mcpServer(name, v, agent, inputs)
	}
}

// mcpServer checks one server's configuration.
func (c *checker) mcpServer(name, v *jnode, agent *mcpAgent, inputs map[string]bool) {
	for _, k := range v.keys {
		if slices.Contains(agent.keys, k.str) {
			continue
		}
		switch {
		case agent == codexMCP && k.str == "headers":
			if d := c.add(k.span, diag.MCPKeyMisspelled, "Codex ignores headers; it sends the HTTP headers of http_headers (values) and env_http_headers (names of environment variables)"); d != nil {
				d.Fixes = []diag.Fix{c.renameKey(k, "http_headers")}
			}
		case agent == codexMCP && k.str == "bearer_token":
			c.add(k.span, diag.MCPKeyMisspelled, "Codex refuses bearer_token in config.toml; name the environment variable that holds the token with bearer_token_env_var")
		case agent == codexMCP && k.str == "type":
			c.add(k.span, diag.MCPKeyUndocumented, "Codex has no type key: a server with command runs over stdio, one with url over streamable HTTP")
		default:
			if near := closestKey(k.str, agent.keys); near != "" {
				if d := c.add(k.span, diag.MCPKeyMisspelled, "%s does not know %q and ignores it; did you mean %q?", agent.name, k.str, near); d != nil {
					if _, taken := v.get(near); taken == nil {
						d.Fixes = []diag.Fix{c.renameKey(k, near)}
					}
				}
			} else {
				c.add(k.span, diag.MCPKeyUndocumented, "%q is not a server key %s documents; it is ignored", k.str, agent.name)
			}
		}
	}
	cmd, ck := v.get("command")
	var remote, rk *jnode
	for _, key := range agent.remote {
		if r, k := v.get(key); k != nil {
			remote, rk = r, k
			break
		}
	}
	typ := ""
	if t, tk := v.get("type"); tk != nil && agent.types != nil {
		switch {
		case t.kind != '"':
			c.add(t.span, diag.MCPFieldInvalid, "type must be a string, one of %s, not %s", strings.Join(agent.types, ", "), kindName(t.kind))
		case !slices.Contains(agent.types, t.str):
			if near := closestKey(t.str, agent.types); near != "" {
				c.add(t.span, diag.MCPTypeUnknown, "%s knows no server type %q; did you mean %q? It takes %s", agent.name, t.str, near, strings.Join(agent.types, ", "))
			} else {
				c.add(t.span, diag.MCPTypeUnknown, "%s knows no server type %q; it takes %s", agent.name, t.str, strings.Join(agent.types, ", "))
			}
			typ = "?"
		default:
			typ = t.str
		}
	}
	stdio := typ == "stdio" || (typ == "" && (ck != nil || rk == nil))
	switch {
	case typ == "?":
	case ck != nil && rk != nil:
		msg := fmt.Sprintf("server %q gives both %s and %s", name.str, "command", rk.str)
		switch {
		case agent == codexMCP:
			msg += "; Codex refuses such a server (a stdio server takes no url), so the file does not load"
		case typ == "stdio" || typ == "":
			msg += fmt.Sprintf("; %s starts the command and ignores %s: keep one", agent.name, rk.str)
		default:
			msg += fmt.Sprintf("; %s connects to %s and ignores command: keep one", agent.name, rk.str)
		}
		c.add(rk.span, diag.MCPTransportConflict, "%s", msg)
	case stdio && ck == nil:
		if typ == "stdio" {
			c.add(name.span, diag.MCPFieldMissing, "stdio server %q needs a command, the program %s starts", name.str, agent.name)
		} else {
			c.add(name.span, diag.MCPFieldMissing, "server %q needs a command (a program %s starts) or %s (a remote server's address)", name.str, agent.name, strings.Join(agent.remote, " or "))
		}
	case !stdio && rk == nil:
		c.add(name.span, diag.MCPFieldMissing, "%s server %q needs a url, the address %s connects to", typ, name.str, agent.name)
	}
	if ck != nil && cmd.kind != '"' {
		c.add(cmd.span, diag.MCPFieldInvalid, "command must be a string, the program to start, not %s; its arguments go in args", kindName(cmd.kind))
	} else if ck != nil && strings.TrimSpace(cmd.str) == "" {
		c.add(cmd.span, diag.MCPFieldMissing, "command of server %q is empty", name.str)
	}
	if rk != nil && remote.kind != '"' {
		c.add(remote.span, diag.MCPFieldInvalid, "%s must be a string, not %s", rk.str, kindName(remote.kind))
	}
	if args, ak := v.get("args"); ak != nil {
		c.stringList(args, "args")
	}
	for _, key := range []string{"env", agent.headers} {
		if m, mk := v.get(key); mk != nil {
			c.stringMap(m, key)
		}
	}
	for _, key := range []string{"includeTools", "excludeTools", "enabled_tools", "disabled_tools", "scopes", "env_vars"} {
		if slices.Contains(agent.keys, key) {
			if l, lk := v.get(key); lk != nil && key != "env_vars" {
				c.stringList(l, key)
			}
		}
	}
	for _, key := range []string{"timeout", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec"} {
		if n, nk := v.get(key); nk != nil && slices.Contains(agent.keys, key) && n.kind != '0' {
			c.add(n.span, diag.MCPFieldInvalid, "%s must be a number, not %s", key, kindName(n.kind))
		}
	}
	for _, key := range []string{"trust", "enabled", "required", "supports_parallel_tool_calls"} {
		if b, bk := v.get(key); bk != nil && slices.Contains(agent.keys, key) && b.kind != 't' && b.kind != 'f' {
			c.add(b.span, diag.MCPFieldInvalid, "%s must be true or false, not %s", key, kindName(b.kind))
		}
	}
	c.mcpStrings(v, agent, inputs)
}

// stringList reports a value that is not a list of strings.
func (c *checker) stringList(v *jnode, key string) {
	if v.kind != '[' {
		c.add(v.span, diag.MCPFieldInvalid, "%s must be a list of strings, not %s", key, kindName(v.kind))
		return
	}
	for _, it := range v.items {
		if it.kind != '"' {
			c.add(it.span, diag.MCPFieldInvalid, "%s must hold strings only, not %s; quote it", key, kindName(it.kind))
		}
	}
}

// stringMap reports a value that is not a map of strings.
func (c *checker) stringMap(v *jnode, key string) {
	if v.kind != '{' {
		c.add(v.span, diag.MCPFieldInvalid, "%s must map names to string values, not be %s", key, kindName(v.kind))
		return
	}
	for i, it := range v.vals {
		if it.kind != '"' {
			c.add(it.span, diag.MCPFieldInvalid, "%s value %q must be a string, not %s; quote it", key, v.keys[i].str, kindName(it.kind))
		}
	}
}

// mcpStrings checks the variables and the secrets of a server's string
// values: the command, args, env, url and headers.
func (c *checker) mcpStrings(v *jnode, agent *mcpAgent, inputs map[string]bool) {
	visit := func(n *jnode, where string, named string) {
		if n == nil || n.kind != '"' {
			return
		}
		if agent.vars != nil {
			agent.vars(c, n, where, inputs)
		}
		if s, size, ok := secretIn(named, n.str); ok {
			c.add(n.span, diag.MCPSecretPlainText, "%s holds what looks like a secret in plain text (%s, %d characters): anyone who can read the file can use it; keep it out of the file with %s",
				where, s, size, agent.secretHint)
		}
	}
	if cmd, _ := v.get("command"); cmd != nil {
		visit(cmd, "command", "")
	}
	for _, key := range agent.remote {
		if u, _ := v.get(key); u != nil {
			visit(u, key, "")
		}
	}
	if args, _ := v.get("args"); args != nil {
		for i, it := range args.items {
			named := ""
			if i > 0 && args.items[i-1].kind == '"' && strings.HasPrefix(args.items[i-1].str, "-") {
				named = args.items[i-1].str // --api-key VALUE
			}
			visit(it, "args", named)
		}
	}
	for _, key := range []string{"env", agent.headers} {
		m, _ := v.get(key)
		if m == nil || m.kind != '{' {
			continue
		}
		for i, it := range m.vals {
			visit(it, fmt.Sprintf("%s %s", key, m.keys[i].str), m.keys[i].str)
		}
	}
}

// varRE matches a ${...} variable; bareVarRE a $NAME one.
var (
	varRE     = regexp.MustCompile(`\$\{([^}]*)\}`)
	bareVarRE = regexp.MustCompile(`(?:^|[^$\\\w])\$([A-Za-z_][A-Za-z0-9_]*)\b`)
)

// claudeVars checks variables as Claude Code expands them: ${VAR} and
// ${VAR:-default}, in command, args, env, url and headers.
func claudeVars(c *checker, v *jnode, where string, _ map[string]bool) {
	for _, m := range varRE.FindAllStringSubmatch(v.str, -1) {
		name, _, _ := strings.Cut(m[1], ":-")
		if strings.Contains(name, ":") {
			c.add(v.span, diag.MCPVariableUnexpanded, "%s: Claude Code expands ${VAR} and ${VAR:-default} only, so %s reaches the server as it is written (it is the form of VS Code and Cursor); write ${%s}",
				where, m[0], name[strings.LastIndex(name, ":")+1:])
		}
	}
	if where == "command" || strings.HasPrefix(where, "args") {
		return // a program may expand $NAME itself
	}
	for _, m := range bareVarRE.FindAllStringSubmatch(v.str, -1) {
		c.add(v.span, diag.MCPVariableUnexpanded, "%s: Claude Code does not expand $%s, only ${%s}; the server receives the text $%s", where, m[1], m[1], m[1])
	}
}

// vscodeVars checks that every ${input:id} names an input of the file.
func vscodeVars(c *checker, v *jnode, where string, inputs map[string]bool) {
	for _, m := range varRE.FindAllStringSubmatch(v.str, -1) {
		if id, ok := strings.CutPrefix(m[1], "input:"); ok && !inputs[id] {
			c.add(v.span, diag.MCPVariableUnexpanded, "%s: %s names no input of this file's inputs, so VS Code cannot ask for its value", where, m[0])
		}
	}
}

// codexVars reports variables in values Codex passes on as written.
func codexVars(c *checker, v *jnode, where string, _ map[string]bool) {
	if where == "command" || strings.HasPrefix(where, "args") {
		return // a program may expand them itself
	}
	if m := varRE.FindString(v.str); m != "" {
		c.add(v.span, diag.MCPVariableUnexpanded, "%s: Codex does not expand %s in config.toml; forward a variable with env_vars, or name it in env_http_headers or bearer_token_env_var", where, m)
		return
	}
	if m := bareVarRE.FindStringSubmatch(v.str); m != nil {
		c.add(v.span, diag.MCPVariableUnexpanded, "%s: Codex does not expand $%s in config.toml; forward a variable with env_vars, or name it in env_http_headers or bearer_token_env_var", where, m[1])
	}
}

// vscodeInputs returns the ids of the inputs of a VS Code mcp.json.
func (c *checker) vscodeInputs(root *jnode) map[string]bool {
	ids := map[string]bool{}
	in, k := root.get("inputs")
	if k == nil {
		return ids
	}
	if in.kind != '[' {
		c.add(in.span, diag.MCPFieldInvalid, "inputs must be a list of input objects, not %s", kindName(in.kind))
		return ids
	}
	for _, it := range in.items {
		if it.kind != '{' {
			c.add(it.span, diag.MCPFieldInvalid, "an input must be an object with type, id and description, not %s", kindName(it.kind))
			continue
		}
		head := document.Span{Start: it.span.Start, End: it.span.Start + 1}
		if id, ik := it.get("id"); ik == nil {
			c.add(head, diag.MCPFieldMissing, "an input needs an id, which ${input:id} names")
		} else if id.kind != '"' {
			c.add(id.span, diag.MCPFieldInvalid, "id must be a string, not %s", kindName(id.kind))
		} else {
			ids[id.str] = true
		}
		if t, tk := it.get("type"); tk == nil {
			c.add(head, diag.MCPFieldMissing, "an input needs a type, such as promptString")
		} else if t.kind != '"' || (t.str != "promptString" && t.str != "pickString" && t.str != "command") {
			c.add(t.span, diag.MCPTypeUnknown, "VS Code knows no input type %s; it takes promptString, pickString or command", jsonText(c.f.Text, t.span))
		}
	}
	return ids
}

func jsonText(text []byte, s document.Span) string {
	return string(text[s.Start:min(s.End, len(text), s.Start+40)])
}

// closestKey returns the key of keys within two edits of k (one for a
// short key), whatever the case, or "".
func closestKey(k string, keys []string) string {
	best, bestD := "", 3
	for _, cand := range keys {
		d := keyEditDistance(strings.ToLower(k), strings.ToLower(cand))
		limit := 2
		if len(cand) <= 4 {
			limit = 1
		}
		if d <= limit && d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

// keyEditDistance is the Levenshtein distance of a and b, with a swap of
// two neighbours counted as one edit.
func keyEditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 99
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// stripJSONC blanks the comments (// and /* */) and trailing commas of
// JSON with comments, keeping every offset.
func stripJSONC(text []byte) []byte {
	out := slices.Clone(text)
	inStr := false
	for i := 0; i < len(out); i++ {
		ch := out[i]
		switch {
		case inStr:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case ch == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		case ch == ',':
			j := i + 1
			for j < len(out) && strings.IndexByte(" \t\r\n", out[j]) >= 0 {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}
