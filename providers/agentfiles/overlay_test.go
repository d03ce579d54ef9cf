package agentfiles

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
)

// An editor's unsaved texts replace the disk's in the set WithTexts
// returns, and only there.
func TestWithTexts(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		".claude/skills/a/SKILL.md": "---\nname: a\ndescription: On disk.\n---\n\nBody.\n",
		".claude/commands/go.md":    "Go.\n",
	})
	set, err := Load(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(dir, ".claude", "skills", "a", "SKILL.md")
	added := filepath.Join(dir, ".claude", "skills", "b", "SKILL.md")
	notAgent := filepath.Join(dir, "notes.md")
	got := set.WithTexts(t.Context(), map[string][]byte{
		skill:    []byte("---\nname: a\ndescription: In the editor.\n---\n\nBody.\n"),
		added:    []byte("---\nname: b\ndescription: Not saved yet.\n---\n"),
		notAgent: []byte("# Notes\n"),
	})
	desc := func(s *Set, p string) string {
		f, ok := s.File(p)
		if !ok {
			return "(none)"
		}
		return f.Meta.Description
	}
	for _, c := range []struct {
		set  *Set
		path string
		want string
	}{
		{got, skill, "In the editor."},
		{got, added, "Not saved yet."},
		{got, notAgent, "(none)"},
		{set, skill, "On disk."},
		{set, added, "(none)"},
	} {
		if d := desc(c.set, c.path); d != c.want {
			t.Errorf("%s: description %q, want %q", c.path, d, c.want)
		}
	}
	if len(got.Files) != 3 || len(set.Files) != 2 {
		t.Errorf("%d files with the texts, %d without; want 3 and 2", len(got.Files), len(set.Files))
	}
	for i := 1; i < len(got.Files); i++ {
		if got.Files[i-1].Rel > got.Files[i].Rel {
			t.Errorf("files not sorted: %s before %s", got.Files[i-1].Rel, got.Files[i].Rel)
		}
	}
	if set.WithTexts(t.Context(), nil) != set {
		t.Error("no texts made a new set")
	}
}

// The set WithTexts returns keeps what the project's settings say about
// which files load (Codex's fallback names and cap, Gemini CLI's context
// file names, VS Code's instructions folders), read from the editor's
// text of a settings file it has open.
func TestWithTextsSettings(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		".codex/config.toml":                 "project_doc_fallback_filenames = [\"TEAM.md\"]\nproject_doc_max_bytes = 600\n",
		".gemini/settings.json":              "{\"context\": {\"fileName\": [\"AGENTS.md\", \"GEMINI.md\"]}}\n",
		".vscode/settings.json":              "{\"chat.instructionsFilesLocations\": {\".github/prompts\": true}}\n",
		"jobs/TEAM.md":                       "# Jobs\n",
		"GEMINI.md":                          "# Gemini\n",
		".claude/commands/go.md":             "Go.\n",
		".github/prompts/up.instructions.md": "Upgrade.\n",
	})
	set, err := Load(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		cap      int
		gemini   string
		problems string
		team     Kind
		notes    Kind
	}
	of := func(s *Set) state {
		kind := func(rel string) Kind {
			if f, ok := s.File(filepath.Join(dir, filepath.FromSlash(rel))); ok {
				return f.Kind
			}
			return KindUnknown
		}
		return state{s.CodexCap(), strings.Join(s.GeminiNames(), ","), s.CodexConfigProblem() + s.GeminiSettingsProblem(),
			kind("jobs/TEAM.md"), kind(".github/prompts/notes.instructions.md")}
	}
	disk := state{600, "AGENTS.md,GEMINI.md", "", KindAgentsMd, KindUnknown}
	if got := of(set); got != disk {
		t.Errorf("on disk: %+v, want %+v", got, disk)
	}
	notes := filepath.Join(dir, ".github", "prompts", "notes.instructions.md")
	// Another file open: the settings stay the disk's, and a new file in
	// an instructions folder of theirs is an instructions file.
	if got := of(set.WithTexts(t.Context(), map[string][]byte{
		filepath.Join(dir, ".claude", "commands", "go.md"): []byte("Go on.\n"),
		notes: []byte("Notes.\n"),
	})); got != (state{600, "AGENTS.md,GEMINI.md", "", KindAgentsMd, KindCopilotInstructions}) {
		t.Errorf("with a command open: %+v", got)
	}
	// The settings open, broken in the editor: the defaults, and why.
	got := of(set.WithTexts(t.Context(), map[string][]byte{
		filepath.Join(dir, ".codex", "config.toml"):    []byte("project_doc_max_bytes = \"600\"\n"),
		filepath.Join(dir, ".gemini", "settings.json"): []byte("{\"context\": {\"fileName\": 5}}\n"),
		filepath.Join(dir, ".vscode", "settings.json"): []byte("{}\n"),
		notes: []byte("Notes.\n"),
	}))
	if got.cap != 32<<10 || got.gemini != "GEMINI.md" || !strings.Contains(got.problems, ".codex/config.toml line 1") ||
		!strings.Contains(got.problems, ".gemini/settings.json line 1") || got.notes != KindUnknown {
		t.Errorf("with the settings broken in the editor: %+v", got)
	}
}
