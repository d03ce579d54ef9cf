package agentload

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/agentfacts"
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/tokens"
)

func load(t *testing.T, dir string) *agentfiles.Set {
	t.Helper()
	set, err := agentfiles.Load(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func counter(t *testing.T) tokens.Counter {
	t.Helper()
	c, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fileTokens(t *testing.T, dir, rel string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return counter(t).Count(string(b))
}

// TestClaudeAlwaysLoaded checks, on a Claude Code project, that exactly
// the files a session loads at start are in alwaysLoaded: the memory
// files and what their imports load (not what code spans, fences or
// e-mail addresses mention, nor a missing or cut import), rules without
// paths, and one listing entry per project skill, command and subagent
// that the model may invoke.
func TestClaudeAlwaysLoaded(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("testdata/claude")
	if err != nil {
		t.Fatal(err)
	}
	c := compute(t, dir, Options{Agent: Claude, Counter: counter(t)})
	type row struct{ file, reason string }
	var got []row
	sum := 0
	for _, e := range c.AlwaysLoaded {
		got = append(got, row{e.File, e.Reason})
		sum += e.Tokens
		if e.Tokens <= 0 {
			t.Errorf("%s: %d tokens", e.File, e.Tokens)
		}
	}
	want := []row{
		{"CLAUDE.md", "project memory"},
		{"docs/style.md", "imported by CLAUDE.md (hop 1)"},
		{"docs/more.md", "imported by CLAUDE.md (hop 2)"},
		{"CLAUDE.local.md", "local memory"},
		{".claude/rules/general.md", "rule without paths"},
		{".claude/agents/tester.md", "subagent listing"},
		{".claude/commands/review.md", "command listing"},
		{".claude/skills/deploy/SKILL.md", "skill listing"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("alwaysLoaded\n got %v\nwant %v", got, want)
	}
	if c.TotalAlwaysLoaded != sum {
		t.Errorf("totalAlwaysLoaded %d, want the sum %d", c.TotalAlwaysLoaded, sum)
	}
	if len(c.AlwaysLoaded) != len(want) {
		t.FailNow()
	}
	// Whole files cost what the tokenizer counts in them.
	for _, e := range c.AlwaysLoaded[:5] {
		if n := fileTokens(t, dir, e.File); e.Tokens != n {
			t.Errorf("%s: %d tokens, the file has %d", e.File, e.Tokens, n)
		}
	}
	// A listing entry costs its name and description, not the body.
	deploy := c.AlwaysLoaded[7]
	line := "- deploy: Deploy the shop to staging or production. Use when asked to ship or release.\n"
	if n := counter(t).Count(line); deploy.Tokens != n {
		t.Errorf("deploy listing: %d tokens, want %d", deploy.Tokens, n)
	}

	var onDemand []string
	for _, e := range c.OnDemand {
		onDemand = append(onDemand, e.File)
	}
	for _, f := range []string{".claude/rules/go.md", "pkg/CLAUDE.md", ".claude/skills/manual/SKILL.md", ".claude/skills/deploy/SKILL.md"} {
		if !slices.Contains(onDemand, f) {
			t.Errorf("onDemand %v lacks %s", onDemand, f)
		}
	}
	for _, f := range []string{"AGENTS.md", "docs/code.md", "docs/fenced.md", "docs/workflow.md", "plugins/p/skills/x/SKILL.md"} {
		if slices.Contains(onDemand, f) || slices.ContainsFunc(c.AlwaysLoaded, func(e Entry) bool { return e.File == f }) {
			t.Errorf("%s is counted, but a Claude session does not load it", f)
		}
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %v", c.Warnings)
	}

	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "agent,alwaysLoaded,notCounted,onDemand,tokenizer,totalAlwaysLoaded" {
		t.Errorf("JSON keys %v", names)
	}
}

func TestListingBudget(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("testdata/claude")
	if err != nil {
		t.Fatal(err)
	}
	// A skill and a command listed in about 150 characters pass the
	// 120 characters of 1 % of a 3,000-token window, not the 160 of a
	// 4,000-token one.
	c := compute(t, dir, Options{ContextWindow: 3000, Counter: counter(t)})
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "over Claude Code's budget of 120 characters, 1% of the 3000-token context window") {
		t.Errorf("warnings %v", c.Warnings)
	}
	c = compute(t, dir, Options{ContextWindow: 4000, Counter: counter(t)})
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %v with a 4,000-token window", c.Warnings)
	}
}

func TestSkillListingCut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	desc := strings.Repeat("word ", 400) // 2,000 characters
	testtree.WriteAt(t, dir, ".claude/skills/long/SKILL.md", "---\nname: long\ndescription: "+desc+"\n---\nbody\n")
	c := compute(t, dir, Options{Counter: counter(t)})
	cut := "- long: " + strings.TrimSpace(desc)[:config.DefaultSkillListing] + "\n"
	if len(c.AlwaysLoaded) != 1 || c.AlwaysLoaded[0].Tokens != counter(t).Count(cut) {
		t.Errorf("alwaysLoaded %+v, want one entry of %d tokens", c.AlwaysLoaded, counter(t).Count(cut))
	}
}

func TestCommandHiddenBySkill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.WriteAt(t, dir, ".claude/skills/review/SKILL.md", "---\nname: review\ndescription: Review a diff.\n---\nbody\n")
	testtree.WriteAt(t, dir, ".claude/commands/review.md", "---\ndescription: Old review command.\n---\nReview.\n")
	c := compute(t, dir, Options{Counter: counter(t)})
	if len(c.AlwaysLoaded) != 1 || c.AlwaysLoaded[0].File != ".claude/skills/review/SKILL.md" {
		t.Errorf("alwaysLoaded %+v, want only the skill's listing entry", c.AlwaysLoaded)
	}
	for _, e := range c.OnDemand {
		if e.File == ".claude/commands/review.md" {
			t.Errorf("the hidden command is listed as on demand: %+v", e)
		}
	}
}

// TestCodexChain checks the cap over the chain of AGENTS.md files: a
// nested file is read after the root's, cut where the chain reaches the
// cap, and an empty file gives way to the next name of its folder.
func TestCodexChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := strings.Repeat("r", 20000)
	nested := strings.Repeat("n", 20000)
	testtree.WriteAt(t, dir, "AGENTS.md", root)
	testtree.WriteAt(t, dir, "pkg/AGENTS.md", nested)
	testtree.WriteAt(t, dir, "empty/AGENTS.md", " \n")
	testtree.WriteAt(t, dir, "empty/NOTES.md", "notes\n")
	testtree.WriteAt(t, dir, ".codex/config.toml", "project_doc_fallback_filenames = [\"NOTES.md\"]\n")
	c := compute(t, dir, Options{Agent: Codex, Counter: counter(t)})
	var pkg, empty *Entry
	for i, e := range c.OnDemand {
		switch e.File {
		case "pkg/AGENTS.md":
			pkg = &c.OnDemand[i]
		case "empty/NOTES.md":
			empty = &c.OnDemand[i]
		case "empty/AGENTS.md":
			t.Errorf("an empty AGENTS.md is listed: %+v", e)
		}
	}
	if pkg == nil || pkg.Tokens != counter(t).Count(nested[:32768-20000]) {
		t.Errorf("pkg/AGENTS.md: %+v, want the first %d bytes counted", pkg, 32768-20000)
	}
	if empty == nil || empty.Tokens != counter(t).Count("notes\n") {
		t.Errorf("the fallback name in a folder with an empty AGENTS.md: %+v", empty)
	}
}

func TestOtherAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := "# Agents\n\n" + strings.Repeat("Keep the build green. ", 2000) // about 44 KB
	testtree.WriteAt(t, dir, "AGENTS.md", big)
	testtree.WriteAt(t, dir, "pkg/AGENTS.md", "pkg notes\n")
	testtree.WriteAt(t, dir, ".cursor/rules/always.mdc", "---\nalwaysApply: true\n---\nAlways.\n")
	testtree.WriteAt(t, dir, ".cursor/rules/go.mdc", "---\nglobs: \"**/*.go\"\n---\nGo.\n")
	testtree.WriteAt(t, dir, ".cursor/rules/asked.mdc", "---\ndescription: Database migrations\n---\nMigrate.\n")
	testtree.WriteAt(t, dir, ".cursor/rules/manual.mdc", "Manual.\n")
	testtree.WriteAt(t, dir, ".github/copilot-instructions.md", "Be brief.\n")
	testtree.WriteAt(t, dir, ".github/instructions/all.instructions.md", "---\napplyTo: \"**\"\n---\nAll.\n")
	testtree.WriteAt(t, dir, ".github/instructions/go.instructions.md", "---\napplyTo: \"**/*.go\"\n---\nGo.\n")
	testtree.WriteAt(t, dir, ".github/prompts/plan.prompt.md", "---\ndescription: Plan\n---\nPlan it.\n")
	testtree.WriteAt(t, dir, "CLAUDE.md", "claude only\n")
	set := load(t, dir)
	files := func(agent string) (always, demand []string, c *Cost) {
		c, err := Compute(context.Background(), set, Options{Agent: agent, Counter: counter(t)})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.AlwaysLoaded {
			always = append(always, e.File)
		}
		for _, e := range c.OnDemand {
			demand = append(demand, e.File)
		}
		return always, demand, c
	}
	always, demand, c := files(Codex)
	// The root's file fills the cap over the chain: started in pkg/,
	// Codex reads nothing of pkg/AGENTS.md.
	if !slices.Equal(always, []string{"AGENTS.md"}) || len(demand) != 0 {
		t.Errorf("codex: always %v, on demand %v", always, demand)
	}
	capped := counter(t).Count(big[:config.DefaultAgentsMdBytes])
	if c.AlwaysLoaded[0].Tokens != capped || len(c.Warnings) != 1 {
		t.Errorf("codex AGENTS.md: %d tokens (want %d, the first 32 KiB), warnings %v", c.AlwaysLoaded[0].Tokens, capped, c.Warnings)
	}
	always, demand, _ = files(Cursor)
	if !slices.Equal(always, []string{"AGENTS.md", ".cursor/rules/always.mdc", ".cursor/rules/asked.mdc"}) {
		t.Errorf("cursor: always %v", always)
	}
	if !slices.Equal(demand, []string{"pkg/AGENTS.md", ".cursor/rules/asked.mdc", ".cursor/rules/go.mdc", ".cursor/rules/manual.mdc"}) {
		t.Errorf("cursor: on demand %v", demand)
	}
	always, demand, _ = files(Copilot)
	if !slices.Equal(always, []string{"AGENTS.md", ".github/copilot-instructions.md", ".github/instructions/all.instructions.md"}) ||
		!slices.Equal(demand, []string{"pkg/AGENTS.md", ".github/instructions/go.instructions.md", ".github/prompts/plan.prompt.md"}) {
		t.Errorf("copilot: always %v, on demand %v", always, demand)
	}
	testtree.WriteAt(t, dir, "AGENTS.override.md", "Override.\n")
	c, err := Compute(context.Background(), load(t, dir), Options{Agent: Codex, Counter: counter(t)})
	if err != nil || len(c.AlwaysLoaded) != 1 || c.AlwaysLoaded[0].File != "AGENTS.override.md" || c.AlwaysLoaded[0].Tokens != counter(t).Count("Override.\n") {
		t.Errorf("codex with an override: %+v, %v", c, err)
	}
	if _, err := Compute(context.Background(), set, Options{Agent: "zed"}); err == nil {
		t.Error("an unknown agent gave no error")
	}
}

// compute loads the agent files under dir and computes their cost with
// opt, failing the test on an error.
func compute(t *testing.T, dir string, opt Options) *Cost {
	t.Helper()
	c, err := Compute(context.Background(), load(t, dir), opt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClaudeLinkedSkills checks that a session counts the skills whose
// folders under .claude/skills are links, as Cline's repository keeps
// them (to .agents/skills and .cline/skills), and not those behind a
// link that leaves the workspace.
func TestClaudeLinkedSkills(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		".agents/skills/opentui/SKILL.md":    "---\nname: opentui\ndescription: Builds terminal UIs with OpenTUI. Use for TUI work.\n---\n\n# OpenTUI\n",
		".cline/skills/publish-cli/SKILL.md": "---\nname: publish-cli\ndescription: Publishes the CLI to npm. Use when releasing.\n---\n\n# Publish\n",
	})
	fsguardtest.Links(t, dir, map[string]string{
		".claude/skills/opentui":     "../../.agents/skills/opentui",
		".claude/skills/publish-cli": "../../.cline/skills/publish-cli",
		".claude/skills/away":        filepath.Dir(fsguardtest.Outside(t, "away/SKILL.md", "---\nname: away\ndescription: Away.\n---\n")),
	})
	c := compute(t, dir, Options{Agent: Claude, Counter: counter(t)})
	var listed []string
	for _, e := range c.AlwaysLoaded {
		if e.Reason == "skill listing" {
			listed = append(listed, e.File)
		}
	}
	want := []string{".claude/skills/opentui/SKILL.md", ".claude/skills/publish-cli/SKILL.md"}
	if !slices.Equal(listed, want) {
		t.Errorf("skill listings %v, want %v", listed, want)
	}
}

func TestGemini(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("Gemini has no byte cap. ", 2000) // 48 KB
	testtree.WriteAt(t, dir, "GEMINI.md", "# Project\n\n@./docs/style.md\n\n"+big)
	testtree.WriteAt(t, dir, "docs/style.md", "Style.\n\n@./more.md\n")
	testtree.WriteAt(t, dir, "docs/more.md", "More.\n\n@./style.md\n")
	testtree.WriteAt(t, dir, "pkg/GEMINI.md", "pkg\n")
	testtree.WriteAt(t, dir, "AGENTS.md", "codex only\n")
	c := compute(t, dir, Options{Agent: Gemini, Counter: counter(t)})
	var always []string
	for _, e := range c.AlwaysLoaded {
		always = append(always, e.File)
	}
	if !slices.Equal(always, []string{"GEMINI.md", "docs/style.md", "docs/more.md"}) {
		t.Errorf("always %v", always)
	}
	if c.AlwaysLoaded[0].Tokens <= counter(t).Count(big[:32768]) || len(c.Warnings) != 0 {
		t.Errorf("GEMINI.md was cut: %d tokens, warnings %v", c.AlwaysLoaded[0].Tokens, c.Warnings)
	}
	if len(c.OnDemand) != 1 || c.OnDemand[0].File != "pkg/GEMINI.md" {
		t.Errorf("on demand %+v", c.OnDemand)
	}
	// context.fileName naming AGENTS.md makes it Gemini's context file.
	testtree.WriteAt(t, dir, ".gemini/settings.json", `{"context": {"fileName": "AGENTS.md"}}`)
	c = compute(t, dir, Options{Agent: Gemini, Counter: counter(t)})
	if len(c.AlwaysLoaded) != 1 || c.AlwaysLoaded[0].File != "AGENTS.md" {
		t.Errorf("with context.fileName AGENTS.md: %+v", c.AlwaysLoaded)
	}
}

// TestAgentsAreTheFacts checks that every agent of the facts table has a
// session, counted in the tokenizer its facts name.
func TestAgentsAreTheFacts(t *testing.T) {
	t.Parallel()
	set := load(t, t.TempDir())
	for _, a := range agentfacts.All() {
		if _, err := Compute(context.Background(), set, Options{Agent: a.Name, Counter: counter(t)}); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
		if got, want := TokenizerOf(a.Name).Name, a.Tokenizer; got != want {
			t.Errorf("%s counts in %s, the facts say %s", a.Name, got, want)
		}
	}
	if !slices.Equal(Agents, agentfacts.Names()) {
		t.Errorf("Agents = %v, the facts' %v", Agents, agentfacts.Names())
	}
}

// TestClaudeOutputStyle checks that the output style the project's
// settings select is always loaded, at its body's tokens, and that
// settings.local.json wins over settings.json.
func TestClaudeOutputStyle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, text string) { testtree.WriteAt(t, dir, rel, text) }
	body := "Answer in as few words as will do, and never apologise.\n"
	write(".claude/output-styles/terse.md", "---\nname: Terse\ndescription: Short answers.\n---\n"+body)
	write(".claude/output-styles/long.md", "---\ndescription: Long answers.\n---\nExplain everything at length.\n")
	write(".claude/settings.json", `{"outputStyle": "long"}`)
	write(".claude/settings.local.json", `{"outputStyle": "Terse"}`)
	c := compute(t, dir, Options{Agent: Claude, Counter: counter(t)})
	var styles []Entry
	for _, e := range c.AlwaysLoaded {
		if strings.Contains(e.Reason, "output style") {
			styles = append(styles, e)
		}
	}
	if len(styles) != 1 || styles[0].File != ".claude/output-styles/terse.md" {
		t.Fatalf("output styles always loaded: %v, want terse.md alone", styles)
	}
	if n := counter(t).Count(body); styles[0].Tokens != n {
		t.Errorf("terse.md: %d tokens, its body has %d", styles[0].Tokens, n)
	}

	write(".claude/settings.local.json", `{"outputStyle": "Explanatory"}`)
	c = compute(t, dir, Options{Agent: Claude, Counter: counter(t)})
	for _, e := range c.AlwaysLoaded {
		if strings.Contains(e.Reason, "output style") {
			t.Errorf("a built-in style is counted as %s", e.File)
		}
	}
}

// TestKiro checks Kiro's session: AGENTS.md always included, at the root
// and in subfolders; steering by inclusion; and the files #[[file:…]]
// references embed, at start with a steering file always included, later
// with one included later, each once, and none for a file that is not
// there or a reference in code.
func TestKiro(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.WriteAt(t, dir, "AGENTS.md", "Build with make.\n")
	testtree.WriteAt(t, dir, "api/AGENTS.md", "The API's notes.\n")
	testtree.WriteAt(t, dir, "docs/style.md", "Short functions.\n")
	testtree.WriteAt(t, dir, "docs/api.yaml", "openapi: 3.1.0\n")
	testtree.WriteAt(t, dir, ".kiro/steering/tech.md", "---\ninclusion: always\n---\nSee #[[file:docs/style.md]] and #[[file:docs/none.md]]; `#[[file:docs/api.yaml]]` in code.\n")
	testtree.WriteAt(t, dir, ".kiro/steering/api.md", "---\ninclusion: manual\n---\nThe API: #[[file:docs/api.yaml]], styled as #[[file:docs/style.md]].\n")
	c := compute(t, dir, Options{Agent: Kiro, Counter: counter(t)})
	var always, later []string
	for _, e := range c.AlwaysLoaded {
		always = append(always, e.File)
	}
	for _, e := range c.OnDemand {
		later = append(later, e.File)
	}
	if want := []string{"AGENTS.md", "api/AGENTS.md", ".kiro/steering/tech.md", "docs/style.md"}; !slices.Equal(always, want) {
		t.Errorf("at start %q, want %q", always, want)
	}
	if want := []string{".kiro/steering/api.md", "docs/api.yaml"}; !slices.Equal(later, want) {
		t.Errorf("later %q, want %q", later, want)
	}
	if e := c.AlwaysLoaded[3]; e.Tokens != fileTokens(t, dir, "docs/style.md") || !strings.Contains(e.Reason, ".kiro/steering/tech.md") {
		t.Errorf("docs/style.md: %+v", e)
	}
}

// TestOpenCodeSkills checks that an OpenCode session lists the skills of
// every folder its skills page names, at any depth of the folder, each
// name once, and loads a body only when the agent calls it; skills of a
// subfolder's .claude/skills or of other folders are not counted.
func TestOpenCodeSkills(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"opencode.json":                        "{}\n",
		".opencode/skills/release/SKILL.md":    "---\nname: release\ndescription: Cut a release.\n---\nRelease steps.\n",
		".opencode/skill/legacy/SKILL.md":      "---\nname: legacy\ndescription: The singular folder.\n---\nOld.\n",
		".claude/skills/review/SKILL.md":       "---\nname: review\ndescription: Review a diff.\n---\nReview it.\n",
		".agents/skills/group/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the app.\n---\nDeploy.\n",
		".agents/skills/release/SKILL.md":      "---\nname: release\ndescription: The same name again.\n---\nAgain.\n",
		"pkg/.claude/skills/nested/SKILL.md":   "---\nname: nested\ndescription: Only when started in pkg.\n---\nNested.\n",
		"skills/collection/SKILL.md":           "---\nname: collection\ndescription: Not a folder OpenCode reads.\n---\nNo.\n",
	})
	c := compute(t, dir, Options{Agent: OpenCode, Counter: counter(t)})
	type row struct{ file, reason string }
	var always, demand []row
	for _, e := range c.AlwaysLoaded {
		always = append(always, row{e.File, e.Reason})
	}
	for _, e := range c.OnDemand {
		demand = append(demand, row{e.File, e.Reason})
	}
	wantAlways := []row{
		{".opencode/skills/release/SKILL.md", "skill listing (.opencode/skills)"},
		{".opencode/skill/legacy/SKILL.md", "skill listing (.opencode/skill)"},
		{".claude/skills/review/SKILL.md", "skill listing (.claude/skills)"},
		{".agents/skills/group/deploy/SKILL.md", "skill listing (.agents/skills)"},
	}
	if !slices.Equal(always, wantAlways) {
		t.Errorf("alwaysLoaded:\n got  %v\n want %v", always, wantAlways)
	}
	if len(demand) != len(wantAlways) {
		t.Errorf("onDemand %v, want one body per listed skill", demand)
	}
	listed := map[string]string{
		".opencode/skills/release/SKILL.md":    listingLine("release", "Cut a release."),
		".opencode/skill/legacy/SKILL.md":      listingLine("legacy", "The singular folder."),
		".claude/skills/review/SKILL.md":       listingLine("review", "Review a diff."),
		".agents/skills/group/deploy/SKILL.md": listingLine("deploy", "Deploy the app."),
	}
	for i, e := range c.AlwaysLoaded {
		if want := counter(t).Count(listed[e.File]); e.Tokens != want {
			t.Errorf("%s: listing of %d tokens, want %d", e.File, e.Tokens, want)
		}
		if i < len(c.OnDemand) && c.OnDemand[i].File != e.File {
			t.Errorf("body %s follows the listing of %s", c.OnDemand[i].File, e.File)
		}
	}
	if got := Configured(load(t, testtree.New(t, map[string]string{".opencode/skills/a/SKILL.md": "---\nname: a\ndescription: A.\n---\n"}))); !slices.Contains(got, OpenCode) {
		t.Errorf("a project with .opencode/skills configures %v, want OpenCode among them", got)
	}
}
