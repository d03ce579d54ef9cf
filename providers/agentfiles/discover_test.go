package agentfiles

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	// tools/myplug holds .claude-plugin, and so does market, the root of
	// a marketplace whose plugins/NAME folders are plugins.
	plugin := func(dir string) bool { return dir == "tools/myplug" || dir == "market" }
	tests := []struct {
		rel  string
		want Kind
	}{
		{".claude/skills/deploy/SKILL.md", KindSkill},
		{"skills/x/SKILL.md", KindSkill},
		{"plugins/p/skills/x/SKILL.md", KindSkill},
		{".agents/skills/x/SKILL.md", KindSkill},
		{"SKILL.md", KindUnknown},
		{".claude/commands/review.md", KindCommand},
		{".claude/commands/git/commit.md", KindCommand},
		{"market/plugins/p/commands/c.md", KindCommand},
		{"plugins/p/commands/c.md", KindUnknown},
		{"tools/myplug/commands/c.md", KindCommand},
		{"commands/implement.md", KindUnknown},
		{".claude/agents/reviewer.md", KindSubagent},
		{"market/plugins/p/agents/a.md", KindSubagent},
		// Another tool's plugins folder, with no marketplace above it.
		{"sdk/examples/plugins/agents-squad/agents/oracle.md", KindUnknown},
		{"plugins/p/agents/a.md", KindUnknown},
		{"tools/myplug/agents/a.md", KindSubagent},
		{"docs/agents/a.md", KindUnknown},
		{".claude/agents/README.md", KindUnknown},
		{"CLAUDE.md", KindMemory},
		{"sub/CLAUDE.local.md", KindMemory},
		{".claude/CLAUDE.md", KindMemory},
		{".claude/rules/go.md", KindRule},
		{".claude/rules/lang/go.md", KindRule},
		{".claude-plugin/plugin.json", KindPlugin},
		{"plugins/p/.claude-plugin/plugin.json", KindPlugin},
		{".claude-plugin/marketplace.json", KindMarketplace},
		{"plugin.json", KindUnknown},
		{".mcp.json", KindMCP},
		{"plugins/p/.lsp.json", KindLSP},
		{"AGENTS.md", KindAgentsMd},
		{"pkg/GEMINI.md", KindAgentsMd},
		{".cursor/rules/style.mdc", KindCursorRule},
		{".cursor/rules/a/b.mdc", KindCursorRule},
		{"x.mdc", KindUnknown},
		{".github/copilot-instructions.md", KindCopilotInstructions},
		{".github/instructions/go.instructions.md", KindCopilotInstructions},
		{".github/prompts/review.prompt.md", KindCopilotPrompt},
		{"README.md", KindUnknown},
		{"agents", KindUnknown},
		{"", KindUnknown},
	}
	for _, tc := range tests {
		if got := Classify(tc.rel, plugin); got != tc.want {
			t.Errorf("Classify(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}

func TestDiscoverMeta(t *testing.T) {
	t.Parallel()
	files, err := discover(context.Background(), "testdata/valid", nil)
	if err != nil {
		t.Fatal(err)
	}
	var skill *File
	for i := range files {
		if files[i].Rel == ".claude/skills/deploy/SKILL.md" {
			skill = &files[i]
		}
	}
	if skill == nil {
		t.Fatalf("the deploy skill was not discovered: %+v", files)
	}
	m := skill.Meta
	if skill.Kind != KindSkill || !m.HasFrontmatter || m.Name != "deploy" || m.WhenToUse != "When a release is tagged." ||
		m.Description != "Deploys the service. Use when: the user asks to ship a release." || len(m.Globs) != 1 || m.Globs[0] != "deploy/**" {
		t.Errorf("meta = %+v", m)
	}
}

// Fixtures in testdata folders are broken on purpose and no agent loads
// them, like vendored folders; a root that is itself inside testdata is
// still read.
func TestDiscoverSkipsTestdata(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, rel := range []string{"skills/kept/SKILL.md", "pkg/testdata/skills/fixture/SKILL.md",
		"testdata/CLAUDE.md", "vendor/x/AGENTS.md", "CLAUDE.md"} {
		testtree.WriteAt(t, dir, rel, "---\nname: x\ndescription: X.\n---\n")
	}
	tests := []struct {
		root string
		want []string
	}{
		{dir, []string{"CLAUDE.md", "skills/kept/SKILL.md"}},
		{filepath.Join(dir, "pkg", "testdata"), []string{"skills/fixture/SKILL.md"}},
	}
	for _, tc := range tests {
		files, err := discover(context.Background(), tc.root, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range files {
			got = append(got, f.Rel)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("discover(%s) = %q, want %q", tc.root, got, tc.want)
		}
	}
}

// discover lists every agent file under root with its kind and metadata.
func discover(ctx context.Context, root string, cfg *config.Config) ([]File, error) {
	s, err := Load(ctx, root, cfg)
	if err != nil {
		return nil, err
	}
	out := make([]File, len(s.Files))
	for i, f := range s.Files {
		out[i] = *f
	}
	return out, nil
}

// mustLoad loads the agent files under root, failing the test on an error.
func mustLoad(t testing.TB, root string, cfg *config.Config) *Set {
	t.Helper()
	s, err := Load(context.Background(), root, cfg)
	if err != nil {
		t.Fatalf("Load(%s): %v", root, err)
	}
	return s
}

// TestLoadSpecialFiles checks that agent files pass the workspace's root
// check: a link to a file outside the workspace is kept as skipped without
// being read, a named pipe neither blocks Load nor is read, and a link
// inside the workspace is read.
func TestLoadSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testtree.Write(t, filepath.Join(dir, "notes.md"), "# Inside\n")
	fsguardtest.Links(t, dir, map[string]string{
		"CLAUDE.md": fsguardtest.Outside(t, "secret.md", "TOP-SECRET\n"),
		"GEMINI.md": filepath.Join(dir, "notes.md"),
	})
	fsguardtest.Pipe(t, filepath.Join(dir, "AGENTS.md"))
	s := fsguardtest.Call(t, "Load", func() (*Set, error) { return Load(t.Context(), dir, nil) })
	tests := []struct {
		rel, skipped string // skipped: "" when the file must be read
	}{
		{"CLAUDE.md", "outside the workspace"},
		{"AGENTS.md", "not a regular file"},
		{"GEMINI.md", ""},
	}
	for _, tt := range tests {
		f, ok := s.File(filepath.Join(dir, tt.rel))
		switch {
		case !ok:
			t.Errorf("%s: not found among %d agent files", tt.rel, len(s.Files))
		case strings.Contains(string(f.Text), "TOP-SECRET"):
			t.Errorf("%s: read from outside the workspace", tt.rel)
		case tt.skipped == "" && (f.Skipped != "" || !strings.Contains(string(f.Text), "Inside")):
			t.Errorf("%s: Skipped %q, text %q; want it read", tt.rel, f.Skipped, f.Text)
		case tt.skipped != "" && !strings.Contains(f.Skipped, tt.skipped):
			t.Errorf("%s: Skipped %q; want it to say %q", tt.rel, f.Skipped, tt.skipped)
		}
	}
}

// TestSkillLinksThroughSymlinks checks the links of a skill whose paths
// pass symbolic links to folders, which the listing of the workspace does
// not enter: a link to a folder of the workspace names its files, and a
// link out of the workspace is reported as leaving it, without a false
// skill-link-broken and without saying where it leads.
func TestSkillLinksThroughSymlinks(t *testing.T) {
	t.Parallel()
	secret := fsguardtest.Outside(t, "notes.md", "# Private\n")
	dir := testtree.New(t, map[string]string{
		"shared/guide.md": "# Guide\n",
		".claude/skills/x/SKILL.md": "---\nname: x\ndescription: Does x. Use when x is needed.\n---\n# X\n\n" +
			"See [the guide](refs/guide.md), [the notes](private/notes.md) and [a gap](refs/none.md).\n",
	})
	fsguardtest.Links(t, dir, map[string]string{
		".claude/skills/x/refs":    filepath.Join(dir, "shared"),
		".claude/skills/x/private": filepath.Dir(secret),
	})
	s := mustLoad(t, dir, nil)
	p := filepath.Join(dir, ".claude", "skills", "x", "SKILL.md")
	var got []string
	for _, d := range s.Check(t.Context())[p] {
		got = append(got, d.Code)
		if strings.Contains(d.Message, filepath.Dir(secret)) {
			t.Errorf("%s says where the link leads: %s", d.Code, d.Message)
		}
		if d.Code == diag.SkillLinkOutside && !strings.Contains(d.Message, "through a symbolic link") {
			t.Errorf("%s: %s; want it to say the link leads out of the workspace", d.Code, d.Message)
		}
	}
	if want := []string{diag.SkillLinkOutside, diag.SkillLinkBroken}; !slices.Equal(got, want) {
		t.Errorf("diagnostics %v; want %v (private/notes.md, then refs/none.md)", got, want)
	}
}
