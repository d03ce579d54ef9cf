package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// agentCursor marks the position a case asks at in its text.
const agentCursor = "‸"

// agentFeatureCase is one request of the editor in an agent file of the
// team project: the file's text with the cursor marked, what is asked,
// and the answer.
type agentFeatureCase struct {
	name string
	// file is the file the text is opened as, relative to the project.
	file string
	// text is the editor's text, agentCursor where the cursor is.
	text string
	// ask is "completion", "hover", "definition", "links" or "lens".
	ask string
	// want are the completion labels that must be offered, the strings
	// the hover must hold, the one file (relative) definition leads to,
	// the files (relative) the document's links lead to, in order, or
	// the strings the titles of its code lenses must hold.
	want []string
	// not are completion labels that must not be offered.
	not []string
}

var agentFeatureCases = []agentFeatureCase{
	// Windsurf rules.
	{name: "windsurf key", file: ".windsurf/rules/decide.md", text: "---\ntrigger: model_decision\n‸\n---\nMigrations run in order.\n",
		ask: "completion", want: []string{"description", "globs"}, not: []string{"trigger"}},
	{name: "windsurf trigger", file: ".windsurf/rules/decide.md", text: "---\ntrigger: ‸\n---\nMigrations run in order.\n",
		ask: "completion", want: []string{"always_on", "model_decision", "glob", "manual"}},
	{name: "windsurf hover", file: ".windsurf/rules/decide.md", text: "---\ntrig‸ger: model_decision\n---\nMigrations run in order.\n",
		ask: "hover", want: []string{"trigger", "When Cascade applies the rule"}},
	{name: "windsurf link", file: ".windsurf/rules/always.md", text: "---\ntrigger: always_on\n---\nFollow [the style](../../docs/st‸yle.md).\n",
		ask: "definition", want: []string{"docs/style.md"}},

	{name: "windsurf links", file: ".windsurf/rules/always.md", text: "---\ntrigger: always_on\n---\n‸Follow [the style](../../docs/style.md) and [the API](../../docs/api.md).\n",
		ask: "links", want: []string{"docs/style.md"}},

	// Cline rules.
	{name: "cline key", file: ".clinerules/web.md", text: "---\n‸\n---\nWeb code is TypeScript.\n",
		ask: "completion", want: []string{"paths"}},
	{name: "cline hover", file: ".clinerules/web.md", text: "---\npa‸ths:\n  - \"web/**\"\n---\nWeb code is TypeScript.\n",
		ask: "hover", want: []string{"paths", "Globs of the files the rule applies to"}},
	{name: "cline link", file: ".clinerules/general.md", text: "# General\n\nKeep changes small; see [style](../docs/style.md‸).\n",
		ask: "definition", want: []string{"docs/style.md"}},

	// Kiro steering.
	{name: "kiro inclusion", file: ".kiro/steering/api.md", text: "---\ninclusion: ‸\n---\nThe API is JSON.\n",
		ask: "completion", want: []string{"always", "fileMatch", "manual", "auto"}},
	{name: "kiro key", file: ".kiro/steering/api.md", text: "---\ninclusion: fileMatch\n‸\n---\nThe API is JSON.\n",
		ask: "completion", want: []string{"fileMatchPattern", "description"}, not: []string{"inclusion"}},
	{name: "kiro hover", file: ".kiro/steering/api.md", text: "---\ninclusion: fileMatch\nfileMatch‸Pattern: \"web/**\"\n---\nThe API is JSON.\n",
		ask: "hover", want: []string{"fileMatchPattern", "with inclusion fileMatch"}},
	{name: "kiro file reference", file: ".kiro/steering/tech.md", text: "---\ninclusion: always\n---\nGo 1.26, TypeScript 5. #[[file:docs/st‸yle.md]]\n",
		ask: "definition", want: []string{"docs/style.md"}},
	{name: "kiro links", file: ".kiro/steering/tech.md", text: "---\ninclusion: always\n---\n‸#[[file:docs/style.md]] and #[[file:docs/none.md]]\n",
		ask: "links", want: []string{"docs/style.md"}},
	{name: "kiro file reference hover", file: ".kiro/steering/tech.md", text: "---\ninclusion: always\n---\nGo 1.26, TypeScript 5. #[[file:docs/st‸yle.md]]\n",
		ask: "hover", want: []string{"docs/style.md", "tok"}},

	// Copilot custom agents.
	{name: "copilot agent key", file: ".github/agents/reviewer.agent.md",
		text: "---\nname: Reviewer\ndescription: Review a change.\n‸\n---\nReview the change.\n",
		ask:  "completion", want: []string{"tools", "model", "target", "handoffs"}, not: []string{"name", "description"}},
	{name: "copilot agent target", file: ".github/agents/reviewer.agent.md",
		text: "---\nname: Reviewer\ndescription: Review a change.\ntarget: ‸\n---\nReview the change.\n",
		ask:  "completion", want: []string{"vscode", "github-copilot"}},
	{name: "copilot agent hover", file: ".github/agents/reviewer.agent.md",
		text: "---\nname: Reviewer\ndescrip‸tion: Review a change.\n---\nReview the change.\n",
		ask:  "hover", want: []string{"description", "Copilot picks the agent by it"}},

	// Copilot prompt files.
	{name: "copilot prompt key", file: ".github/prompts/review.prompt.md", text: "---\ndescription: Review the open change\n‸\n---\nReview it.\n",
		ask: "completion", want: []string{"agent", "model", "tools"}, not: []string{"description"}},
	{name: "copilot prompt agent", file: ".github/prompts/review.prompt.md", text: "---\ndescription: Review the open change\nagent: ‸\n---\nReview it.\n",
		ask: "completion", want: []string{"ask", "edit", "agent", "Reviewer", "Planner"}},
	{name: "copilot prompt hover", file: ".github/prompts/review.prompt.md", text: "---\ndescription: Review the open change\nag‸ent: Reviewer\n---\nReview it.\n",
		ask: "hover", want: []string{"agent", "The agent the prompt runs with"}},
	{name: "copilot prompt agent definition", file: ".github/prompts/review.prompt.md", text: "---\ndescription: Review the open change\nagent: Revi‸ewer\n---\nReview it.\n",
		ask: "definition", want: []string{".github/agents/reviewer.agent.md"}},

	// OpenCode.
	{name: "opencode instructions definition", file: "opencode.json",
		text: "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"instructions\": [\n    \"CONTRIBUT‸ING.md\",\n    \"docs/opencode.md\"\n  ]\n}\n",
		ask:  "definition", want: []string{"CONTRIBUTING.md"}},
	{name: "opencode links", file: "opencode.json",
		text: "‸{\n  \"instructions\": [\"CONTRIBUTING.md\", \"docs/opencode.md\", \"docs/*.md\"]\n}\n",
		ask:  "links", want: []string{"CONTRIBUTING.md"}},
	{name: "opencode instructions hover", file: "opencode.json",
		text: "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"instru‸ctions\": [\n    \"CONTRIBUTING.md\"\n  ]\n}\n",
		ask:  "hover", want: []string{"instructions", "OpenCode"}},
	{name: "opencode instructions completion", file: "opencode.json",
		text: "{\n  \"instructions\": [\n    \"CONTRIBUTING.md\",\n    \"docs/‸\"\n  ]\n}\n",
		ask:  "completion", want: []string{"docs/style.md"}},

	// Gemini CLI's @file imports.
	{name: "gemini import hover", file: "GEMINI.md", text: "# Gemini\n\n@./docs/st‸yle.md\n",
		ask: "hover", want: []string{"@./docs/style.md", "`docs/style.md`", "hop 1 of 5"}},
	{name: "gemini import links", file: "GEMINI.md", text: "‸# Gemini\n\n@./docs/style.md\n\n@./docs/gemini-extra.md\n",
		ask: "links", want: []string{"docs/style.md"}},
	{name: "gemini lens", file: "GEMINI.md", text: "‸# Gemini\n\n@./docs/style.md\n\n@./docs/gemini-extra.md\n",
		ask: "lens", want: []string{"Gemini CLI context: ", "with 1 import", "1 not loaded"}},
	{name: "gemini import definition", file: "GEMINI.md", text: "# Gemini\n\n@./docs/st‸yle.md\n",
		ask: "definition", want: []string{"docs/style.md"}},
	{name: "gemini import missing hover", file: "GEMINI.md", text: "# Gemini\n\n@./docs/gemini-ex‸tra.md\n",
		ask: "hover", want: []string{"Not loaded"}},
	{name: "gemini import completion", file: "GEMINI.md", text: "# Gemini\n\n@./docs/‸\n",
		ask: "completion", want: []string{"style.md"}},
}

// TestStdioAgentFeatures runs the fixtures of agentFeatureCases on the
// server binary over stdio, started on a copy of the team project, and
// checks that moving a file an agent file names edits the name.
func TestStdioAgentFeatures(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "agents"))); err != nil {
		t.Fatal(err)
	}
	// A custom agent without a name, which its file names, and a prompt
	// that runs with it.
	for rel, text := range map[string]string{
		".github/agents/helper.agent.md":    "---\ndescription: Helps with the release.\n---\nHelp.\n",
		".github/prompts/release.prompt.md": "---\ndescription: Cut a release\nagent: helper\n---\nRelease.\n",
	} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := stdioCtx(t)
	c := stdioStart(t, root)
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	for _, tc := range agentFeatureCases {
		t.Run(tc.name, func(t *testing.T) {
			i := strings.Index(tc.text, agentCursor)
			if i < 0 {
				t.Fatal("the text has no cursor")
			}
			text := tc.text[:i] + tc.text[i+len(agentCursor):]
			line := strings.Count(text[:i], "\n")
			char := stdioUTF16Len(text[strings.LastIndexByte(text[:i], '\n')+1 : i])
			uri := stdioFileURI(filepath.Join(root, filepath.FromSlash(tc.file)))
			if err := c.DidOpen(uri, text); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
					t.Error(err)
				}
			}()
			switch tc.ask {
			case "completion":
				items := stdioCompletion(ctx, t, c, uri, line, char)
				labels := stdioLabels(items)
				for _, w := range tc.want {
					if !slices.Contains(labels, w) {
						t.Errorf("completion lacks %q: %q", w, labels)
					}
				}
				for _, n := range tc.not {
					if slices.Contains(labels, n) {
						t.Errorf("completion offers %q, which the text has: %q", n, labels)
					}
				}
			case "hover":
				got, _ := stdioHoverText(ctx, t, c, uri, line, char)
				for _, w := range tc.want {
					if !strings.Contains(got, w) {
						t.Errorf("hover lacks %q:\n%s", w, got)
					}
				}
			case "definition":
				raw, err := c.CallRaw(ctx, "textDocument/definition", stdioPos(uri, line, char))
				if err != nil {
					t.Fatal(err)
				}
				locs := stdioLocations(t, raw)
				want := stdioFileURI(filepath.Join(root, filepath.FromSlash(tc.want[0])))
				if len(locs) != 1 || locs[0].URI != want {
					t.Errorf("definition %+v, want %s", locs, tc.want[0])
				}
			case "links":
				var links []struct {
					Target string `json:"target"`
				}
				if err := c.Call(ctx, "textDocument/documentLink", map[string]any{"textDocument": map[string]any{"uri": uri}}, &links); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, l := range links {
					if rel, err := filepath.Rel(root, stdioURIPath(l.Target)); err == nil {
						got = append(got, filepath.ToSlash(rel))
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("links lead to %q, want %q", got, tc.want)
				}
			case "lens":
				var lenses []struct {
					Command *struct {
						Title string `json:"title"`
					} `json:"command"`
				}
				if err := c.Call(ctx, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
					t.Fatal(err)
				}
				var titles string
				for _, l := range lenses {
					if l.Command != nil {
						titles += l.Command.Title + "\n"
					}
				}
				for _, w := range tc.want {
					if !strings.Contains(titles, w) {
						t.Errorf("code lenses lack %q:\n%s", w, titles)
					}
				}
			default:
				t.Fatalf("ask %q", tc.ask)
			}
		})
	}

	// With agent files open in the editor, each agent's session is still
	// read with the project's settings: Gemini CLI's context file names,
	// Codex's fallback names.
	t.Run("session cost with files open", func(t *testing.T) {
		for _, rel := range []string{".github/agents/reviewer.agent.md", ".clinerules/web.md"} {
			uri, _ := stdioOpen(t, c, root, rel)
			defer func() {
				if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
					t.Error(err)
				}
			}()
		}
		var gemini stdioSessionCost
		if err := c.Call(ctx, "ctxls/sessionCost", map[string]any{"agent": "gemini"}, &gemini); err != nil {
			t.Fatal(err)
		}
		if gemini.tokensOf("GEMINI.md") <= 0 || gemini.tokensOf("docs/style.md") <= 0 {
			t.Errorf("gemini loads at start %+v, want GEMINI.md and docs/style.md", gemini.AlwaysLoaded)
		}
		var codex struct {
			OnDemand []struct {
				File string `json:"file"`
			} `json:"onDemand"`
		}
		if err := c.Call(ctx, "ctxls/sessionCost", map[string]any{"agent": "codex"}, &codex); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(codex.OnDemand, func(e struct {
			File string `json:"file"`
		}) bool {
			return e.File == "jobs/TEAM.md"
		}) {
			t.Errorf("codex loads later %+v, want jobs/TEAM.md, a fallback name of .codex/config.toml", codex.OnDemand)
		}
	})

	// Moving a file edits what names it, each in its own syntax: the
	// @imports of CLAUDE.md and GEMINI.md, Kiro's file references,
	// OpenCode's instructions, the links of Copilot's instructions.
	for _, rc := range []struct {
		name     string
		old, new string            // relative
		want     map[string]string // file → what it must hold after the edit
	}{
		{"a file", "docs/style.md", "docs/guide.md", map[string]string{
			"GEMINI.md": "@./docs/guide.md", "CLAUDE.md": "@docs/guide.md", ".kiro/steering/tech.md": "#[[file:docs/guide.md]]"}},
		{"a folder", "docs", "guides", map[string]string{
			"GEMINI.md": "@./guides/style.md", "CLAUDE.md": "@guides/style.md", ".kiro/steering/tech.md": "#[[file:guides/style.md]]"}},
		{"an instructions entry", "CONTRIBUTING.md", "docs/CONTRIBUTING.md", map[string]string{
			"opencode.json": `"docs/CONTRIBUTING.md"`}},
		{"a linked file", ".github/prompts/upgrade.instructions.md", ".github/instructions/upgrade.instructions.md", map[string]string{
			".github/copilot-instructions.md": "(./instructions/upgrade.instructions.md)"}},
		{"a custom agent named by its file", ".github/agents/helper.agent.md", ".github/agents/releaser.agent.md", map[string]string{
			".github/prompts/release.prompt.md": "agent: releaser"}},
		{"a custom agent named by its name", ".github/agents/reviewer.agent.md", ".github/agents/critic.agent.md", map[string]string{}},
		{"the linking file", ".github/copilot-instructions.md", "docs/copilot-instructions.md", map[string]string{
			".github/copilot-instructions.md": "(../.github/prompts/upgrade.instructions.md)"}},
	} {
		t.Run("rename "+rc.name, func(t *testing.T) {
			var edit *stdioWorkspaceEdit
			if err := c.Call(ctx, "workspace/willRenameFiles", map[string]any{"files": []any{map[string]any{
				"oldUri": stdioFileURI(filepath.Join(root, filepath.FromSlash(rc.old))), "newUri": stdioFileURI(filepath.Join(root, filepath.FromSlash(rc.new)))}}}, &edit); err != nil {
				t.Fatal(err)
			}
			if edit == nil {
				if len(rc.want) > 0 {
					t.Fatal("no edit")
				}
				return
			}
			edits := map[string][]ClientTextEdit{}
			for u, es := range edit.Changes {
				edits[stdioURIPath(u)] = append(edits[stdioURIPath(u)], es...)
			}
			for _, dc := range edit.DocumentChanges {
				if dc.TextDocument != nil {
					p := stdioURIPath(dc.TextDocument.URI)
					edits[p] = append(edits[p], dc.Edits...)
				}
			}
			for file, want := range rc.want {
				p := filepath.Join(root, filepath.FromSlash(file))
				if after := stdioApplyEdits(t, stdioRead(t, p), edits[p]); !strings.Contains(after, want) {
					t.Errorf("%s after the move:\n%s\nwant %s", file, after, want)
				}
				delete(edits, p)
			}
			for p, es := range edits {
				t.Errorf("an edit of %s, which names no moved file: %+v", p, es)
			}
		})
	}
}
