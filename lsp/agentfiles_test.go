package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// Agent files get diagnostics from the first publication on, follow the
// editor's text, and offer their fixes as quick fixes.
func TestInprocAgentFiles(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".agents/skills/deploy/SKILL.md": "---\nname: deploy-app\ndescription: Deploys.\n---\nBody.\n",
		".mcp.json":                      "{\"mcpServers\": {\"a\": {\"command\": 1}}}\n",
		"context/python/x.md":            "# X\n\nBody.\n",
	}, inprocOptions{})
	skill := c.uri(".agents/skills/deploy/SKILL.md")
	d := c.waitDiagnostics(skill, diagCodes("skill-name-mismatch"))
	if r := d.Diagnostics[0].Range; r.Start.Line != 1 || r.Start.Character != 6 || r.End.Character != 16 {
		t.Errorf("range %+v, want 1:6-16 (the name)", r)
	}
	c.waitDiagnostics(c.uri(".mcp.json"), diagCodes("mcp-server-field-invalid"))

	var actions []struct {
		Title string
		Edit  inprocEdit
	}
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": skill},
		"range": d.Diagnostics[0].Range, "context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}}}, &actions)
	if len(actions) != 1 || actions[0].Title != "Rename the skill to deploy (its folder)" ||
		len(actions[0].Edit.Changes[skill]) != 1 || actions[0].Edit.Changes[skill][0].NewText != "deploy" {
		t.Fatalf("code actions: %+v", actions)
	}

	// The editor's text is what is checked.
	c.open(".agents/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Use when: shipping\n---\nBody.\n")
	c.waitDiagnostics(skill, diagCodes("frontmatter-parse-error"))
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": skill, "version": 2},
		"contentChanges": []any{map[string]any{"text": "---\nname: deploy\ndescription: \"Use when: shipping\"\n---\nBody.\n"}}})
	c.waitDiagnostics(skill, diagCodes())
	// Closing hands the file back to the disk, where the name is wrong.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": skill}})
	c.waitDiagnostics(skill, diagCodes("skill-name-mismatch"))
}

// Skills of .agents/skills, which Codex loads and agents following the
// Agent Skills specification read, get its rules.

// A skill created on disk is checked once the client reports it, and a
// subagent naming it is then satisfied.
func TestInprocAgentFileCreated(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".claude/agents/a.md": "---\nname: a\ndescription: Reviews.\nskills: [deploy]\n---\nAgent.\n",
	}, inprocOptions{})
	dir := c.root
	agent := c.uri(".claude/agents/a.md")
	c.waitDiagnostics(agent, diagCodes("subagent-skill-missing"))
	testtree.WriteFiles(t, dir, map[string]string{".agents/skills/deploy/SKILL.md": "---\nname: deploy-x\ndescription: Deploys.\n---\n"})
	skill := c.uri(".agents/skills/deploy/SKILL.md")
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": skill, "type": 1}, map[string]any{"uri": agent, "type": 2}}})
	c.waitDiagnostics(skill, diagCodes("skill-name-mismatch"))
	c.waitDiagnostics(agent, diagCodes())

	// Deleting the skill clears its diagnostics and breaks the subagent again.
	c.remove(".agents/skills/deploy/SKILL.md")
	since := c.noteCount()
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": skill, "type": 3}, map[string]any{"uri": agent, "type": 2}}})
	c.waitDiagnosticsSince(since, skill, diagCodes())
	c.waitDiagnosticsSince(since, agent, diagCodes("subagent-skill-missing"))
}

// A skill edited on disk, in a hidden folder the library's watcher skips
// and with no event from the client, is checked again by the server's
// own watcher.
func TestInprocAgentFileWatched(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".agents/skills/x/SKILL.md": "---\nname: y\ndescription: Does x.\n---\nBody.\n",
		"context/python/x.md":       "# X\n\nBody.\n",
	}, inprocOptions{watch: true})
	dir := c.root
	mismatch := diagCodes("skill-name-mismatch")
	skill := c.uri(".agents/skills/x/SKILL.md")
	c.waitDiagnostics(skill, mismatch)
	since := c.noteCount()
	testtree.WriteFiles(t, dir, map[string]string{".agents/skills/x/SKILL.md": "---\nname: x\ndescription: Does x.\n---\nBody.\n"})
	c.waitDiagnosticsSince(since, skill, diagCodes())
	// A skill created in a folder that did not exist is seen too, and the
	// subagent naming it is checked again.
	agent := c.uri(".claude/agents/a.md")
	testtree.WriteFiles(t, dir, map[string]string{".claude/agents/a.md": "---\nname: a\ndescription: Reviews.\nskills: [fresh]\n---\nAgent.\n"})
	c.waitDiagnostics(agent, diagCodes("subagent-skill-missing"))
	since = c.noteCount()
	fresh := c.uri(".agents/skills/fresh/SKILL.md")
	testtree.WriteFiles(t, dir, map[string]string{".agents/skills/fresh/SKILL.md": "---\nname: stale\ndescription: New.\n---\n"})
	c.waitDiagnostics(fresh, mismatch)
	c.waitDiagnosticsSince(since, agent, diagCodes())
}

// Frontmatter keys and values complete with their documentation, a
// subagent's skills with the project's skills, and hover on a key shows
// the field's documentation.
func TestInprocAgentFrontmatter(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the service.\n---\nBody.\n",
		".claude/agents/a.md":            "---\nname: a\ndescription: Reviews.\n---\nAgent.\n",
		"context/python/x.md":            "# X\n\nBody.\n",
	}, inprocOptions{})
	type item struct {
		Label         string
		Kind          int
		Documentation struct{ Value string }
		TextEdit      struct{ NewText string }
	}
	complete := func(text, marker string, delta int) []item {
		t.Helper()
		u := c.open(".claude/agents/a.md", text)
		var list struct{ Items []item }
		c.mustCall("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u},
			"position": inprocPos(t, text, marker, delta, false)}, &list)
		return list.Items
	}
	labels := func(items []item) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Label)
		}
		return out
	}

	// Every key not yet present; the client filters by what is typed.
	items := complete("---\nname: a\ndescription: Reviews.\nsk\n---\nAgent.\n", "sk\n", 2)
	i := slices.IndexFunc(items, func(it item) bool { return it.Label == "skills" })
	if got := labels(items); i < 0 || slices.Contains(got, "name") || items[i].TextEdit.NewText != "skills: " ||
		!strings.Contains(items[i].Documentation.Value, "Skills loaded into the subagent's context") {
		t.Errorf("key completion %+v", items)
	}
	items = complete("---\nname: a\ndescription: Reviews.\nskills: [de]\n---\nAgent.\n", "de]", 2)
	if got := labels(items); len(got) != 1 || got[0] != "deploy" || items[0].Documentation.Value != "Deploys the service." {
		t.Errorf("skills completion %+v", items)
	}
	items = complete("---\nname: a\ndescription: Reviews.\npermissionMode: \n---\nAgent.\n", "permissionMode: ", 16)
	if got := labels(items); !slices.Contains(got, "plan") || !slices.Contains(got, "acceptEdits") {
		t.Errorf("value completion %q", got)
	}

	text := "---\nname: a\ndescription: Reviews.\ntools: Read\n---\nAgent.\n"
	u := c.open(".claude/agents/a.md", text)
	var h struct {
		Contents struct{ Value string }
		Range    protocolRange
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u},
		"position": inprocPos(t, text, "tools", 2, false)}, &h)
	if !strings.HasPrefix(h.Contents.Value, "**tools** · a string or a list of strings") || h.Range.Start.Line != 3 || h.Range.End.Character != 5 {
		t.Errorf("hover %+v", h)
	}
}

// The server binary over stdio publishes a skill's YAML error without the
// file being opened, and its quick fix quotes the description.
func TestStdioAgentFileDiagnosticsAndFix(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	rel := ".agents/skills/deploy/SKILL.md"
	text := "---\nname: deploy\ndescription: Use when: shipping a release\n---\n\nDeploy it.\n"
	testtree.WriteFiles(t, root, map[string]string{rel: text})
	c := stdioStart(t, root)
	ctx := stdioCtx(t)
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	uri := stdioFileURI(filepath.Join(root, rel))
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "frontmatter-parse-error", 2, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	var actions []struct {
		Title string              `json:"title"`
		Edit  *stdioWorkspaceEdit `json:"edit"`
	}
	if err := c.Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        ds[0].Range,
		"context":      map[string]any{"diagnostics": ds, "only": []string{"quickfix"}},
	}, &actions); err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	if len(actions) != 1 || actions[0].Edit == nil {
		t.Fatalf("actions: %+v", actions)
	}
	var edits []ClientTextEdit
	for u, es := range actions[0].Edit.Changes {
		if stdioSameURI(u, uri) {
			edits = append(edits, es...)
		}
	}
	if after := stdioApplyEdits(t, text, edits); !strings.Contains(after, "\ndescription: \"Use when: shipping a release\"\n") {
		t.Errorf("%q gives:\n%s", actions[0].Title, after)
	}
}

// Skills whose folders under .claude/skills are links, as Cline's
// repository keeps them, are the editor's too: a subagent may name them,
// and a linked skill opened through the link gets its diagnostics.
func TestInprocLinkedSkills(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.WriteFiles(t, dir, map[string]string{
		".cline/skills/publish/SKILL.md": "---\nname: publish\ndescription: Publishes the CLI. Use when releasing.\n---\n\nRead [the checklist](references/checklist.md).\n",
		".claude/agents/releaser.md":     "---\nname: releaser\ndescription: Releases. Use when asked to ship.\nskills: [publish, notes]\n---\nRelease.\n",
	})
	fsguardtest.Links(t, dir, map[string]string{".claude/skills/publish": "../../.cline/skills/publish"})
	c := inprocStart(t, dir, inprocOptions{})
	// Only notes is missing: publish is found through the link.
	d := c.waitDiagnostics(c.uri(".claude/agents/releaser.md"), diagCodes("subagent-skill-missing"))
	if msg := d.Diagnostics[0].Message; !strings.Contains(msg, "notes") || strings.Contains(msg, "publish") {
		t.Errorf("message %q, want it about notes only", msg)
	}
	linked := ".claude/skills/publish/SKILL.md"
	text, err := os.ReadFile(filepath.Join(dir, linked))
	if err != nil {
		t.Fatal(err)
	}
	c.open(linked, string(text))
	c.waitDiagnostics(c.uri(linked), diagCodes("skill-link-broken"))
}

// A Claude Code settings file completes its top-level keys and their
// values, and hover on a key shows what the setting does.
func TestInprocSettingsKeys(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".claude/settings.json": "{}\n",
		"context/python/x.md":   "# X\n\nBody.\n",
	}, inprocOptions{})
	type item struct {
		Label    string
		TextEdit struct{ NewText string }
	}
	complete := func(text, marker string, delta int) []string {
		t.Helper()
		u := c.open(".claude/settings.json", text)
		var list struct{ Items []item }
		c.mustCall("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u},
			"position": inprocPos(t, text, marker, delta, false)}, &list)
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label+"="+it.TextEdit.NewText)
		}
		return out
	}
	got := complete("{\n  \"outp\": \"\"\n}\n", "outp", 4)
	if !slices.Contains(got, "outputStyle=outputStyle") || !slices.Contains(got, "permissions=permissions") || slices.Contains(got, "allowManagedHooksOnly=allowManagedHooksOnly") {
		t.Errorf("key completion %q", got)
	}
	got = complete("{\n  \"outputStyle\": \"Ex\"\n}\n", "Ex\"", 2)
	if !slices.Contains(got, "Explanatory=Explanatory") || slices.Contains(got, "permissions=permissions") {
		t.Errorf("value completion %q", got)
	}
	got = complete("{\n  \"env\": {\"A\": \"\"}\n}\n", "A\"", 1)
	if len(got) != 0 {
		t.Errorf("a nested key completes %q", got)
	}

	text := "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"x\"}\n}\n"
	u := c.open(".claude/settings.json", text)
	var h struct {
		Contents struct{ Value string }
		Range    protocolRange
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u},
		"position": inprocPos(t, text, "statusLine", 3, false)}, &h)
	if !strings.HasPrefix(h.Contents.Value, "**statusLine** · an object") || h.Range.Start.Line != 1 {
		t.Errorf("hover %+v", h)
	}
}

// A settings file edited on disk, with no event from the client, is
// checked again by the server's own watcher; a plugin's hooks.json, out of
// the hidden folders, when the client reports the change (the extension
// watches hooks.json files).
func TestInprocHooksWatched(t *testing.T) {
	t.Parallel()
	c := inprocWorkspace(t, map[string]string{
		".claude/settings.json":                "{\"hooks\": {\"PostToolUsed\": []}}\n",
		"plugins/p/.claude-plugin/plugin.json": "{\"name\": \"p\"}\n",
		"plugins/p/hooks/hooks.json":           "{\"hooks\": {}}\n",
		"context/python/x.md":                  "# X\n\nBody.\n",
	}, inprocOptions{watch: true})
	settings := c.uri(".claude/settings.json")
	c.waitDiagnostics(settings, diagCodes("hook-event-unknown"))
	since := c.noteCount()
	testtree.WriteFiles(t, c.root, map[string]string{".claude/settings.json": "{\"hooks\": {\"PostToolUse\": []}}\n"})
	c.waitDiagnosticsSince(since, settings, diagCodes())
	hooks := c.uri("plugins/p/hooks/hooks.json")
	testtree.WriteFiles(t, c.root, map[string]string{"plugins/p/hooks/hooks.json": "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo $TOOL_NAME\"}]}]}}\n"})
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": hooks, "type": 2}}})
	c.waitDiagnostics(hooks, diagCodes("hook-env-unset"))
}
