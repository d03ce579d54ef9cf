package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/present"
)

// frontendsTree is a workspace with every kind the catalog lists: topics
// of two domains, a skill, a command, a subagent and a rule, and a memory
// file for the session cost.
func frontendsTree() map[string]string {
	return map[string]string{
		"CLAUDE.md": "# Project\n\nDeploy with care; see the release topic.\n",
		"context/ops/release.md": "---\ntitle: Release Process\ntags: [release, deploy]\n---\n# Release Process\n\n" +
			"## Steps\n\nTag, build, deploy, announce.\n",
		"context/web/api.md": "---\ntitle: REST API\ntags: [rest, http]\n---\n# REST API\n\nResources and verbs.\n",
		".claude/skills/deploy-app/SKILL.md": "---\nname: deploy-app\ndescription: Deploys the app to staging. Use when asked to deploy or ship.\n---\n\n" +
			"# Deploy\n\nRun the deploy script, then check the health endpoint.\n",
		".claude/commands/ship.md":  "---\ndescription: Ship a release after the checks pass\n---\n\nRun the checks, then deploy the release.\n",
		".claude/agents/auditor.md": "---\nname: auditor\ndescription: Audits deploy scripts for secrets\n---\n\nYou audit deploy scripts. Report every secret you find.\n",
		".claude/rules/style.md":    "# Style\n\nWrite short functions.\n",
	}
}

// frontendEntry is a catalog entry or a search result as every front end
// gives it: reference, kind, tokens, and the relevance of a result.
type frontendEntry struct {
	Reference string  `json:"reference"`
	Title     string  `json:"title"`
	Kind      string  `json:"kind"`
	Tokens    int     `json:"tokens"`
	Relevance float64 `json:"relevance"`
}

func (e frontendEntry) String() string {
	return fmt.Sprintf("%s %s %q %d %.2f", e.Kind, e.Reference, e.Title, e.Tokens, e.Relevance)
}

// frontendAnswers is what one front end answers for the workspace.
type frontendAnswers struct {
	catalog   []frontendEntry
	tokenizer string                     // the catalog's
	search    map[string][]frontendEntry // by query
	cost      json.RawMessage            // the session cost of claude
	costText  string                     // and its text, from the CLI and MCP
	// symbols are the editor's workspace symbols by query: their names
	// and containers.
	symbols map[string][]string
	// preview is the chain preview of the command in .claude/commands,
	// from the CLI and the editor (MCP has no chains).
	preview *chainPreview
	// editor is what the editor's views are built from, as the language
	// server sends it: the inventory and the search results by query.
	editor editorAnswers
}

// editorAnswers are the language server's answers that the extension's
// Context Library view and Search Context quick pick show.
type editorAnswers struct {
	Inventory json.RawMessage            `json:"inventory"`
	Search    map[string]json.RawMessage `json:"search"`
}

// editorAnswersFile holds the editorAnswers of frontendsTree, which the
// extension's unit tests build its tree and its search items from.
const editorAnswersFile = "../vscode-extension/test/unit/testdata/frontends.json"

// chainPreview is what a chain preview says of its prompts' cost.
type chainPreview struct {
	Steps []struct {
		Command string `json:"command"`
		Memory  []struct {
			Key    string `json:"key"`
			Tokens int    `json:"tokens"`
		} `json:"memory"`
		MemoryTokens     int `json:"memoryTokens"`
		CommandTokens    int `json:"commandTokens"`
		ContextTokens    int `json:"contextTokens"`
		SharedDataTokens int `json:"sharedDataTokens"`
		HistoryTokens    int `json:"historyTokens"`
		InputTokens      int `json:"inputTokens"`
		FramingTokens    int `json:"framingTokens"`
		PromptTokens     int `json:"promptTokens"`
	} `json:"steps"`
	TotalTokens int    `json:"totalTokens"`
	Tokenizer   string `json:"tokenizer"`
}

// previewInput is the input of the compared chain preview.
const previewInput = "cut release 1.2"

// frontendQueries are the searches compared: one that matches topics and
// agent files alike, one only agent files, one only a topic.
var frontendQueries = []string{"deploy", "secrets audit", "rest"}

// TestFrontendsAgree drives the command line, the MCP server over stdio
// with the MCP SDK's client, and the language server over stdio on one
// workspace: they list the same catalog of topics, skills, commands,
// subagents and rules, find the same results in the same order, and give
// the same session cost, which the command line and MCP put in the same
// words; the editor's workspace symbols are the catalog's entries; the
// command line and the editor preview a chain of the command in
// .claude/commands alike, its parts adding up to its total; and in the
// session cost every skill, command and subagent costs what the catalog
// says when both count in one tokenizer.
func TestFrontendsAgree(t *testing.T) {
	t.Parallel()
	bin := stdioBinaryPath(t) // built before the deadline starts
	ctx := stdioCtx(t)
	dir := libtest.WriteTree(t, frontendsTree())

	answers := map[string]frontendAnswers{
		"cli": cliAnswers(ctx, t, bin, dir),
		"mcp": mcpAnswers(ctx, t, bin, dir),
		"lsp": lspAnswers(ctx, t, bin, dir),
	}

	cli := answers["cli"]
	kinds := map[string]bool{}
	for _, e := range cli.catalog {
		kinds[e.Kind] = true
		if e.Tokens <= 0 {
			t.Errorf("cli catalog: %s has no tokens", e)
		}
	}
	for _, k := range []string{"topic", "skill", "command", "subagent", "rule"} {
		if !kinds[k] {
			t.Errorf("cli catalog lists no %s: %v", k, cli.catalog)
		}
	}
	if len(cli.search["deploy"]) < 3 || len(cli.search["secrets audit"]) == 0 || len(cli.search["rest"]) == 0 {
		t.Errorf("cli search found too little: %v", cli.search)
	}
	// The command in .claude/commands is a chain's command with no
	// .ctxls.yaml naming its folder; its preview's parts, the project
	// memory among them, add up to each prompt's total and the prompts to
	// the chain's, and the editor previews what the command line does.
	if pv := cli.preview; len(pv.Steps) != 1 || pv.Steps[0].Command != "ship" || pv.Tokenizer == "" {
		t.Errorf("cli chain preview of ship: %+v", pv)
	} else {
		st := pv.Steps[0]
		sum := st.CommandTokens + st.MemoryTokens + st.ContextTokens + st.SharedDataTokens + st.HistoryTokens + st.InputTokens + st.FramingTokens
		mem := 0
		for _, m := range st.Memory {
			mem += m.Tokens
		}
		if st.MemoryTokens == 0 || mem != st.MemoryTokens || st.InputTokens == 0 || sum != st.PromptTokens || pv.TotalTokens != st.PromptTokens {
			t.Errorf("chain preview parts sum to %d (memory %d of items %d, input %d), prompt %d, total %d", sum, st.MemoryTokens, mem, st.InputTokens, st.PromptTokens, pv.TotalTokens)
		}
	}
	if lsp := answers["lsp"].preview; fmt.Sprintf("%+v", lsp) != fmt.Sprintf("%+v", cli.preview) {
		t.Errorf("the editor's chain preview differs from the cli's:\nlsp: %+v\ncli: %+v", lsp, cli.preview)
	}

	for _, name := range []string{"mcp", "lsp"} {
		a := answers[name]
		if !slices.Equal(sortedEntries(a.catalog), sortedEntries(cli.catalog)) {
			t.Errorf("%s catalog differs from the cli's:\n%s: %v\ncli: %v", name, name, sortedEntries(a.catalog), sortedEntries(cli.catalog))
		}
		for _, q := range frontendQueries {
			if !slices.Equal(a.search[q], cli.search[q]) {
				t.Errorf("%s search %q differs from the cli's:\n%s: %v\ncli: %v", name, q, name, a.search[q], cli.search[q])
			}
		}
		if name == "mcp" && a.costText != cli.costText {
			t.Errorf("mcp's session cost says other words than the cli's:\nmcp:\n%s\ncli:\n%s", a.costText, cli.costText)
		}
		if !jsonEqual(a.cost, cli.cost) {
			t.Errorf("%s session cost differs from the cli's:\n%s: %s\ncli: %s", name, name, a.cost, cli.cost)
		}
	}

	checkEditorAnswers(t, answers["lsp"].editor)

	// The editor's symbols are the catalog's entries, each named by its
	// reference, title and cost; a query finds what it names.
	var all []string
	for _, e := range cli.catalog {
		container := e.Kind
		if e.Kind == "topic" {
			container, _, _ = strings.Cut(e.Reference, ":")
		}
		all = append(all, present.EntryName(e.Reference, e.Title, e.Tokens)+" in "+container)
	}
	slices.Sort(all)
	if got := slices.Sorted(slices.Values(answers["lsp"].symbols[""])); !slices.Equal(got, all) {
		t.Errorf("workspace symbols differ from the catalog:\nsymbols: %q\ncatalog: %q", got, all)
	}
	if got := answers["lsp"].symbols["deploy"]; len(got) == 0 || !strings.HasPrefix(got[0], "deploy-app — ") {
		t.Errorf("workspace symbols for deploy: %q, want the skill first", got)
	}

	// In one tokenizer the session cost prices each skill, command and
	// subagent body as the catalog does: the cost counted in the
	// catalog's (the library's), and the catalog counted in the cost's (by
	// default the agent's own).
	var own struct {
		Tokenizer string `json:"tokenizer"`
	}
	if err := json.Unmarshal(runCtxls(ctx, t, bin, dir, "cost", "--format", "json", dir), &own); err != nil || own.Tokenizer == "" || own.Tokenizer == cli.tokenizer {
		t.Fatalf("the session cost counts in %q (%v), want the agent's own, not the catalog's %s", own.Tokenizer, err, cli.tokenizer)
	}
	for _, tc := range []struct {
		name                  string
		catalogArgs, costArgs []string
	}{
		{"the catalog's tokenizer", nil, []string{"--tokenizer", cli.tokenizer}},
		{"the agent's tokenizer", []string{"--tokenizer", own.Tokenizer}, nil},
	} {
		var cat struct {
			Entries   []frontendEntry `json:"entries"`
			Tokenizer string          `json:"tokenizer"`
		}
		if err := json.Unmarshal(runCtxls(ctx, t, bin, dir, append([]string{"catalog", "--format", "json", dir}, tc.catalogArgs...)...), &cat); err != nil {
			t.Fatal(err)
		}
		raw := runCtxls(ctx, t, bin, dir, append([]string{"cost", "--format", "json", dir}, tc.costArgs...)...)
		var cost struct {
			OnDemand []struct {
				File   string `json:"file"`
				Tokens int    `json:"tokens"`
			} `json:"onDemand"`
			Tokenizer string `json:"tokenizer"`
		}
		if err := json.Unmarshal(raw, &cost); err != nil {
			t.Fatal(err)
		}
		if cat.Tokenizer != cost.Tokenizer {
			t.Errorf("%s: the catalog counts in %s, the session cost in %s", tc.name, cat.Tokenizer, cost.Tokenizer)
		}
		checked := 0
		for _, e := range cat.Entries {
			if e.Kind != "skill" && e.Kind != "command" && e.Kind != "subagent" {
				continue
			}
			p := e.Reference
			if e.Kind == "skill" {
				p = ".claude/skills/" + e.Reference + "/SKILL.md"
			}
			for _, c := range cost.OnDemand {
				if c.File == p {
					checked++
					if c.Tokens != e.Tokens {
						t.Errorf("%s: %s: %d tokens in the catalog, %d in the session cost", tc.name, p, e.Tokens, c.Tokens)
					}
				}
			}
		}
		if checked != 3 {
			t.Errorf("%s: compared %d catalog entries with the session cost, want 3: %s", tc.name, checked, raw)
		}
	}
}

// sortedEntries returns entries sorted by kind and reference: MCP lists
// agent files before topics, the others in the inventory's order.
func sortedEntries(es []frontendEntry) []frontendEntry {
	out := slices.Clone(es)
	slices.SortFunc(out, func(a, b frontendEntry) int {
		return strings.Compare(a.Kind+"\x00"+a.Reference, b.Kind+"\x00"+b.Reference)
	})
	return out
}

// checkEditorAnswers holds editorAnswersFile to the language server's
// answers, so that the extension's tests build the editor's views from
// what the server sends for the workspace the front ends are compared on;
// with -update it rewrites the file.
func checkEditorAnswers(t *testing.T, got editorAnswers) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *fixtureUpdate {
		if err := os.MkdirAll(filepath.Dir(editorAnswersFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(editorAnswersFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(editorAnswersFile)
	if err != nil {
		t.Fatalf("%v (go test ./lsp -run TestFrontendsAgree -update writes it)", err)
	}
	if !jsonEqual(b, want) {
		t.Errorf("%s is not what the language server answers; go test ./lsp -run TestFrontendsAgree -update rewrites it:\ngot:\n%s", editorAnswersFile, b)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ra, _ := json.Marshal(x)
	rb, _ := json.Marshal(y)
	return bytes.Equal(ra, rb)
}

// runCtxls runs the binary with args and returns its standard output.
func runCtxls(ctx context.Context, t *testing.T, bin, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctxls %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func cliAnswers(ctx context.Context, t *testing.T, bin, dir string) frontendAnswers {
	var a frontendAnswers
	var cat struct {
		Entries   []frontendEntry `json:"entries"`
		Tokenizer string          `json:"tokenizer"`
	}
	if err := json.Unmarshal(runCtxls(ctx, t, bin, dir, "catalog", "--format", "json", dir), &cat); err != nil {
		t.Fatal(err)
	}
	if cat.Tokenizer == "" {
		t.Fatal("the catalog names no tokenizer")
	}
	a.catalog, a.tokenizer = cat.Entries, cat.Tokenizer
	a.search = map[string][]frontendEntry{}
	for _, q := range frontendQueries {
		var res struct {
			Items []frontendEntry `json:"items"`
		}
		if err := json.Unmarshal(runCtxls(ctx, t, bin, dir, "search", q, "--format", "json", dir), &res); err != nil {
			t.Fatal(err)
		}
		a.search[q] = res.Items
	}
	// In the catalog's tokenizer, so that the figures compare.
	a.cost = runCtxls(ctx, t, bin, dir, "cost", "--format", "json", "--tokenizer", "o200k_base", dir)
	a.costText = string(runCtxls(ctx, t, bin, dir, "cost", "--tokenizer", "o200k_base", dir))
	a.preview = new(chainPreview)
	if err := json.Unmarshal(runCtxls(ctx, t, bin, dir, "chain", "preview", "ship", "--input", previewInput, "--format", "json", "--dir", dir), a.preview); err != nil {
		t.Fatal(err)
	}
	return a
}

// mcpConnect starts `ctxls mcp` on dir and connects a client to it, closed
// when the test ends.
func mcpConnect(ctx context.Context, t *testing.T, bin, dir string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--dir", dir)
	cmd.Dir = dir
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "frontends", Version: "test"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to ctxls mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mcpCall calls tool, decodes its structured result into out and returns
// its text.
func mcpCall(ctx context.Context, t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("mcp %s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("mcp %s: %v", tool, res.Content)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("mcp %s: %v", tool, err)
	}
	return text
}

func mcpAnswers(ctx context.Context, t *testing.T, bin, dir string) frontendAnswers {
	cs := mcpConnect(ctx, t, bin, dir)
	var text string // of the last call
	call := func(tool string, args map[string]any, out any) {
		t.Helper()
		text = mcpCall(ctx, t, cs, tool, args, out)
	}
	var a frontendAnswers
	var cat struct {
		Entries []frontendEntry `json:"entries"`
	}
	call("catalog", map[string]any{}, &cat)
	a.catalog = cat.Entries
	a.search = map[string][]frontendEntry{}
	for _, q := range frontendQueries {
		var res struct {
			Results []frontendEntry `json:"results"`
		}
		call("search", map[string]any{"query": q}, &res)
		a.search[q] = res.Results
	}
	call("session_cost", map[string]any{"agent": "claude", "tokenizer": "o200k_base"}, &a.cost)
	a.costText = text
	return a
}

func lspAnswers(ctx context.Context, t *testing.T, bin, dir string) frontendAnswers {
	c := StartClient(t, dir, bin, "serve", "--stdio")
	if _, err := c.Initialize(ctx, dir, nil, nil); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	var a frontendAnswers
	var cat struct {
		Entries []frontendEntry `json:"entries"`
	}
	if err := c.Call(ctx, "ctxls/inventory", map[string]any{}, &a.editor.Inventory); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(a.editor.Inventory, &cat); err != nil {
		t.Fatal(err)
	}
	a.catalog = cat.Entries
	a.search = map[string][]frontendEntry{}
	a.editor.Search = map[string]json.RawMessage{}
	for _, q := range frontendQueries {
		var raw json.RawMessage
		if err := c.Call(ctx, "ctxls/inventory/search", map[string]any{"query": q}, &raw); err != nil {
			t.Fatal(err)
		}
		var res struct {
			Items []frontendEntry `json:"items"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		a.editor.Search[q] = raw
		a.search[q] = res.Items
	}
	if err := c.Call(ctx, "ctxls/sessionCost", map[string]any{"agent": "claude", "tokenizer": "o200k_base"}, &a.cost); err != nil {
		t.Fatal(err)
	}
	a.preview = new(chainPreview)
	if err := c.Call(ctx, "ctxls/chain/preview", map[string]any{"commands": []string{"ship"}, "input": previewInput}, a.preview); err != nil {
		t.Fatal(err)
	}
	a.symbols = map[string][]string{}
	for _, q := range []string{"", "deploy"} {
		var syms []struct {
			Name      string `json:"name"`
			Container string `json:"containerName"`
		}
		if err := c.Call(ctx, "workspace/symbol", map[string]any{"query": q}, &syms); err != nil {
			t.Fatal(err)
		}
		for _, sym := range syms {
			a.symbols[q] = append(a.symbols[q], sym.Name+" in "+sym.Container)
		}
	}
	return a
}
