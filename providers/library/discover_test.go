package library

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library/discover"
)

// discoveryCase is a tree to load and what discovery must find in it.
type discoveryCase struct {
	name         string
	files        map[string]string
	cfg          func(*config.Config)
	contextRoots []string // relative to the workspace; "." is the workspace itself
	commandRoots []string
	topics       []string
	commands     []string
	kinds        map[string]discover.Kind
	files2       []string // every file indexed, relative; nil leaves it unchecked
}

// TestDiscovery loads each case's tree and checks what was found, and
// that the filter a watcher uses agrees with the walk: every file indexed
// passes it, every other markdown file does not.
func TestDiscovery(t *testing.T) {
	t.Parallel()
	for _, tc := range []discoveryCase{
		{
			name: "a Rust crate's context module is no library",
			files: map[string]string{
				"src/context/mod.rs":    "",
				"src/context/README.md": "# The context module\n\nSee [mod](mod.rs).\n",
				"src/context/io/x.md":   "---\ndomain: storage\ntitle: X\n---\n# X\n",
				"README.md":             "# Crate\n",
			},
			kinds: map[string]discover.Kind{"src/context/README.md": discover.OtherFile, "src/context/io/x.md": discover.OtherFile},
		},
		{
			name: "folders holding an index.md are no library",
			files: map[string]string{
				"docs/index.md":  "# Docs\n",
				"docs/deploy.md": "# D\n\n## Browser WebRTC + server sideband\n",
				"guide/index.md": "# G\n",
			},
			kinds: map[string]discover.Kind{"docs/deploy.md": discover.OtherFile},
		},
		{
			name: "a loading protocol shows a library",
			files: map[string]string{
				"src/context/loading_protocol.md": "# Protocol\n",
				"src/context/python/a.md":         "# A\n",
			},
			contextRoots: []string{"src/context"},
			topics:       []string{"loading_protocol", "python/a"},
		},
		{
			name: "topic frontmatter shows a library: a key only topics write, or the file's own id",
			files: map[string]string{
				"a/context/python/x.md": "---\ntitle: X\nestimatedTokens: 10\n---\n# X\n",
				"b/context/go/y.md":     "---\nid: go/y\n---\n# Y\n",
				"c/context/go/y.md":     "---\nid: y\ndomain: golang\n---\n# Not its folder's domain\n",
			},
			contextRoots: []string{"a/context", "b/context"},
			topics:       []string{"go/y", "python/x"},
			kinds:        map[string]discover.Kind{"c/context/go/y.md": discover.OtherFile},
		},
		{
			name: "a command naming a topic shows a library",
			files: map[string]string{
				"context/python/a.md":    "# A\n",
				"commands/implement.md":  "# Implement\n\nLoad `python:a` first.\n",
				"tools/context/go/b.md":  "# B\n",
				"tools/commands/misc.md": "# Misc\n\nLoad `go:nothing`.\n",
			},
			contextRoots: []string{"context"},
			commandRoots: []string{"commands", "tools/commands"},
			topics:       []string{"python/a"},
			commands:     []string{"implement", "misc"},
		},
		{
			name: "directory named context anywhere",
			files: map[string]string{
				"context/python/a.md":         pythonA,
				"docs/context/go/b.md":        "---\ndomain: go\n---\n# B\n",
				"context/index.md":            "# Index\n",
				"notes.md":                    "# Notes\n",
				"node_modules/context/x/y.md": "# ignored\n",
				".hidden/context/x/y.md":      "# ignored\n",
			},
			contextRoots: []string{"context", "docs/context"},
			topics:       []string{"go/b", "index", "python/a"},
			kinds:        map[string]discover.Kind{"notes.md": discover.OtherFile, "context/python/a.md": discover.TopicFile},
		},
		{
			name: "configured context root",
			files: map[string]string{
				"kb/python/a.md": "# A\n",
				"kb/go/b.md":     "# B\n",
				"other/c.md":     "# C\n",
			},
			cfg:          func(c *config.Config) { c.ContextRoots = []string{"kb"} },
			contextRoots: []string{"kb"},
			topics:       []string{"go/b", "python/a"},
			kinds:        map[string]discover.Kind{"other/c.md": discover.OtherFile},
		},
		{
			name: "configured root outside the workspace is ignored",
			files: map[string]string{
				"context/python/a.md": pythonA,
			},
			cfg:          func(c *config.Config) { c.ContextRoots = []string{"../elsewhere"} },
			contextRoots: []string{"context"},
			topics:       []string{"python/a"},
		},
		{
			name: "command roots: NAME.md and NAME/COMMAND.md; index, readme and _docs are not commands",
			files: map[string]string{
				"context/python/a.md":        pythonA,
				"commands/implement.md":      "---\ndescription: Implement it\n---\n# Implement\n",
				"commands/test/COMMAND.md":   "# Test\n",
				"commands/test/examples.md":  "# Examples\n",
				"commands/index.md":          "# Index\n",
				"commands/README.md":         "# Readme\n",
				"commands/_docs/COMMAND.md":  "# Docs\n",
				"commands/_private.md":       "# Private\n",
				"plugin/commands/deploy.md":  "# Deploy\n",
				"context/commands/how_to.md": "# A topic of domain commands\n",
			},
			contextRoots: []string{"context"},
			commandRoots: []string{"commands", "plugin/commands"},
			topics:       []string{"commands/how_to", "python/a"},
			commands:     []string{"deploy", "implement", "test"},
			kinds: map[string]discover.Kind{
				"commands/test/examples.md":  discover.OtherFile,
				"commands/index.md":          discover.OtherFile,
				"commands/_docs/COMMAND.md":  discover.OtherFile,
				"context/commands/how_to.md": discover.TopicFile,
			},
		},
		{
			name: "a workspace that is itself a context root",
			files: map[string]string{
				"loading_protocol.md": "# Protocol\n",
				"python/index.md":     "# Python\n",
				"python/a.md":         "# A\n",
			},
			contextRoots: []string{"."},
			topics:       []string{"loading_protocol", "python/a", "python/index"},
		},
		{
			name: "configured ignore",
			files: map[string]string{
				"context/python/a.md":     pythonA,
				"context/drafts/b.md":     "# B\n",
				"context/python/old.md":   "# Old\n",
				"context/python/keep.txt": "not markdown",
			},
			cfg:          func(c *config.Config) { c.Ignore = []string{"drafts", "context/python/old.md"} },
			contextRoots: []string{"context"},
			topics:       []string{"python/a"},
		},
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
				"context/python/a.md":                pythonA,
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
			name: "Claude Code's command folder without configuration",
			files: map[string]string{
				".claude/commands/review.md":      "# Review\n",
				".claude/CLAUDE.md":               "# Not on the way to a root\n",
				".claude/agents/helper.md":        "# Not on the way to a root\n",
				".github/commands/deploy.md":      "# Not a root: hidden, not configured\n",
				"context/python/a.md":             pythonA,
				".claude/commands/sub/COMMAND.md": "# Sub\n",
			},
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
				"context/python/a.md":                pythonA,
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
				"context/build/make.md":       "---\ndomain: build\n---\n# A domain named build\n",
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := testtree.New(t, tc.files)
			cfg := config.Default()
			if tc.cfg != nil {
				tc.cfg(cfg)
			}
			l := load(t, dir, cfg)
			checkDiscovered(t, dir, l, tc.contextRoots, tc.commandRoots, tc.topics, tc.commands)
			for rel, want := range tc.kinds {
				f, ok := l.Snapshot().File(filepath.Join(dir, rel))
				if !ok {
					t.Errorf("file %s not indexed", rel)
					continue
				}
				if f.Kind != want {
					t.Errorf("%s kind = %v, want %v", rel, f.Kind, want)
				}
			}
			if got := fileNames(l); tc.files2 != nil && !slices.Equal(got, tc.files2) {
				t.Errorf("files = %v, want %v", got, tc.files2)
			}
			f := discover.FilterFor(dir, cfg)
			for rel := range tc.files {
				if !strings.HasSuffix(rel, ".md") {
					continue
				}
				p := filepath.Join(dir, filepath.FromSlash(rel))
				_, indexed := l.Snapshot().File(p)
				if skip := f.SkipFile(p); skip == indexed {
					t.Errorf("SkipFile(%s) = %v, but indexed = %v", rel, skip, indexed)
				}
			}
		})
	}
}

func TestDomainsAreDirectories(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/zig/index.md":             "# Zig\n",
		"context/zig/context_detection.md": "# Detect\n",
		"context/zig/comptime.md":          "# Comptime\n",
		"context/cobol/copybooks.md":       "# Copybooks\n",
	})
	var names []string
	for _, d := range l.Snapshot().Domains() {
		names = append(names, d.Name)
	}
	if want := []string{"cobol", "zig"}; !slices.Equal(names, want) {
		t.Fatalf("domains = %v, want %v", names, want)
	}
	zig, _ := l.Snapshot().Domain("zig")
	if zig.Index == nil || zig.Index.ID != "zig/index" {
		t.Errorf("zig index = %v", zig.Index)
	}
	if zig.Detection == nil || zig.Detection.ID != "zig/context_detection" {
		t.Errorf("zig detection = %v", zig.Detection)
	}
	if zig.Index.Meta.Type != "index" || zig.Detection.Meta.Type != "detection" {
		t.Errorf("derived types = %q, %q", zig.Index.Meta.Type, zig.Detection.Meta.Type)
	}
	if !l.Snapshot().IsDomain("cobol") || l.Snapshot().IsDomain("python") {
		t.Errorf("IsDomain: cobol %v, python %v", l.Snapshot().IsDomain("cobol"), l.Snapshot().IsDomain("python"))
	}
}

// TestConfiguredRootInDotDirectory loads a workspace the way `ctxls check`
// does (the library reads .ctxls.yaml itself) with the README's example of
// a command root in a hidden directory.
func TestConfiguredRootInDotDirectory(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		".ctxls.yaml":                      "commandRoots: [.claude/commands]\n",
		"context/python/index.md":          "---\ndomain: python\n---\n# Python\n",
		".claude/commands/review.md":       "---\ndescription: Review\n---\n\nLoad `python:zzz`.\n",
		".claude/commands/ship/COMMAND.md": "# Ship\n",
	})
	l := loadWithin(t, dir)
	var cmds []string
	for _, c := range l.Snapshot().Commands() {
		cmds = append(cmds, c.Name)
	}
	if want := []string{"review", "ship"}; !slices.Equal(cmds, want) {
		t.Errorf("commands = %v, want %v", cmds, want)
	}
	got := diagsOf(t, l, ".claude/commands/review.md")
	if !slices.ContainsFunc(got, func(d wantDiag) bool { return d.Code == CodeUnresolved && d.Text == "zzz" }) {
		t.Errorf("diagnostics of review.md = %v, want an unresolved reference to python:zzz", got)
	}
}

func TestFilter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.CommandRoots = []string{".claude/commands"}
	cfg.ContextRoots = []string{"build/kb", "../outside"}
	cfg.Ignore = []string{"drafts"}
	f := discover.FilterFor(dir, cfg)
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

// TestSpecialFiles puts a named pipe called pipe.md, and a link to it, in
// a context root: the scan must not block on them (reading a pipe waits
// for a writer), must skip both with a warning naming them, and must keep
// everything else. A change naming the pipe must not block either.
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"context/python/good.md": goodTopic,
		"commands/c.md":          "# C\n\nUse python:good#Part.\n",
	})
	pipe := fsguardtest.Pipe(t, filepath.Join(dir, "context/python/pipe.md"))
	topipe := fsguardtest.Link(t, "pipe.md", filepath.Join(dir, "context/python/topipe.md"))
	l := loadWithin(t, dir)
	warned := map[string]string{}
	for _, w := range l.Snapshot().Warnings() {
		warned[filepath.Base(w.Path)] = w.Message
	}
	for _, name := range []string{"pipe.md", "topipe.md"} {
		if !strings.Contains(warned[name], "named pipe") {
			t.Errorf("warning for %s = %q, want one naming a named pipe; all: %v", name, warned[name], l.Snapshot().Warnings())
		}
		if _, ok := l.Snapshot().File(filepath.Join(dir, "context/python", name)); ok {
			t.Errorf("%s listed as a file", name)
		}
	}
	if _, ok := l.Snapshot().Topic("python/good"); !ok {
		t.Error("good topic lost")
	}
	wantDiags(t, l, "commands/c.md", "a command beside the pipe")
	var err error
	fsguardtest.Within(t, "a change naming the pipe", func() {
		_, err = l.Apply(t.Context(), []Change{{Path: pipe}, {Path: topipe}})
	})
	if err != nil {
		t.Error(err)
	}
	if _, ok := l.Snapshot().File(pipe); ok {
		t.Error("the pipe was indexed by a change")
	}
}

// TestConfigNotWhatItSeems makes .ctxls.yaml a named pipe, or a link out
// of the workspace: the library loads with the defaults and a problem
// saying why, and does not block.
func TestConfigNotWhatItSeems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, p string)
		want string
	}{
		{"named pipe", func(t *testing.T, p string) { fsguardtest.Pipe(t, p) }, "named pipe"},
		{"link outside", func(t *testing.T, p string) {
			fsguardtest.Link(t, fsguardtest.Outside(t, "cfg.yaml", "contextRoots: [/etc]\n"), p)
		}, "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := testtree.New(t, map[string]string{"context/python/good.md": goodTopic})
			tc.make(t, filepath.Join(dir, ".ctxls.yaml"))
			l := loadWithin(t, dir)
			probs := l.Snapshot().ConfigProblems()
			if len(probs) != 1 || !strings.Contains(probs[0].Message, tc.want) {
				t.Errorf("problems = %v, want one saying %q", probs, tc.want)
			}
			if _, ok := l.Snapshot().Topic("python/good"); !ok {
				t.Error("good topic lost")
			}
		})
	}
}
