package library

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/context/config"
)

// TestConfiguredRootInDotDirectory loads a workspace the way `ctxls check`
// does (the library reads .ctxls.yaml itself) with the README's example of
// a command root in a hidden directory.
func TestConfiguredRootInDotDirectory(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		".ctxls.yaml":                      "commandRoots: [.claude/commands]\n",
		"context/python/index.md":          "# Python\n",
		".claude/commands/review.md":       "---\ndescription: Review\n---\n\nLoad `python:zzz`.\n",
		".claude/commands/ship/COMMAND.md": "# Ship\n",
	})
	l, err := Load(context.Background(), dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, c := range l.Snapshot().Commands() {
		cmds = append(cmds, c.Name)
	}
	if want := []string{"review", "ship"}; !slices.Equal(cmds, want) {
		t.Errorf("commands = %v, want %v", cmds, want)
	}
	got := diagsOf(t, l, ".claude/commands/review.md")
	if !slices.ContainsFunc(got, func(d diag) bool { return d.Code == CodeUnresolved && d.Text == "zzz" }) {
		t.Errorf("diagnostics of review.md = %v, want an unresolved reference to python:zzz", got)
	}
}

func TestDiscoveryDirectoryRules(t *testing.T) {
	t.Parallel()
	testDiscovery(t, []discoveryCase{
		{
			name: "configured command root in a hidden directory",
			files: map[string]string{
				".claude/commands/review.md":         "# Review\n",
				".claude/commands/.drafts/wip.md":    "# WIP\n",
				".claude/CLAUDE.md":                  "# Not on the way to a root\n",
				".claude/agents/helper.md":           "# Not on the way to a root\n",
				".claude/agents/commands/x.md":       "# Not a root: in a hidden directory\n",
				".github/commands/deploy.md":         "# Not a root: hidden, not configured\n",
				".git/commands/hook.md":              "# Never\n",
				"context/python/a.md":                "# A\n",
				"docs/.hidden/context/go/b.md":       "# Hidden below a visible directory\n",
				".claude/commands/sub/COMMAND.md":    "# Sub\n",
				".claude/commands/node_modules/m.md": "# Never\n",
			},
			cfg:          func(c *config.Config) { c.CommandRoots = []string{".claude/commands"} },
			contextRoots: []string{"context"},
			commandRoots: []string{".claude/commands"},
			topics:       []string{"python/a"},
			commands:     []string{"review", "sub"},
			files2:       []string{".claude/commands/review.md", ".claude/commands/sub/COMMAND.md", "context/python/a.md"},
		},
		{
			name: "configured context root below hidden directories",
			files: map[string]string{
				".config/.kb/python/a.md": "# A\n",
				".config/notes.md":        "# Not on the way to a root\n",
			},
			cfg:          func(c *config.Config) { c.ContextRoots = []string{".config/.kb"} },
			contextRoots: []string{".config/.kb"},
			topics:       []string{"python/a"},
			files2:       []string{".config/.kb/python/a.md"},
		},
		{
			name: "ignore patterns apply on the way to a configured root too",
			files: map[string]string{
				".claude/commands/review.md": "# Review\n",
			},
			cfg: func(c *config.Config) {
				c.CommandRoots = []string{".claude/commands"}
				c.Ignore = []string{".claude"}
			},
			commandRoots: []string{".claude/commands"},
		},
		{
			name: "heavy directories are never read",
			files: map[string]string{
				"context/python/a.md":                "# A\n",
				".venv/lib/context/x/y.md":           "# Never\n",
				"venv/lib/context/x/y.md":            "# Never\n",
				"pkg/__pycache__/context/x/y.md":     "# Never\n",
				".tox/py/context/x/y.md":             "# Never\n",
				".mypy_cache/context/x/y.md":         "# Never\n",
				".pytest_cache/README.md":            "# Never\n",
				".next/server/context/x/y.md":        "# Never\n",
				".cache/context/x/y.md":              "# Never\n",
				"vendor/github.com/x/context/x/y.md": "# Never\n",
				"web/node_modules/context/x/y.md":    "# Never\n",
			},
			contextRoots: []string{"context"},
			topics:       []string{"python/a"},
			files2:       []string{"context/python/a.md"},
		},
		{
			name: "build output at the top is skipped; domains and commands named build are not",
			files: map[string]string{
				"context/build/make.md":       "# A domain named build\n",
				"context/dist/wheels.md":      "# A domain named dist\n",
				"context/target/triples.md":   "# A domain named target\n",
				"commands/build.md":           "# Build\n",
				"commands/target/COMMAND.md":  "# Target\n",
				"docs/build/notes.md":         "# Nested build directories are read\n",
				"build/context/python/a.md":   "# A copy of the library in build output\n",
				"dist/commands/deploy.md":     "# Never\n",
				"target/doc/README.md":        "# Never\n",
				"build.md":                    "# A file named build\n",
				"services/api/dist/README.md": "# Nested dist directories are read\n",
			},
			contextRoots: []string{"context"},
			commandRoots: []string{"commands"},
			topics:       []string{"build/make", "dist/wheels", "target/triples"},
			commands:     []string{"build", "target"},
			files2: []string{"build.md", "commands/build.md", "commands/target/COMMAND.md",
				"context/build/make.md", "context/dist/wheels.md", "context/target/triples.md",
				"docs/build/notes.md", "services/api/dist/README.md"},
		},
		{
			name: "a workspace that is itself a context root has a domain named build",
			files: map[string]string{
				"loading_protocol.md": "# Protocol\n",
				"build/index.md":      "# Build\n",
				"build/make.md":       "# Make\n",
			},
			contextRoots: []string{"."},
			topics:       []string{"build/index", "build/make", "loading_protocol"},
			files2:       []string{"build/index.md", "build/make.md", "loading_protocol.md"},
		},
		{
			name: "configured root inside build output",
			files: map[string]string{
				"build/kb/python/a.md": "# A\n",
				"build/other.md":       "# Not on the way to a root\n",
				"build/out/x.md":       "# Not on the way to a root\n",
			},
			cfg:          func(c *config.Config) { c.ContextRoots = []string{"build/kb"} },
			contextRoots: []string{"build/kb"},
			topics:       []string{"python/a"},
			files2:       []string{"build/kb/python/a.md"},
		},
	})
}

func TestFilter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.CommandRoots = []string{".claude/commands"}
	cfg.ContextRoots = []string{"build/kb", "../outside"}
	cfg.Ignore = []string{"drafts"}
	f := filterFor(dir, cfg)
	tests := []struct {
		rel      string
		skipDir  bool // as a directory
		skipFile bool // a markdown file in it
	}{
		{"docs", false, false},
		{".claude", false, true}, // on the way to a root: watched, files not read
		{".claude/commands", false, false},
		{".claude/commands/sub", false, false},
		{".claude/commands/.git", true, true},
		{".claude/agents", true, true},
		{".github", true, true},
		{".git", true, true},
		{"node_modules", true, true},
		{"src/.venv", true, true},
		{"src/__pycache__", true, true},
		{"build", false, true}, // on the way to build/kb
		{"build/kb", false, false},
		{"build/kb/build", false, false},
		{"build/out", true, true},
		{"dist", true, true},
		{"target", true, true},
		{"src/target", false, false},
		{"context/build", false, false},
		{"context/drafts", true, true},
		{"vendor", true, true},
		{"venv", true, true},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, filepath.FromSlash(tc.rel))
		if got := f.SkipDir(p); got != tc.skipDir {
			t.Errorf("SkipDir(%s) = %v, want %v", tc.rel, got, tc.skipDir)
		}
		if got := f.SkipFile(filepath.Join(p, "a.md")); got != tc.skipFile {
			t.Errorf("SkipFile(%s/a.md) = %v, want %v", tc.rel, got, tc.skipFile)
		}
	}
	if f.SkipFile(filepath.Join(dir, "README.md")) {
		t.Error("a file at the top of the workspace is skipped")
	}
}
