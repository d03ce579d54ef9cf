package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/context/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
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
	if _, err := srv.Connect(ctx, st); err != nil {
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
	if !res.IsError && out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return text.String(), res.IsError
}

// callCase calls a tool for a table case and reports, as wantResult does,
// whether the case goes on to check a result.
func callCase(t *testing.T, cs *sdk.ClientSession, name string, args any, out any, errHas string) (string, bool) {
	t.Helper()
	text, isErr := call(t, cs, name, args, out)
	return text, wantResult(t, text, isErr, errHas)
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

// outsideFixture writes the fixture and, next to it, a secret file that
// a link inside the context root points to.
func outsideFixture(t *testing.T) (dir, secret string) {
	t.Helper()
	outside := t.TempDir()
	secret = filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("# Secret\n\nTOP-SECRET-CONTENT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = libtest.WriteTree(t, fixture())
	if err := os.Symlink(secret, filepath.Join(dir, "context", "web", "leak.md")); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	return dir, secret
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
		names = append(names, tool.Name)
	}
	want := []string{"catalog", "check", "load_context", "search", "session_cost"}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("tools %v lack %s", names, w)
		}
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	dir, _ := outsideFixture(t)
	_, cs := connect(t, dir, nil)
	tests := []struct {
		name    string
		args    map[string]any
		want    []string // references that must be listed
		notWant []string
		errHas  string
	}{
		{"all", map[string]any{}, []string{"web:api", "ops:deploy", "loading_protocol", "commands/implement.md", "deploy-app", ".claude/rules/style.md"}, []string{"web:leak"}, ""},
		{"kind skill", map[string]any{"kind": "skill"}, []string{"deploy-app"}, []string{"web:api", "commands/implement.md"}, ""},
		{"kind rule", map[string]any{"kind": "rule"}, []string{".claude/rules/style.md"}, []string{"deploy-app"}, ""},
		{"domain", map[string]any{"domain": "ops"}, []string{"ops:deploy"}, []string{"web:api", "commands/implement.md"}, ""},
		{"kind command", map[string]any{"kind": "command"}, []string{"commands/implement.md"}, []string{"web:api"}, ""},
		{"kind topic", map[string]any{"kind": "topic"}, []string{"web:api"}, []string{"commands/implement.md"}, ""},
		{"unknown domain", map[string]any{"domain": "wbe"}, nil, nil, `domain "wbe" not found`},
		{"escaping domain", map[string]any{"domain": "../x"}, nil, nil, "escapes the context root"},
		{"unknown kind", map[string]any{"kind": "widget"}, nil, nil, `unknown kind "widget"`},
		{"wrong type", map[string]any{"domain": 3}, nil, nil, "domain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out CatalogOutput
			text, ok := callCase(t, cs, "catalog", tt.args, &out, tt.errHas)
			if !ok {
				return
			}
			refs := map[string]CatalogEntry{}
			sum := 0
			for _, e := range out.Entries {
				refs[e.Reference] = e
				sum += e.Tokens
			}
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
}

func TestSearch(t *testing.T) {
	t.Parallel()
	dir, _ := outsideFixture(t)
	_, cs := connect(t, dir, nil)
	tests := []struct {
		name   string
		args   map[string]any
		first  string
		count  int
		errHas string
	}{
		{"tag", map[string]any{"query": "rest"}, "web:api", 1, ""},
		{"link out of the root not listed", map[string]any{"query": "secret"}, "", 0, ""},
		{"title", map[string]any{"query": "deploying"}, "ops:deploy", 1, ""},
		{"domain filter", map[string]any{"query": "rest", "domain": "ops"}, "", 0, ""},
		{"limit", map[string]any{"query": "api deploying", "limit": 1}, "", 1, ""},
		{"no match", map[string]any{"query": "kubernetes"}, "", 0, ""},
		{"empty query", map[string]any{"query": "  "}, "", 0, "query is required"},
		{"missing query", map[string]any{}, "", 0, "query"},
		{"negative limit", map[string]any{"query": "api", "limit": -1}, "", 0, "negative"},
		{"unknown domain", map[string]any{"query": "api", "domain": "nope"}, "", 0, `domain "nope" not found`},
		{"escaping domain", map[string]any{"query": "api", "domain": "/etc"}, "", 0, "absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out SearchOutput
			_, ok := callCase(t, cs, "search", tt.args, &out, tt.errHas)
			if !ok {
				return
			}
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
}

func TestLoadContext(t *testing.T) {
	t.Parallel()
	dir, secret := outsideFixture(t)
	_, cs := connect(t, dir, nil)
	tests := []struct {
		name    string
		args    map[string]any
		loaded  []string
		omitted []string
		has     []string // in the text
		errHas  string
	}{
		{"topic", map[string]any{"refs": []string{"ops:deploy"}}, []string{"ops:deploy"}, nil, []string{"rollback detail"}, ""},
		{"section", map[string]any{"refs": []string{"web:api#security"}}, []string{"web:api#Security"}, nil, []string{"security detail"}, ""},
		{"root topic", map[string]any{"refs": []string{"loading_protocol"}}, []string{"loading_protocol"}, nil, []string{"Read it."}, ""},
		{"slash form", map[string]any{"refs": []string{"ops/deploy"}}, []string{"ops:deploy"}, nil, nil, ""},
		{"path of a topic", map[string]any{"refs": []string{"context/ops/deploy.md"}}, []string{"ops:deploy"}, nil, nil, ""},
		{"path of a note", map[string]any{"refs": []string{"notes/todo.md"}}, []string{"notes/todo.md"}, nil, []string{"Ship it."}, ""},
		{"skill", map[string]any{"refs": []string{"deploy-app"}}, []string{"deploy-app"}, nil, []string{"Run make deploy."}, ""},
		{"path of a rule", map[string]any{"refs": []string{".claude/rules/style.md"}}, []string{".claude/rules/style.md"}, nil, []string{"Tabs, not spaces."}, ""},
		{"section of a skill", map[string]any{"refs": []string{"deploy-app#Deploy"}}, nil, nil, nil, "is a skill"},
		{"unknown name", map[string]any{"refs": []string{"deploy-ap"}}, nil, nil, nil, "no topic or skill has that name"},
		{"absolute path inside", map[string]any{"refs": []string{filepath.Join(dir, "notes", "todo.md")}}, []string{"notes/todo.md"}, nil, nil, ""},
		{"order kept", map[string]any{"refs": []string{"ops:deploy", "web:api#Routing"}}, []string{"ops:deploy", "web:api#Routing"}, nil, nil, ""},
		{"duplicate", map[string]any{"refs": []string{"web:api", "web:api#Errors"}}, []string{"web:api"}, []string{"web:api#Errors"}, nil, ""},
		{"empty refs", map[string]any{"refs": []string{}}, nil, nil, nil, "refs is empty"},
		{"missing refs", map[string]any{}, nil, nil, nil, "refs"},
		{"unknown topic", map[string]any{"refs": []string{"web:apii"}}, nil, nil, nil, "did you mean api?"},
		{"unknown domain", map[string]any{"refs": []string{"wbe:api"}}, nil, nil, nil, `domain "wbe" not found`},
		{"unknown section", map[string]any{"refs": []string{"web:api#Securty"}}, nil, nil, nil, "did you mean Security?"},
		{"no section after #", map[string]any{"refs": []string{"web:api#"}}, nil, nil, nil, "names no section"},
		{"no topic", map[string]any{"refs": []string{"web:"}}, nil, nil, nil, "names no topic"},
		{"one bad ref fails all", map[string]any{"refs": []string{"ops:deploy", "nope:x"}}, nil, nil, nil, "nope"},
		{"negative budget", map[string]any{"refs": []string{"ops:deploy"}, "budgetTokens": -5}, nil, nil, nil, "out of range"},
		{"budget over the most", map[string]any{"refs": []string{"ops:deploy"}, "budgetTokens": 2000000}, nil, nil, nil, "out of range"},
		{"too many refs", map[string]any{"refs": slices.Repeat([]string{"ops:deploy"}, 300)}, nil, nil, nil, "at most 256"},
		{"section of a note", map[string]any{"refs": []string{"notes/todo.md#Todo"}}, nil, nil, nil, "not a topic"},
		{"not markdown of the workspace", map[string]any{"refs": []string{"notes/missing.md"}}, nil, nil, nil, "not a markdown file of the workspace"},
		{"dot-dot out of the root", map[string]any{"refs": []string{"../" + filepath.Base(filepath.Dir(secret)) + "/secret.md"}}, nil, nil, nil, "outside the workspace"},
		{"absolute path outside", map[string]any{"refs": []string{secret}}, nil, nil, nil, "outside the workspace"},
		{"topic name escaping", map[string]any{"refs": []string{"web:../../x"}}, nil, nil, nil, "escapes"},
		{"link out of the root by name", map[string]any{"refs": []string{"web:leak"}}, nil, nil, nil, "escapes"},
		{"link out of the root by path", map[string]any{"refs": []string{"context/web/leak.md"}}, nil, nil, nil, "outside the workspace"},
		{"NUL", map[string]any{"refs": []string{"web:api\x00"}}, nil, nil, nil, "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out ops.LoadContextResult
			text, isErr := call(t, cs, "load_context", tt.args, &out)
			if strings.Contains(text, "TOP-SECRET") {
				t.Fatalf("content from outside the root: %q", text)
			}
			if !wantResult(t, text, isErr, tt.errHas) {
				return
			}
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

func TestResources(t *testing.T) {
	t.Parallel()
	dir, _ := outsideFixture(t)
	_, cs := connect(t, dir, nil)
	ctx := t.Context()
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
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
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
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
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: tt.uri})
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
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("no notifications/resources/list_changed with the new topic within 30 s")
		}
		res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			continue // a change notified before the new file was applied
		}
		if !strings.Contains(res.Contents[0].Text, "Watch it.") {
			t.Fatalf("read %s: %q", uri, res.Contents[0].Text)
		}
		break
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

func TestCheck(t *testing.T) {
	t.Parallel()
	dir, secret := outsideFixture(t)
	_, cs := connect(t, dir, nil)
	tests := []struct {
		name   string
		args   map[string]any
		files  []string // files with diagnostics; all must be among them
		errHas string
	}{
		{"workspace", map[string]any{}, []string{"commands/review.md"}, ""},
		{"one file", map[string]any{"path": "commands/review.md"}, []string{"commands/review.md"}, ""},
		{"a clean file", map[string]any{"path": "notes/todo.md"}, nil, ""},
		{"a folder", map[string]any{"path": "commands"}, []string{"commands/review.md"}, ""},
		{"absolute inside", map[string]any{"path": filepath.Join(dir, "commands", "review.md")}, []string{"commands/review.md"}, ""},
		{"missing file", map[string]any{"path": "commands/nope.md"}, nil, "does not exist"},
		{"outside by dot-dot", map[string]any{"path": "../x.md"}, nil, "outside the workspace"},
		{"outside absolute", map[string]any{"path": secret}, nil, "outside the workspace"},
		{"wrong type", map[string]any{"path": 7}, nil, "path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out ops.CheckResponse
			text, ok := callCase(t, cs, "check", tt.args, &out, tt.errHas)
			if !ok {
				return
			}
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
			if strings.Contains(text, "TOP-SECRET") {
				t.Errorf("content from outside the root: %q", text)
			}
		})
	}
	var out ops.CheckResponse
	call(t, cs, "check", map[string]any{"path": "commands/review.md"}, &out)
	if len(out.Items) == 0 || out.Items[0].Code != "unresolved-reference" || out.Items[0].Line != 3 {
		t.Errorf("check of commands/review.md: %+v, want unresolved-reference on line 3", out.Items)
	}
}

func TestSessionCost(t *testing.T) {
	t.Parallel()
	_, cs := connect(t, libtest.WriteTree(t, fixture()), nil)
	tests := []struct {
		name   string
		args   map[string]any
		always []string
		errHas string
	}{
		{"claude", map[string]any{"agent": "claude"}, []string{"CLAUDE.md", "notes/todo.md", ".claude/rules/style.md", ".claude/skills/deploy-app/SKILL.md"}, ""},
		{"claude small window", map[string]any{"agent": "claude", "contextWindow": 1000}, []string{"CLAUDE.md"}, ""},
		{"codex", map[string]any{"agent": "codex"}, nil, ""},
		{"unknown agent", map[string]any{"agent": "vim"}, nil, `agent must be one of claude, codex, cursor, copilot, not "vim"`},
		{"missing agent", map[string]any{}, nil, "agent"},
		{"negative window", map[string]any{"agent": "claude", "contextWindow": -1}, nil, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct {
				Agent        string `json:"agent"`
				AlwaysLoaded []struct {
					File   string `json:"file"`
					Tokens int    `json:"tokens"`
				} `json:"alwaysLoaded"`
				TotalAlwaysLoaded int `json:"totalAlwaysLoaded"`
			}
			_, ok := callCase(t, cs, "session_cost", tt.args, &out, tt.errHas)
			if !ok {
				return
			}
			files := map[string]bool{}
			sum := 0
			for _, e := range out.AlwaysLoaded {
				files[e.File] = true
				sum += e.Tokens
			}
			for _, f := range tt.always {
				if !files[f] {
					t.Errorf("alwaysLoaded lacks %s: %+v", f, out.AlwaysLoaded)
				}
			}
			if out.Agent != tt.args["agent"] || sum != out.TotalAlwaysLoaded {
				t.Errorf("agent %q, total %d, entries sum to %d", out.Agent, out.TotalAlwaysLoaded, sum)
			}
		})
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
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("within 30 s: %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if has("commands/implement.md", "unresolved-reference") {
		t.Fatal("commands/implement.md has an unresolved reference before any change")
	}
	if err := os.Remove(filepath.Join(dir, "context", "web", "api.md")); err != nil {
		t.Fatal(err)
	}
	waitFor("commands/implement.md reports web:api unresolved after api.md went", func() bool {
		return has("commands/implement.md", "unresolved-reference")
	})
	writeWhole(t, filepath.Join(dir, "commands", "review.md"), "# Review\n\nLoad ops:deploy first.\n")
	waitFor("commands/review.md is clean after its fix", func() bool {
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
	deadline := time.After(30 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the new skill is not a resource within 30 s")
		}
		res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctxls://skills/fresh"})
		if err != nil {
			continue
		}
		if !strings.Contains(res.Contents[0].Text, "Fresh body.") {
			t.Fatalf("skill text %q", res.Contents[0].Text)
		}
		break
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
