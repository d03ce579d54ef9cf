package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// ctxlsBinary is the ctxls command built for a test, with an index cache
// of its own.
type ctxlsBinary struct{ path, cache string }

// buildCtxls builds the ctxls binary into a temporary directory of t.
func buildCtxls(t *testing.T) ctxlsBinary {
	t.Helper()
	dir := t.TempDir()
	b := ctxlsBinary{path: filepath.Join(dir, "ctxls"), cache: filepath.Join(dir, "cache")}
	path, err := chaintest.Build(filepath.Join("..", "cmd", "ctxls"), dir, "ctxls")
	if err != nil {
		t.Fatal(err)
	}
	b.path = path
	return b
}

// command returns a command running the binary with args.
func (b ctxlsBinary) command(args ...string) *exec.Cmd {
	cmd := exec.Command(b.path, args...)
	cmd.Env = append(os.Environ(), indexcache.EnvDir+"="+b.cache)
	return cmd
}

// TestBinary builds ctxls once and starts it as agents and editors do.
func TestBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	runSubtests(t, buildCtxls(t), []subtest[ctxlsBinary]{
		{"agent configurations", testAgentConfigurations},
		{"plugin language server", testPluginLanguageServer},
		{"command transport", testCommandTransport},
		{"leaky repository", testLeakyRepository},
	})
}

// commandLine is a server's command line as an agent's configuration
// names it.
type commandLine struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Type    string   `json:"type"` // VS Code's: stdio
}

// snippet is a fenced block of the README.
type snippet struct{ lang, text string }

// readmeSnippets returns the fenced blocks of the README's section on
// agents, keyed by the bold label (**Codex**) of the paragraph they
// follow, with their fence's language.
func readmeSnippets(t *testing.T) map[string][]snippet {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Agents (MCP)\n")
	if !ok {
		t.Fatal("README.md has no section ## Agents (MCP)")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	label := regexp.MustCompile(`^\*\*([^*]+)\*\*`)
	out := map[string][]snippet{}
	var cur, lang string
	var block []string
	in := false
	for line := range strings.Lines(section) {
		line = strings.TrimRight(line, "\n")
		switch {
		case in && line == "```":
			in = false
			if cur != "" {
				out[cur] = append(out[cur], snippet{lang, strings.Join(block, "\n")})
			}
		case in:
			block = append(block, line)
		case strings.HasPrefix(line, "```"):
			in, lang, block = true, strings.TrimPrefix(line, "```"), nil
		default:
			if m := label.FindStringSubmatch(line); m != nil {
				cur = m[1]
			}
		}
	}
	return out
}

// parseCodexTOML reads the one table of an MCP server that the README
// gives Codex: a [mcp_servers.NAME] header, then command = "..." and
// args = ["...", ...]. Anything else is an error, so that a snippet this
// parser does not understand fails the test rather than passing
// unchecked.
func parseCodexTOML(text string) (name string, cl commandLine, err error) {
	header := regexp.MustCompile(`^\[mcp_servers\.([A-Za-z0-9_-]+)\]$`)
	kv := regexp.MustCompile(`^([A-Za-z_]+)\s*=\s*(.+)$`)
	str := func(v string) (string, error) { return strconv.Unquote(strings.TrimSpace(v)) }
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := header.FindStringSubmatch(line); m != nil {
			if name != "" {
				return "", cl, fmt.Errorf("line %d: a second table %s", i+1, line)
			}
			name = m[1]
			continue
		}
		m := kv.FindStringSubmatch(line)
		if m == nil || name == "" {
			return "", cl, fmt.Errorf("line %d: %q is not a key of [mcp_servers.NAME]", i+1, line)
		}
		switch m[1] {
		case "command":
			if cl.Command, err = str(m[2]); err != nil {
				return "", cl, fmt.Errorf("line %d: command: %v", i+1, err)
			}
		case "args":
			v := strings.TrimSpace(m[2])
			if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
				return "", cl, fmt.Errorf("line %d: args is not an array: %s", i+1, v)
			}
			cl.Args = []string{}
			if inner := strings.TrimSpace(v[1 : len(v)-1]); inner != "" {
				for _, e := range strings.Split(inner, ",") {
					s, err := str(e)
					if err != nil {
						return "", cl, fmt.Errorf("line %d: args element %s: %v", i+1, e, err)
					}
					cl.Args = append(cl.Args, s)
				}
			}
		default:
			return "", cl, fmt.Errorf("line %d: unknown key %s", i+1, m[1])
		}
	}
	if name == "" || cl.Command == "" {
		return "", cl, fmt.Errorf("no [mcp_servers.NAME] table with a command")
	}
	return name, cl, nil
}

func TestParseCodexTOML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, name string
		want       commandLine
		errHas     string
	}{
		{text: "[mcp_servers.ctxls]\ncommand = \"ctxls\"\nargs = [\"mcp\", \"--dir\", \"/p\"]\n", name: "ctxls", want: commandLine{Command: "ctxls", Args: []string{"mcp", "--dir", "/p"}}},
		{text: "# comment\n[mcp_servers.x]\ncommand = \"c\"\nargs = []\n", name: "x", want: commandLine{Command: "c", Args: []string{}}},
		{text: "command = \"ctxls\"\n", errHas: "is not a key"},
		{text: "[mcp_servers.a]\ncommand = \"c\"\nenv = { A = \"1\" }\n", errHas: "unknown key env"},
		{text: "[mcp_servers.a]\ncommand = ctxls\n", errHas: "command"},
		{text: "[mcp_servers.a]\ncommand = \"c\"\nargs = \"mcp\"\n", errHas: "not an array"},
		{text: "[mcp_servers.a]\n[mcp_servers.b]\n", errHas: "second table"},
		{text: "", errHas: "no [mcp_servers.NAME]"},
	}
	for _, tt := range tests {
		name, cl, err := parseCodexTOML(tt.text)
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("parse %q: error %v, want one containing %q", tt.text, err, tt.errHas)
			}
			continue
		}
		if err != nil || name != tt.name || cl.Command != tt.want.Command || !slices.Equal(cl.Args, tt.want.Args) {
			t.Errorf("parse %q = %q, %+v, %v; want %q, %+v", tt.text, name, cl, err, tt.name, tt.want)
		}
	}
}

// agentCommand returns the command an agent runs for cl: the built binary
// for ctxls, the agent's variable for the workspace folder expanded, run
// in the workspace as the agents that pass no --dir do.
func agentCommand(t *testing.T, bin ctxlsBinary, dir string, cl commandLine) *exec.Cmd {
	t.Helper()
	if cl.Command != "ctxls" {
		t.Fatalf("command %q, want ctxls", cl.Command)
	}
	args := make([]string, len(cl.Args))
	for i, a := range cl.Args {
		args[i] = strings.ReplaceAll(a, "${workspaceFolder}", dir)
		if strings.Contains(args[i], "${") {
			t.Fatalf("argument %q holds a variable the test does not know", a)
		}
	}
	cmd := bin.command(args...)
	cmd.Dir = dir
	return cmd
}

// testAgentConfigurations starts each MCP server configuration the README
// gives an agent, and the Claude Code plugin's, exactly as written (with
// the built binary as ctxls), lists its tools and calls one.
func testAgentConfigurations(t *testing.T, bin ctxlsBinary) {
	snippets := readmeSnippets(t)
	type config struct {
		name string
		cl   commandLine
	}
	var configs []config
	fromJSON := func(name, text, key string) {
		var doc map[string]map[string]commandLine
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Errorf("%s: %v\n%s", name, err, text)
			return
		}
		cl, ok := doc[key]["ctxls"]
		if !ok || len(doc) != 1 || len(doc[key]) != 1 {
			t.Errorf("%s: want one server ctxls under %s, got %s", name, key, text)
			return
		}
		configs = append(configs, config{name, cl})
	}
	for _, c := range []struct{ label, lang, key string }{
		{"Claude Code", "json", "mcpServers"},
		{"Codex", "toml", ""},
		{"Cursor", "json", "mcpServers"},
		{"VS Code", "json", "servers"},
	} {
		i := slices.IndexFunc(snippets[c.label], func(s snippet) bool { return s.lang == c.lang })
		if i < 0 {
			t.Errorf("README: no %s block after **%s** (blocks: %v)", c.lang, c.label, snippets)
			continue
		}
		s := snippets[c.label][i]
		if c.lang == "toml" {
			name, cl, err := parseCodexTOML(s.text)
			if err != nil || name != "ctxls" {
				t.Errorf("README, %s: server %q: %v\n%s", c.label, name, err, s.text)
				continue
			}
			configs = append(configs, config{"README, " + c.label, cl})
			continue
		}
		fromJSON("README, "+c.label, s.text, c.key)
	}
	plugin, err := os.ReadFile(filepath.Join("..", "claude-plugin", ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	fromJSON("claude-plugin/.mcp.json", string(plugin), "mcpServers")
	for _, c := range configs {
		if c.name == "README, VS Code" && c.cl.Type != "stdio" {
			t.Errorf("%s: type %q, want stdio", c.name, c.cl.Type)
		}
	}

	// The README says claude mcp add writes the Claude Code snippet.
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile("`claude mcp add [^`]*-- ([^`]+)`").FindSubmatch(readme); m == nil {
		t.Error("README: no `claude mcp add ... -- COMMAND` line")
	} else if i := slices.IndexFunc(configs, func(c config) bool { return c.name == "README, Claude Code" }); i >= 0 {
		if got, want := string(m[1]), strings.Join(append([]string{configs[i].cl.Command}, configs[i].cl.Args...), " "); got != want {
			t.Errorf("README: claude mcp add runs %q, the .mcp.json it writes %q", got, want)
		}
	}

	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := libtest.WriteTree(t, fixture())
			cmd := agentCommand(t, bin, dir, c.cl)
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "test"}, nil).
				Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
			if err != nil {
				t.Fatalf("start %v: %v", cmd.Args, err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if want := []string{"catalog", "check", "load_context", "search", "session_cost"}; !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
			// The catalog names the fixture's topics: the server serves
			// the workspace the agent runs in or names.
			var out CatalogOutput
			if text, isErr := call(t, cs, "catalog", map[string]any{"domain": "web"}, &out); isErr || len(out.Entries) == 0 || out.Entries[0].Reference != "web:api" {
				t.Errorf("catalog of web: error=%v %q %+v", isErr, text, out.Entries)
			}
		})
	}
}

// testPluginLanguageServer starts the language server the Claude Code
// plugin's .lsp.json names, as written, and has it answer initialize and
// shut down.
func testPluginLanguageServer(t *testing.T, bin ctxlsBinary) {
	b, err := os.ReadFile(filepath.Join("..", "claude-plugin", ".lsp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]struct {
		commandLine
		ExtensionToLanguage map[string]string `json:"extensionToLanguage"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf(".lsp.json: %v", err)
	}
	srv, ok := doc["ctxls"]
	if !ok || len(doc) != 1 {
		t.Fatalf(".lsp.json: want one server ctxls, got %s", b)
	}
	if srv.ExtensionToLanguage[".md"] != "markdown" {
		t.Errorf(".lsp.json: .md is %q, want markdown", srv.ExtensionToLanguage[".md"])
	}
	dir := libtest.WriteTree(t, fixture())
	cmd := agentCommand(t, bin, dir, srv.commandLine)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	// exited is closed once the server has, waitErr then says how.
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})

	send := func(msg map[string]any) {
		t.Helper()
		msg["jsonrpc"] = "2.0"
		body, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatalf("write %s: %v", msg["method"], err)
		}
	}
	// Messages are read in the background, so that a silent server fails
	// the test at its deadline rather than blocking it.
	type message struct {
		ID     *int            `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	msgs := make(chan message, 64)
	go func() {
		defer close(msgs)
		r := bufio.NewReader(stdout)
		for {
			n := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
					n, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			if n < 0 {
				return
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			var m message
			if json.Unmarshal(body, &m) == nil {
				msgs <- m
			}
		}
	}()
	response := func(id int) message {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					t.Fatalf("the server closed its output before answering request %d", id)
				}
				if m.ID != nil && *m.ID == id && m.Method == "" {
					return m
				}
			case <-deadline:
				t.Fatalf("no answer to request %d within 30s", id)
			}
		}
	}

	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + filepath.ToSlash(dir), "capabilities": map[string]any{},
		"workspaceFolders": []map[string]any{{"uri": "file://" + filepath.ToSlash(dir), "name": "w"}},
	}})
	init := response(1)
	var res struct {
		Capabilities map[string]any `json:"capabilities"`
		ServerInfo   struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	if len(init.Error) > 0 || json.Unmarshal(init.Result, &res) != nil || res.Capabilities["textDocumentSync"] == nil || res.ServerInfo.Name != "ctxls" {
		t.Fatalf("initialize: result %s, error %s", init.Result, init.Error)
	}
	send(map[string]any{"method": "initialized", "params": map[string]any{}})
	send(map[string]any{"id": 2, "method": "shutdown"})
	if m := response(2); len(m.Error) > 0 {
		t.Fatalf("shutdown: %s", m.Error)
	}
	send(map[string]any{"method": "exit"})
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("ctxls serve after exit: %v", waitErr)
		}
	case <-time.After(30 * time.Second):
		t.Error("ctxls serve still running 30s after exit")
	}
}

// testCommandTransport starts the built ctxls binary as an
// agent does and talks to it through the SDK's client.
func testCommandTransport(t *testing.T, bin ctxlsBinary) {
	dir := libtest.WriteTree(t, fixture())
	cmd := bin.command("mcp", "--dir", dir)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "test"}, nil).
		Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to ctxls mcp: %v", err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "ctxls" {
		t.Errorf("server name %q", got)
	}

	var out ops.LoadContextResult
	text, isErr := call(t, cs, "load_context", map[string]any{"refs": []string{"web:api#Routing"}, "budgetTokens": 1000}, &out)
	if isErr || len(out.Loaded) != 1 || !strings.Contains(out.Text, "routing detail") || out.Tokens > 1000 {
		t.Errorf("load_context: error=%v %q %+v", isErr, text, out)
	}
	text, isErr = call(t, cs, "load_context", map[string]any{"refs": []string{"../../etc/passwd.md"}}, nil)
	if !isErr || !strings.Contains(text, "outside the workspace") {
		t.Errorf("load_context outside the root: error=%v %q", isErr, text)
	}
	res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctxls://topics/ops/deploy"})
	if err != nil || !strings.Contains(res.Contents[0].Text, "rollback detail") {
		t.Errorf("read ops/deploy: %v", err)
	}

	// session_cost answers what ctxls cost --format json prints.
	cost, err := bin.command("cost", "--dir", dir, "--agent", "claude", "--format", "json").Output()
	if err != nil {
		t.Fatalf("ctxls cost: %v", err)
	}
	var fromCLI, fromTool any
	if err := json.Unmarshal(cost, &fromCLI); err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, cs, "session_cost", map[string]any{"agent": "claude"}, &fromTool); isErr {
		t.Fatalf("session_cost: %s", text)
	}
	if !reflect.DeepEqual(fromCLI, fromTool) {
		t.Errorf("session_cost %v\nctxls cost --format json %v", fromTool, fromCLI)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Errorf("ctxls mcp still running after the client closed")
	} else if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("ctxls mcp exited with %d", code)
	}
}
