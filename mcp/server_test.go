package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// section returns a level-two section of about n words.
func section(name string, n int) string {
	return "## " + name + "\n\n" + strings.Repeat(strings.ToLower(name)+" detail ", n/2) + "\n\n"
}

// fixture is a small workspace: two domains, a root topic, a command and
// a note outside the context root.
func fixture() map[string]string {
	return map[string]string{
		"context/web/api.md": "---\ntitle: API Design\ntags: [http, rest]\n---\n\n# API Design\n\nIntro line.\n\n" +
			section("Routing", 40) + section("Errors", 200) + section("Security", 60),
		"context/web/index.md":               "# Web\n\n- [API](api.md)\n",
		"context/ops/deploy.md":              "---\ntitle: Deploying\ntags: [release]\n---\n\n# Deploying\n\n" + section("Rollback", 30),
		"context/loading_protocol.md":        "# Loading protocol\n\n## Step 1: Read the index\n\nRead it.\n",
		"commands/implement.md":              "# Implement\n\nLoad web:api first.\n",
		"notes/todo.md":                      "# Todo\n\nShip it.\n",
		"commands/review.md":                 "# Review\n\nLoad web:nope first.\n",
		".claude/skills/deploy-app/SKILL.md": "---\nname: deploy-app\ndescription: Deploys the app. Use when asked to ship.\n---\n\n# Deploy\n\nRun make deploy.\n",
		".claude/rules/style.md":             "# Style\n\nTabs, not spaces.\n",
		"CLAUDE.md":                          "# Project\n\nSee @notes/todo.md for what is left.\n",
	}
}

// connect starts a server over dir and a client session to it.
func connect(t *testing.T, dir string, opts *sdk.ClientOptions) (*Server, *sdk.ClientSession) {
	t.Helper()
	ctx := t.Context()
	srv, err := New(ctx, Options{Dir: dir, Version: "test", Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.srv.Connect(ctx, st, nil); err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "test"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

// call calls a tool and decodes its structured content into out, which
// may be nil. It returns the result's text and whether it is an error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		validateOutput(t, cs, name, b)
		if out != nil {
			if err := json.Unmarshal(b, out); err != nil {
				t.Fatalf("%s: structured content %s: %v", name, b, err)
			}
		}
	}
	return text.String(), res.IsError
}

// validateOutput fails unless structured, a tool's structured content,
// is valid against the output schema the server lists for the tool, as a
// client that checks it (the TypeScript SDK's does) finds it: an empty
// list must come as [], not null, now that the schemas say "array".
func validateOutput(t *testing.T, cs *sdk.ClientSession, name string, structured []byte) {
	t.Helper()
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != name {
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s: output schema: %v", name, err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema: %v", name, err)
		}
		var v any
		if err := json.Unmarshal(structured, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: structured content is not valid against the output schema: %v\n%.600s", name, err, structured)
		}
		return
	}
	t.Fatalf("no tool %s listed", name)
}

// toolCase is one call of a table test: a tool's arguments and, when the
// call must fail, what its error says.
type toolCase struct {
	name   string
	args   map[string]any
	errHas string
}

func (c toolCase) call() toolCase { return c }

// runToolCases calls tool once for each case in a subtest of its own and
// hands the structured result of each call that must succeed to check.
// No answer may hold the secret of outsideFixture.
func runToolCases[C interface{ call() toolCase }, Out any](t *testing.T, cs *sdk.ClientSession, tool string, cases []C, check func(t *testing.T, tt C, text string, out *Out)) {
	t.Helper()
	for _, tt := range cases {
		c := tt.call()
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out Out
			text, isErr := call(t, cs, tool, c.args, &out)
			if strings.Contains(text, "TOP-SECRET") {
				t.Fatalf("content from outside the root: %q", text)
			}
			if wantResult(t, text, isErr, c.errHas) {
				check(t, tt, text, &out)
			}
		})
	}
}

// wantResult fails unless a result is an error containing errHas, when
// errHas is set, or no error otherwise; it returns true when the case has
// a result to check further.
func wantResult(t *testing.T, text string, isErr bool, errHas string) bool {
	t.Helper()
	if errHas != "" {
		if !isErr || !strings.Contains(text, errHas) {
			t.Fatalf("got error=%v %q, want an error containing %q", isErr, text, errHas)
		}
		return false
	}
	if isErr {
		t.Fatalf("unexpected error: %s", text)
	}
	return true
}

// writeWhole writes a file as editors save one, through a temporary file
// renamed over it: the watcher never sees it created empty or half
// written, which it would report, on a loaded machine, as a change of its
// own.
func writeWhole(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp~"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// keyed returns entries by the key that of gives each, and the sum of the
// tokens it gives them.
func keyed[E any](entries []E, of func(E) (key string, tokens int)) (map[string]E, int) {
	m := make(map[string]E, len(entries))
	sum := 0
	for _, e := range entries {
		k, n := of(e)
		m[k] = e
		sum += n
	}
	return m, sum
}

// readAfterChange waits for notifications on changed until the resource
// at uri can be read, and returns its text.
func readAfterChange(t *testing.T, cs *sdk.ClientSession, changed <-chan struct{}, uri string) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no notifications/resources/list_changed that makes %s readable within 30 s", uri)
		}
		res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			continue // a change notified before the new file was applied
		}
		return res.Contents[0].Text
	}
}

// outsideFixture writes the fixture and, next to it, a secret file that
// a link inside the context root points to.
func outsideFixture(t *testing.T) (dir, secret string) {
	t.Helper()
	secret = fsguardtest.Outside(t, "secret.md", "# Secret\n\nTOP-SECRET-CONTENT\n")
	dir = libtest.WriteTree(t, fixture())
	if err := os.Symlink(secret, filepath.Join(dir, "context", "web", "leak.md")); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	return dir, secret
}

// outsideWorkspace is a server over outsideFixture and a client session
// to it, shared by the tests of TestTools.
type outsideWorkspace struct {
	cs          *sdk.ClientSession
	dir, secret string
}

// TestTools calls each tool, and reads the resources, on one server over
// the fixture that has a link out of its root: no answer may show what
// lies outside.
func TestTools(t *testing.T) {
	t.Parallel()
	dir, secret := outsideFixture(t)
	_, cs := connect(t, dir, nil)
	runSubtests(t, outsideWorkspace{cs: cs, dir: dir, secret: secret}, []subtest[outsideWorkspace]{
		{"catalog", testCatalog},
		{"search", testSearch},
		{"load_context", testLoadContext},
		{"check", testCheck},
		{"resources", testResources},
	})
}

// subtest is a named test of a value that several tests share.
type subtest[W any] struct {
	name string
	test func(*testing.T, W)
}

// runSubtests runs each test in a parallel subtest of its own on the
// shared w.
func runSubtests[W any](t *testing.T, w W, tests []subtest[W]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, w)
		})
	}
}

func TestToolsList(t *testing.T) {
	t.Parallel()
	_, cs := connect(t, libtest.WriteTree(t, fixture()), nil)
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s lacks an input or output schema", tool.Name)
		}
		// Every type of the input and the output schema is one plain
		// JSON Schema type, as every client accepts; never a list such
		// as ["null","array"].
		for part, s := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var schema any
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			n := 0
			for where, typ := range schemaTypes(schema, tool.Name+" "+part) {
				n++
				if s, ok := typ.(string); !ok || !slices.Contains([]string{"object", "array", "string", "integer", "number", "boolean"}, s) {
					t.Errorf("%s: type %v, want one plain type", where, typ)
				}
			}
			if n == 0 {
				t.Errorf("%s %s schema names no type: %s", tool.Name, part, raw)
			}
		}
		names = append(names, tool.Name)
	}
	want := []string{"catalog", "check", "load_context", "search", "session_cost"}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("tools %v lack %s", names, w)
		}
	}
}

// TestToolsOutputsEmpty calls every tool where its lists are empty (an
// empty workspace, a query that matches nothing, a budget that fits
// nothing), and the call helper
// checks each answer against the tool's output schema: no list may come
// as null where the schema says array.
func TestToolsOutputsEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  string
		args  map[string]any
		topic bool // the call needs the topic web:api
	}{
		{"catalog", map[string]any{}, false},
		{"search", map[string]any{"query": "nothing-matches-this"}, false},
		{"check", map[string]any{}, false},
		{"load_context", map[string]any{"refs": []string{"web:api"}, "budgetTokens": 1}, true},
		{"session_cost", map[string]any{"agent": "claude"}, false},
		{"session_cost", map[string]any{"agent": "all"}, false},
	}
	for _, tree := range []map[string]string{{}, {"context/web/api.md": "# API\n\nVerbs.\n"}} {
		_, cs := connect(t, libtest.WriteTree(t, tree), nil)
		for _, tt := range tests {
			if tt.topic && len(tree) == 0 {
				continue
			}
			if text, isErr := call(t, cs, tt.tool, tt.args, nil); isErr {
				t.Errorf("%s %v over %d files: %s", tt.tool, tt.args, len(tree), text)
			}
		}
	}
}

// schemaTypes yields the "type" of every schema under v, a decoded JSON
// Schema, by where it is.
func schemaTypes(v any, where string) iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		// names says v maps names to schemas (properties, $defs), so that
		// a property called type is not read as a type.
		var walk func(v any, where string, names bool) bool
		walk = func(v any, where string, names bool) bool {
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					if k == "type" && !names {
						if !yield(where, c) {
							return false
						}
						continue
					}
					if !walk(c, where+"."+k, !names && (k == "properties" || k == "$defs" || k == "definitions")) {
						return false
					}
				}
			case []any:
				for i, c := range v {
					if !walk(c, fmt.Sprintf("%s[%d]", where, i), false) {
						return false
					}
				}
			}
			return true
		}
		walk(v, where, false)
	}
}

func testCatalog(t *testing.T, w outsideWorkspace) {
	type catalogCase struct {
		toolCase
		want    []string // references that must be listed
		notWant []string
	}
	tests := []catalogCase{
		{toolCase{"all", map[string]any{}, ""}, []string{"web:api", "ops:deploy", "loading_protocol", "commands/implement.md", "deploy-app", ".claude/rules/style.md"}, []string{"web:leak"}},
		{toolCase{"kind skill", map[string]any{"kind": "skill"}, ""}, []string{"deploy-app"}, []string{"web:api", "commands/implement.md"}},
		{toolCase{"kind rule", map[string]any{"kind": "rule"}, ""}, []string{".claude/rules/style.md"}, []string{"deploy-app"}},
		{toolCase{"domain", map[string]any{"domain": "ops"}, ""}, []string{"ops:deploy"}, []string{"web:api", "commands/implement.md"}},
		{toolCase{"kind command", map[string]any{"kind": "command"}, ""}, []string{"commands/implement.md"}, []string{"web:api"}},
		{toolCase{"kind topic", map[string]any{"kind": "topic"}, ""}, []string{"web:api"}, []string{"commands/implement.md"}},
		{toolCase{"unknown domain", map[string]any{"domain": "wbe"}, `domain "wbe" not found`}, nil, nil},
		{toolCase{"escaping domain", map[string]any{"domain": "../x"}, "escapes the context root"}, nil, nil},
		{toolCase{"unknown kind", map[string]any{"kind": "widget"}, `unknown kind "widget"`}, nil, nil},
		{toolCase{"wrong type", map[string]any{"domain": 3}, "domain"}, nil, nil},
	}
	runToolCases(t, w.cs, "catalog", tests, func(t *testing.T, tt catalogCase, text string, out *CatalogOutput) {
		refs, sum := keyed(out.Entries, func(e CatalogEntry) (string, int) { return e.Reference, e.Tokens })
		for _, w := range tt.want {
			e, ok := refs[w]
			if !ok {
				t.Errorf("catalog lacks %s: %v", w, out.Entries)
				continue
			}
			if e.Tokens <= 0 || e.Kind == "" || e.Title == "" {
				t.Errorf("entry %+v lacks tokens, kind or title", e)
			}
			if !strings.Contains(text, w) {
				t.Errorf("text block lacks %s", w)
			}
		}
		for _, nw := range tt.notWant {
			if _, ok := refs[nw]; ok {
				t.Errorf("catalog lists %s", nw)
			}
		}
		if sum != out.Tokens {
			t.Errorf("tokens %d, entries sum to %d", out.Tokens, sum)
		}
	})
}

func testSearch(t *testing.T, w outsideWorkspace) {
	type searchCase struct {
		toolCase
		first string
		count int
	}
	tests := []searchCase{
		{toolCase{"tag", map[string]any{"query": "rest"}, ""}, "web:api", 1},
		{toolCase{"link out of the root not listed", map[string]any{"query": "secret"}, ""}, "", 0},
		// The topic's title and the skill's name, equally.
		{toolCase{"title and skill name", map[string]any{"query": "deploying"}, ""}, "deploy-app", 2},
		{toolCase{"skill description", map[string]any{"query": "ship"}, ""}, "deploy-app", 1},
		{toolCase{"one kind", map[string]any{"query": "deploying", "kind": "topic"}, ""}, "ops:deploy", 1},
		{toolCase{"domain filter", map[string]any{"query": "rest", "domain": "ops"}, ""}, "", 0},
		{toolCase{"limit", map[string]any{"query": "api deploying", "limit": 1}, ""}, "", 1},
		{toolCase{"no match", map[string]any{"query": "kubernetes"}, ""}, "", 0},
		{toolCase{"empty query", map[string]any{"query": "  "}, "query is required"}, "", 0},
		{toolCase{"missing query", map[string]any{}, "query"}, "", 0},
		{toolCase{"negative limit", map[string]any{"query": "api", "limit": -1}, "negative"}, "", 0},
		{toolCase{"unknown domain", map[string]any{"query": "api", "domain": "nope"}, `domain "nope" not found`}, "", 0},
		{toolCase{"escaping domain", map[string]any{"query": "api", "domain": "/etc"}, "absolute path"}, "", 0},
	}
	runToolCases(t, w.cs, "search", tests, func(t *testing.T, tt searchCase, _ string, out *SearchOutput) {
		if len(out.Results) != tt.count {
			t.Fatalf("%d results, want %d: %+v", len(out.Results), tt.count, out.Results)
		}
		if tt.first != "" {
			r := out.Results[0]
			if r.Reference != tt.first || r.Relevance <= 0 || r.Relevance > 1 || len(r.MatchedOn) == 0 || r.Tokens <= 0 {
				t.Errorf("first result %+v, want %s with relevance in (0,1], matchedOn and tokens", r, tt.first)
			}
		}
	})
}

func testLoadContext(t *testing.T, w outsideWorkspace) {
	type loadCase struct {
		toolCase
		loaded  []string
		omitted []string
		has     []string // in the text
	}
	tests := []loadCase{
		{toolCase{"topic", map[string]any{"refs": []string{"ops:deploy"}}, ""}, []string{"ops:deploy"}, nil, []string{"rollback detail"}},
		{toolCase{"section", map[string]any{"refs": []string{"web:api#security"}}, ""}, []string{"web:api#Security"}, nil, []string{"security detail"}},
		{toolCase{"root topic", map[string]any{"refs": []string{"loading_protocol"}}, ""}, []string{"loading_protocol"}, nil, []string{"Read it."}},
		{toolCase{"slash form", map[string]any{"refs": []string{"ops/deploy"}}, ""}, []string{"ops:deploy"}, nil, nil},
		{toolCase{"path of a topic", map[string]any{"refs": []string{"context/ops/deploy.md"}}, ""}, []string{"ops:deploy"}, nil, nil},
		{toolCase{"path of a note", map[string]any{"refs": []string{"notes/todo.md"}}, ""}, []string{"notes/todo.md"}, nil, []string{"Ship it."}},
		{toolCase{"skill", map[string]any{"refs": []string{"deploy-app"}}, ""}, []string{"deploy-app"}, nil, []string{"Run make deploy."}},
		{toolCase{"path of a rule", map[string]any{"refs": []string{".claude/rules/style.md"}}, ""}, []string{".claude/rules/style.md"}, nil, []string{"Tabs, not spaces."}},
		{toolCase{"section of a skill", map[string]any{"refs": []string{"deploy-app#Deploy"}}, "is a skill"}, nil, nil, nil},
		{toolCase{"unknown name", map[string]any{"refs": []string{"deploy-ap"}}, "no topic or skill has that name"}, nil, nil, nil},
		{toolCase{"absolute path inside", map[string]any{"refs": []string{filepath.Join(w.dir, "notes", "todo.md")}}, ""}, []string{"notes/todo.md"}, nil, nil},
		{toolCase{"order kept", map[string]any{"refs": []string{"ops:deploy", "web:api#Routing"}}, ""}, []string{"ops:deploy", "web:api#Routing"}, nil, nil},
		{toolCase{"duplicate", map[string]any{"refs": []string{"web:api", "web:api#Errors"}}, ""}, []string{"web:api"}, []string{"web:api#Errors"}, nil},
		{toolCase{"empty refs", map[string]any{"refs": []string{}}, "refs is empty"}, nil, nil, nil},
		{toolCase{"missing refs", map[string]any{}, "refs"}, nil, nil, nil},
		{toolCase{"unknown topic", map[string]any{"refs": []string{"web:apii"}}, "did you mean api?"}, nil, nil, nil},
		{toolCase{"unknown domain", map[string]any{"refs": []string{"wbe:api"}}, `domain "wbe" not found`}, nil, nil, nil},
		{toolCase{"unknown section", map[string]any{"refs": []string{"web:api#Securty"}}, "did you mean Security?"}, nil, nil, nil},
		{toolCase{"no section after #", map[string]any{"refs": []string{"web:api#"}}, "names no section"}, nil, nil, nil},
		{toolCase{"no topic", map[string]any{"refs": []string{"web:"}}, "names no topic"}, nil, nil, nil},
		{toolCase{"one bad ref fails all", map[string]any{"refs": []string{"ops:deploy", "nope:x"}}, "nope"}, nil, nil, nil},
		{toolCase{"negative budget", map[string]any{"refs": []string{"ops:deploy"}, "budgetTokens": -5}, "out of range"}, nil, nil, nil},
		{toolCase{"budget over the most", map[string]any{"refs": []string{"ops:deploy"}, "budgetTokens": 2000000}, "out of range"}, nil, nil, nil},
		{toolCase{"too many refs", map[string]any{"refs": slices.Repeat([]string{"ops:deploy"}, 300)}, "at most 256"}, nil, nil, nil},
		{toolCase{"section of a note", map[string]any{"refs": []string{"notes/todo.md#Todo"}}, "not a topic"}, nil, nil, nil},
		{toolCase{"not markdown of the workspace", map[string]any{"refs": []string{"notes/missing.md"}}, "not a markdown file of the workspace"}, nil, nil, nil},
		{toolCase{"dot-dot out of the root", map[string]any{"refs": []string{"../" + filepath.Base(filepath.Dir(w.secret)) + "/secret.md"}}, "outside the workspace"}, nil, nil, nil},
		{toolCase{"absolute path outside", map[string]any{"refs": []string{w.secret}}, "outside the workspace"}, nil, nil, nil},
		{toolCase{"topic name escaping", map[string]any{"refs": []string{"web:../../x"}}, "escapes"}, nil, nil, nil},
		{toolCase{"link out of the root by name", map[string]any{"refs": []string{"web:leak"}}, "escapes"}, nil, nil, nil},
		{toolCase{"link out of the root by path", map[string]any{"refs": []string{"context/web/leak.md"}}, "outside the workspace"}, nil, nil, nil},
		{toolCase{"NUL", map[string]any{"refs": []string{"web:api\x00"}}, "NUL"}, nil, nil, nil},
	}
	runToolCases(t, w.cs, "load_context", tests, func(t *testing.T, tt loadCase, text string, out *ops.LoadContextResult) {
		var got, omitted []string
		sum := 0
		for _, l := range out.Loaded {
			got = append(got, l.Ref)
			sum += l.Tokens
		}
		for _, o := range out.Omitted {
			omitted = append(omitted, o.Ref)
		}
		if !slices.Equal(got, tt.loaded) || !slices.Equal(omitted, tt.omitted) {
			t.Fatalf("loaded %v omitted %v, want %v and %v", got, omitted, tt.loaded, tt.omitted)
		}
		for _, h := range tt.has {
			if !strings.Contains(out.Text, h) || !strings.Contains(text, h) {
				t.Errorf("text lacks %q:\n%s", h, out.Text)
			}
		}
		if out.Tokens <= 0 || out.Tokens > sum+len(out.Loaded) {
			t.Errorf("tokens %d, pieces sum to %d", out.Tokens, sum)
		}
	})
}

// TestLoadContextBudget checks that the budget is hard, that a topic too
// large for it is cut to the sections that fit, and that refs keep their
// order.
func TestLoadContextBudget(t *testing.T) {
	t.Parallel()
	_, cs := connect(t, libtest.WriteTree(t, fixture()), nil)
	load := func(budget int, refs ...string) ops.LoadContextResult {
		t.Helper()
		var out ops.LoadContextResult
		text, isErr := call(t, cs, "load_context", map[string]any{"refs": refs, "budgetTokens": budget}, &out)
		if isErr {
			t.Fatalf("load %v within %d: %s", refs, budget, text)
		}
		if out.Tokens > budget {
			t.Fatalf("tokens %d over the budget %d", out.Tokens, budget)
		}
		return out
	}
	whole := load(100000, "web:api", "ops:deploy")
	if len(whole.Loaded) != 2 || len(whole.Omitted) != 0 {
		t.Fatalf("with room for all: loaded %v, omitted %v", whole.Loaded, whole.Omitted)
	}
	api, deploy := whole.Loaded[0].Tokens, whole.Loaded[1].Tokens

	// Room for the deploy topic and api's small sections, not for its
	// large Errors section: api is cut, not dropped, and deploy, asked
	// for after it, still comes.
	budget := deploy + api/2
	cut := load(budget, "web:api", "ops:deploy")
	var loaded []string
	for _, l := range cut.Loaded {
		loaded = append(loaded, l.Ref)
	}
	if want := []string{"web:api#Routing", "web:api#Security", "ops:deploy"}; !slices.Equal(loaded, want) {
		t.Errorf("within %d: loaded %v, want %v (omitted %v)", budget, loaded, want, cut.Omitted)
	}
	if len(cut.Omitted) != 1 || cut.Omitted[0].Ref != "web:api#Errors" || !strings.Contains(cut.Omitted[0].Reason, "over budget") || cut.Omitted[0].Tokens <= 0 {
		t.Errorf("within %d: omitted %+v, want web:api#Errors over budget", budget, cut.Omitted)
	}
	if strings.Contains(cut.Text, "errors detail") {
		t.Errorf("the omitted section's text was returned")
	}

	// A budget below every piece loads nothing and says why.
	none := load(3, "web:api#Routing", "ops:deploy")
	if len(none.Loaded) != 0 || len(none.Omitted) != 2 || none.Tokens != 0 || none.Text != "" {
		t.Errorf("within 3: %+v", none)
	}

	// Every budget from tiny to ample stays within bounds.
	for b := 1; b < api+deploy+50; b += 37 {
		load(b, "web:api", "ops:deploy", "loading_protocol")
	}
}

func testResources(t *testing.T, w outsideWorkspace) {
	ctx := t.Context()
	var uris []string
	for r, err := range w.cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Name == "" || r.MIMEType != markdownMIME || !strings.Contains(r.Description, "tokens") {
			t.Errorf("resource %+v lacks a name, type or token count", r)
		}
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"ctxls://topics/web/api", "ctxls://topics/ops/deploy", "ctxls://topics/loading_protocol", "ctxls://skills/deploy-app"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources %v lack %s", uris, want)
		}
	}
	var templates []string
	for rt, err := range w.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	if !slices.Equal(templates, []string{sectionTemplate}) {
		t.Errorf("templates %v", templates)
	}

	tests := []struct {
		uri    string
		has    string
		hasNot string
		errHas string
	}{
		{"ctxls://topics/web/api", "routing detail", "title: API Design", ""},
		{sectionURI("web/api", "Security"), "security detail", "routing detail", ""},
		{"ctxls://topics/web/api?section=security", "security detail", "", ""},
		{"ctxls://topics/web/api?section=Nope", "", "", "not found"},
		{"ctxls://skills/deploy-app", "Run make deploy.", "description:", ""},
		{"ctxls://skills/nope", "", "", "not found"},
		{"ctxls://skills/..%2F..%2Fetc", "", "", "not found"},
		{"ctxls://topics/web/nope", "", "", "not found"},
		{"ctxls://topics/web/leak", "", "", "not found"},
		{"ctxls://topics/web/..%2F..%2Fetc%2Fpasswd", "", "", "not found"},
		{"ctxls://topics/", "", "", "not found"},
		{"ctxls://other/web/api", "", "", "not found"},
		{"file:///etc/passwd", "", "", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			t.Parallel()
			res, err := w.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: tt.uri})
			if tt.errHas != "" {
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), tt.errHas) {
					t.Fatalf("read %s: %v, want an error containing %q", tt.uri, err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("read %s: %v", tt.uri, err)
			}
			if len(res.Contents) != 1 {
				t.Fatalf("%d contents", len(res.Contents))
			}
			text := res.Contents[0].Text
			if !strings.Contains(text, tt.has) || tt.hasNot != "" && strings.Contains(text, tt.hasNot) {
				t.Errorf("read %s: %q, want %q without %q", tt.uri, text, tt.has, tt.hasNot)
			}
		})
	}
}

// TestResourceListChanged checks that a topic written to disk becomes a
// resource and that the client is told the list changed.
func TestResourceListChanged(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, fixture())
	changed := make(chan struct{}, 16)
	_, cs := connect(t, dir, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			changed <- struct{}{}
		},
	})
	writeWhole(t, filepath.Join(dir, "context", "ops", "monitoring.md"), "# Monitoring\n\nWatch it.\n")
	const uri = "ctxls://topics/ops/monitoring"
	if text := readAfterChange(t, cs, changed, uri); !strings.Contains(text, "Watch it.") {
		t.Fatalf("read %s: %q", uri, text)
	}
	for r, err := range cs.Resources(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if r.URI == uri {
			return
		}
	}
	t.Errorf("resources/list lacks %s after the change", uri)
}

func testCheck(t *testing.T, w outsideWorkspace) {
	type checkCase struct {
		toolCase
		files []string // files with diagnostics; all must be among them
	}
	tests := []checkCase{
		{toolCase{"workspace", map[string]any{}, ""}, []string{"commands/review.md"}},
		{toolCase{"one file", map[string]any{"path": "commands/review.md"}, ""}, []string{"commands/review.md"}},
		{toolCase{"a clean file", map[string]any{"path": "notes/todo.md"}, ""}, nil},
		{toolCase{"a folder", map[string]any{"path": "commands"}, ""}, []string{"commands/review.md"}},
		{toolCase{"absolute inside", map[string]any{"path": filepath.Join(w.dir, "commands", "review.md")}, ""}, []string{"commands/review.md"}},
		{toolCase{"missing file", map[string]any{"path": "commands/nope.md"}, "does not exist"}, nil},
		{toolCase{"outside by dot-dot", map[string]any{"path": "../x.md"}, "outside the workspace"}, nil},
		{toolCase{"outside absolute", map[string]any{"path": w.secret}, "outside the workspace"}, nil},
		{toolCase{"wrong type", map[string]any{"path": 7}, "path"}, nil},
	}
	runToolCases(t, w.cs, "check", tests, func(t *testing.T, tt checkCase, _ string, out *ops.CheckResponse) {
		files := map[string]bool{}
		errs := 0
		for _, d := range out.Items {
			files[d.File] = true
			if d.Line < 1 || d.Column < 1 || d.Code == "" || d.Message == "" {
				t.Errorf("diagnostic %+v lacks a position, code or message", d)
			}
			if d.Severity == "error" {
				errs++
			}
		}
		for _, f := range tt.files {
			if !files[f] {
				t.Errorf("no diagnostic of %s in %+v", f, out.Items)
			}
		}
		if tt.files == nil && len(out.Items) > 0 {
			t.Errorf("diagnostics of a clean path: %+v", out.Items)
		}
		if errs != out.Errors {
			t.Errorf("errors %d, items hold %d", out.Errors, errs)
		}
	})
	var out ops.CheckResponse
	call(t, w.cs, "check", map[string]any{"path": "commands/review.md"}, &out)
	if len(out.Items) == 0 || out.Items[0].Code != "unresolved-reference" || out.Items[0].Line != 3 {
		t.Errorf("check of commands/review.md: %+v, want unresolved-reference on line 3", out.Items)
	}
}

func TestSessionCost(t *testing.T) {
	t.Parallel()
	_, cs := connect(t, libtest.WriteTree(t, fixture()), nil)
	type costCase struct {
		toolCase
		always []string
	}
	tests := []costCase{
		{toolCase{"claude", map[string]any{"agent": "claude"}, ""}, []string{"CLAUDE.md", "notes/todo.md", ".claude/rules/style.md", ".claude/skills/deploy-app/SKILL.md"}},
		{toolCase{"claude small window", map[string]any{"agent": "claude", "contextWindow": 1000}, ""}, []string{"CLAUDE.md"}},
		{toolCase{"codex", map[string]any{"agent": "codex"}, ""}, nil},
		{toolCase{"unknown agent", map[string]any{"agent": "vim"}, `agent must be one of claude, codex, gemini, cursor, copilot, windsurf, cline, kiro, opencode, all, not "vim"`}, nil},
		{toolCase{"missing agent", map[string]any{}, "agent"}, nil},
		{toolCase{"negative window", map[string]any{"agent": "claude", "contextWindow": -1}, "negative"}, nil},
	}
	// costOutput is what the test reads of session_cost's answer, by the
	// JSON names an agent reads.
	type costEntry struct {
		File   string `json:"file"`
		Tokens int    `json:"tokens"`
	}
	type costOutput struct {
		Agent             string      `json:"agent"`
		AlwaysLoaded      []costEntry `json:"alwaysLoaded"`
		TotalAlwaysLoaded int         `json:"totalAlwaysLoaded"`
	}
	runToolCases(t, cs, "session_cost", tests, func(t *testing.T, tt costCase, _ string, out *costOutput) {
		files, sum := keyed(out.AlwaysLoaded, func(e costEntry) (string, int) { return e.File, e.Tokens })
		for _, f := range tt.always {
			if _, ok := files[f]; !ok {
				t.Errorf("alwaysLoaded lacks %s: %+v", f, out.AlwaysLoaded)
			}
		}
		if out.Agent != tt.args["agent"] || sum != out.TotalAlwaysLoaded {
			t.Errorf("agent %q, total %d, entries sum to %d", out.Agent, out.TotalAlwaysLoaded, sum)
		}
	})

	// Agent all answers a column per configured agent, each with its own
	// files and total, and the text, ctxls cost's table, heads a column
	// with each.
	var all struct {
		Agent        string       `json:"agent"`
		AlwaysLoaded []costEntry  `json:"alwaysLoaded"`
		Agents       []costOutput `json:"agents"`
	}
	text, isErr := call(t, cs, "session_cost", map[string]any{"agent": "all"}, &all)
	if isErr {
		t.Fatalf("session_cost all: %s", text)
	}
	if all.Agent != "all" || len(all.AlwaysLoaded) != 0 || len(all.Agents) == 0 {
		t.Fatalf("session_cost all: agent %q, %d top-level entries, %d columns", all.Agent, len(all.AlwaysLoaded), len(all.Agents))
	}
	var claude *costOutput
	for i, col := range all.Agents {
		files, sum := keyed(col.AlwaysLoaded, func(e costEntry) (string, int) { return e.File, e.Tokens })
		if sum != col.TotalAlwaysLoaded {
			t.Errorf("column %s: total %d, entries sum to %d", col.Agent, col.TotalAlwaysLoaded, sum)
		}
		if header, _, _ := strings.Cut(text, "\n"); !slices.Contains(strings.Fields(header), col.Agent) {
			t.Errorf("text does not head a column %s:\n%s", col.Agent, text)
		}
		if col.Agent == "claude" {
			claude = &all.Agents[i]
			if _, ok := files["CLAUDE.md"]; !ok {
				t.Errorf("claude column lacks CLAUDE.md: %+v", col.AlwaysLoaded)
			}
		}
	}
	if claude == nil {
		t.Errorf("no claude column in %+v", all.Agents)
	}
}

func TestTopicURI(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, section, want string }{
		{"python/fastapi_patterns", "", "ctxls://topics/python/fastapi_patterns"},
		{"loading_protocol", "", "ctxls://topics/loading_protocol"},
		{"a b/c#d", "", "ctxls://topics/a%20b/c%23d"},
		{"python/fastapi_patterns", "Security Issues", "ctxls://topics/python/fastapi_patterns?section=Security+Issues"},
	}
	for _, tt := range tests {
		got := topicURI(tt.id)
		if tt.section != "" {
			got = sectionURI(tt.id, tt.section)
		}
		if got != tt.want {
			t.Errorf("URI(%q, %q) = %q, want %q", tt.id, tt.section, got, tt.want)
		}
		id, sec, err := parseTopicURI(got)
		if err != nil || id != tt.id || sec != tt.section {
			t.Errorf("parseTopicURI(%q) = %q, %q, %v; want %q, %q", got, id, sec, err, tt.id, tt.section)
		}
	}
}

// TestCheckFollowsDisk checks that the diagnostics a check keeps between
// calls follow changes on disk, including those of a file that refers to
// a topic that went.
func TestCheckFollowsDisk(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, fixture())
	_, cs := connect(t, dir, nil)
	has := func(file, code string) bool {
		var out ops.CheckResponse
		if text, isErr := call(t, cs, "check", map[string]any{}, &out); isErr {
			t.Fatalf("check: %s", text)
		}
		for _, d := range out.Items {
			if d.File == file && d.Code == code {
				return true
			}
		}
		return false
	}
	if has("commands/implement.md", "unresolved-reference") {
		t.Fatal("commands/implement.md has an unresolved reference before any change")
	}
	if err := os.Remove(filepath.Join(dir, "context", "web", "api.md")); err != nil {
		t.Fatal(err)
	}
	watchertest.WaitFor(t, "commands/implement.md reports web:api unresolved after api.md went", func() bool {
		return has("commands/implement.md", "unresolved-reference")
	})
	writeWhole(t, filepath.Join(dir, "commands", "review.md"), "# Review\n\nLoad ops:deploy first.\n")
	watchertest.WaitFor(t, "commands/review.md is clean after its fix", func() bool {
		return !has("commands/review.md", "unresolved-reference")
	})
}

// TestSkillFollowsDisk checks that a skill written into .claude, a folder
// the workspace's watcher skips, becomes a resource and a catalog entry.
func TestSkillFollowsDisk(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, fixture())
	changed := make(chan struct{}, 16)
	_, cs := connect(t, dir, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	p := filepath.Join(dir, ".claude", "skills", "fresh", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	writeWhole(t, p, "---\nname: fresh\ndescription: New.\n---\n\nFresh body.\n")
	if text := readAfterChange(t, cs, changed, "ctxls://skills/fresh"); !strings.Contains(text, "Fresh body.") {
		t.Fatalf("skill text %q", text)
	}
	var out CatalogOutput
	call(t, cs, "catalog", map[string]any{"kind": "skill"}, &out)
	for _, e := range out.Entries {
		if e.Reference == "fresh" {
			return
		}
	}
	t.Errorf("catalog lacks the new skill: %+v", out.Entries)
}

// TestSessionCostFollowsDisk creates a skill on disk while a client is
// connected: once the skill is served, session_cost answers with its
// listing entry and the larger total, from the same state, not the figure
// it gave before.
func TestSessionCostFollowsDisk(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, fixture())
	changed := make(chan struct{}, 16)
	_, cs := connect(t, dir, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	type costOutput struct {
		AlwaysLoaded []struct {
			File string `json:"file"`
		} `json:"alwaysLoaded"`
		TotalAlwaysLoaded int `json:"totalAlwaysLoaded"`
	}
	cost := func() (costOutput, bool) {
		t.Helper()
		var out costOutput
		if text, isErr := call(t, cs, "session_cost", map[string]any{"agent": "claude"}, &out); isErr {
			t.Fatalf("session_cost: %s", text)
		}
		return out, slices.ContainsFunc(out.AlwaysLoaded, func(e struct {
			File string `json:"file"`
		}) bool {
			return e.File == ".claude/skills/fresh/SKILL.md"
		})
	}
	before, listed := cost()
	if listed {
		t.Fatalf("the skill is costed before it exists: %+v", before)
	}
	p := filepath.Join(dir, ".claude", "skills", "fresh", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	writeWhole(t, p, "---\nname: fresh\ndescription: Use when the user asks for something fresh and new.\n---\n\nFresh body.\n")
	readAfterChange(t, cs, changed, "ctxls://skills/fresh")
	after, listed := cost()
	if !listed || after.TotalAlwaysLoaded <= before.TotalAlwaysLoaded {
		t.Errorf("session_cost once the skill is served: %d tokens (before %d), skill listed %v", after.TotalAlwaysLoaded, before.TotalAlwaysLoaded, listed)
	}
}
