package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// commandNames returns the names of the library's commands.
func commandNames(w *Workspace) map[string]bool {
	out := make(map[string]bool)
	for _, c := range w.Snapshot().Library().Commands() {
		out[c.Name] = true
	}
	return out
}

// watched returns the directories the workspace's watcher watches, relative
// to the workspace.
func watched(t *testing.T, w *Workspace) []string {
	t.Helper()
	wt := w.watcher.Load()
	if wt == nil {
		t.Fatal("no watcher")
	}
	var out []string
	for _, p := range wt.Watched() {
		rel, err := filepath.Rel(w.Dir(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// TestConfiguredRootInDotDirectoryIsWatched: the README's example, a
// command root in .claude, is indexed and followed on disk, whether the
// directory exists when the workspace opens or appears later.
func TestConfiguredRootInDotDirectoryIsWatched(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"root exists at start", map[string]string{".claude/commands/review.md": "# Review\n\nLoad `python:async`.\n"}},
		{"root created later", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := baseTree()
			files[".ctxls.yaml"] = "tokenizer: o200k_base\ncommandRoots: [.claude/commands]\n"
			files[".claude/settings.md"] = "# Not on the way to the root\n"
			for rel, content := range tc.files {
				files[rel] = content
			}
			dir := libtest.WriteTree(t, files)
			w := open(t, dir, &recorder{}, nil)
			if want := len(tc.files) > 0; commandNames(w)["review"] != want {
				t.Fatalf("command review indexed = %v at start, want %v", !want, want)
			}

			p := testtree.WriteAt(t, dir, ".claude/commands/deploy.md", "# Deploy\n\nLoad `python:zzz`.\n")
			waitFor(t, "the new command deploy", func() bool { return commandNames(w)["deploy"] })
			if !slices.ContainsFunc(w.Snapshot().Library().Diagnose(p), func(d diag.Diagnostic) bool {
				return d.Code == library.CodeUnresolved && strings.Contains(d.Message, "zzz")
			}) {
				t.Errorf("no diagnostic for the unresolved python:zzz in %s: %+v", p, w.Snapshot().Library().Diagnose(p))
			}
			testtree.WriteAt(t, dir, ".claude/commands/deploy.md", "# Deploy\n\nLoad `python:async`.\n")
			waitFor(t, "the change to deploy.md", func() bool {
				txt, _ := textOf(w, p)
				return strings.Contains(txt, "python:async")
			})

			// Beside the root, .claude stays out of the index.
			testtree.WriteAt(t, dir, ".claude/agents/helper.md", "# Helper\n")
			testtree.WriteAt(t, dir, ".claude/notes.md", "# Notes\n")
			testtree.WriteAt(t, dir, ".claude/commands/sentinel.md", "# Sentinel\n")
			waitFor(t, "the sentinel", func() bool { return commandNames(w)["sentinel"] })
			for _, f := range w.Snapshot().Library().Files() {
				if rel, _ := filepath.Rel(dir, f.Path); strings.HasPrefix(rel, ".claude") && !strings.HasPrefix(rel, filepath.Join(".claude", "commands")) {
					t.Errorf("indexed %s, beside the configured root", rel)
				}
			}
			if got := watched(t, w); slices.Contains(got, ".claude/agents") {
				t.Errorf("watching .claude/agents, beside the configured root: %v", got)
			}
			waitInSync(t, w)
		})
	}
}

// TestHeavyDirectoriesAreNotWatched: dependencies, virtual environments,
// caches and build output at the top of the workspace use no kernel
// watches, while a domain named build inside a context root is followed.
func TestHeavyDirectoriesAreNotWatched(t *testing.T) {
	t.Parallel()
	files := baseTree()
	heavy := []string{"node_modules", ".git", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache",
		".pytest_cache", ".next", ".cache", "vendor", "build", "dist", "target", "src/.venv", "src/__pycache__"}
	for _, h := range heavy {
		files[h+"/sub/deeper/x.md"] = "# X\n"
		files[h+"/context/dom/y.md"] = "# Y\n"
	}
	files["context/build/make.md"] = topicText("build", "make", "Make")
	files["commands/build/COMMAND.md"] = "# Build\n"
	files["src/lib/notes.md"] = "# Notes\n"
	dir := libtest.WriteTree(t, files)
	w := open(t, dir, &recorder{}, nil)

	got := watched(t, w)
	for _, p := range got {
		for _, h := range heavy {
			if p == h || strings.HasPrefix(p, h+"/") {
				t.Errorf("watching %s", p)
			}
		}
	}
	for _, want := range []string{".", "context/build", "commands/build", "src/lib"} {
		if !slices.Contains(got, want) {
			t.Errorf("not watching %s; watching %v", want, got)
		}
	}
	if !hasTopic(w, "build/make") || !commandNames(w)["build"] {
		t.Fatal("the domain or the command named build is not indexed")
	}

	// Changes in the domain named build, or a new domain named dist, are
	// followed; new files in ignored directories are not.
	testtree.WriteAt(t, dir, "context/build/ninja.md", topicText("build", "ninja", "Ninja"))
	testtree.WriteAt(t, dir, "context/dist/wheels.md", topicText("dist", "wheels", "Wheels"))
	testtree.WriteAt(t, dir, "build/context/dom/z.md", "# Z\n")
	testtree.WriteAt(t, dir, "venv/context/dom/z.md", "# Z\n")
	waitFor(t, "build/ninja and dist/wheels", func() bool { return hasTopic(w, "build/ninja") && hasTopic(w, "dist/wheels") })
	if hasTopic(w, "dom/z") || hasTopic(w, "dom/y") {
		t.Error("indexed a topic in an ignored directory")
	}
	waitInSync(t, w)
}

// TestWatchLimitReportedOnce: OnWatchLimit is called once per workspace,
// even when the watcher is started again (the ignored paths changed).
func TestWatchLimitReportedOnce(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	said := new(watchertest.Recorder[string])
	w := open(t, dir, &recorder{}, func(o *Options) {
		o.MaxWatches = 1
		o.OnWatchLimit = said.Add
	})
	waitFor(t, "the watch limit to be reported", func() bool { return len(said.All()) > 0 })

	restartWatcher(t, w, dir, "tokenizer: o200k_base\nignore: [drafts]\n")
	// New returned, so the new watcher met the limit already.
	if got := said.All(); len(got) != 1 || !strings.Contains(got[0], "watch limit") {
		t.Errorf("OnWatchLimit called with %q, want one message about the watch limit", got)
	}
}

// Opening a document the library does not read (in a hidden directory)
// leaves the library alone, and so does closing it.
func TestOpenDocumentInIgnoredDirectory(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	p := testtree.WriteAt(t, dir, ".github/PULL_REQUEST_TEMPLATE.md", "# PR\n")
	w := open(t, dir, &recorder{}, nil)
	w.DidOpen(p, "# PR\n\nSee `python:nowhere`.\n", 1)
	if _, ok := w.Snapshot().Library().File(p); ok {
		t.Error("an open document in .github was indexed")
	}
	w.DidClose(p)
	if _, ok := w.Snapshot().Library().File(p); ok {
		t.Error("a closed document in .github was indexed")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// TestGitIgnoredFoldersNotWatched checks that the watcher leaves out the
// folders .gitignore excludes, as the index does, and still follows the
// others.
func TestGitIgnoredFoldersNotWatched(t *testing.T) {
	t.Parallel()
	files := baseTree()
	files[".gitignore"] = "generated/\n"
	files["generated/api/page.md"] = "# Generated\n"
	files["docs/guide.md"] = "# Guide\n"
	dir := libtest.WriteTree(t, files)
	w := open(t, dir, &recorder{}, nil)
	if _, ok := w.Snapshot().Library().File(filepath.Join(dir, "generated", "api", "page.md")); ok {
		t.Error("a page under the ignored generated/ was indexed")
	}
	waitFor(t, "the watcher", func() bool { return w.watcher.Load() != nil })
	got := watched(t, w)
	if slices.ContainsFunc(got, func(p string) bool { return p == "generated" || strings.HasPrefix(p, "generated/") }) {
		t.Errorf("the ignored generated/ is watched: %q", got)
	}
	if !slices.Contains(got, "docs") {
		t.Errorf("docs is not watched: %q", got)
	}
}
