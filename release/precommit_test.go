package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ctxls/ctxls/internal/testtree"
)

// The hooks of .pre-commit-hooks.yaml run ctxls check once over the
// workspace when a file it reads is committed.
func TestPreCommitHooksFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		PassFilenames *bool  `yaml:"pass_filenames"`
		Files         string `yaml:"files"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, h := range hooks {
		seen[h.ID] = true
		if h.Entry != "ctxls check" || h.PassFilenames == nil || *h.PassFilenames {
			t.Errorf("hook %s: entry %q, pass_filenames %v; want ctxls check over the workspace, without file names", h.ID, h.Entry, h.PassFilenames)
		}
	}
	if !seen["ctxls-check"] {
		t.Error("no ctxls-check hook")
	}
}

// The ctxls-check hook, as Debian's pre-commit runs it with try-repo on a
// repository of its own: it builds ctxls from this repository (language
// golang), fails on the example library's errors and passes a clean
// library. ctxls-check-system does the same with the released binary on
// PATH.
func TestPreCommitTryRepo(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	host := hostPlatform(t)
	precommit, err := exec.LookPath("pre-commit")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pre-commit not found on CI (the CI script installs the pre-commit package): %v", err)
		}
		t.Skip("pre-commit not installed (apt-get install pre-commit)")
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	archive := t.TempDir()
	if out, status := command(t, time.Minute, archive, nil, "tar", "-xzf", filepath.Join(dir, host.archiveName(version))); status != 0 {
		t.Fatalf("tar: %s", out)
	}
	env := []string{
		"HOME=" + home,
		"PRE_COMMIT_HOME=" + filepath.Join(home, "pre-commit"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"CTXLS_CACHE_DIR=" + filepath.Join(home, "ctxls-cache"),
		// pre-commit gives the hook's Go its own GOPATH; the modules come
		// from the cache the tests already filled rather than anew.
		"GOMODCACHE=" + strings.TrimSpace(string(modcache)),
		"GOFLAGS=-mod=readonly",
		"GIT_AUTHOR_NAME=ctxls", "GIT_AUTHOR_EMAIL=ctxls@example.com",
		"GIT_COMMITTER_NAME=ctxls", "GIT_COMMITTER_EMAIL=ctxls@example.com",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"PATH=" + filepath.Join(archive, host.archiveBase(version)) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	newRepo := func(files map[string]string, fromExample bool) string {
		repo := t.TempDir()
		if fromExample {
			if err := os.CopyFS(filepath.Join(repo, "library"), os.DirFS(filepath.Join(repoRoot, "examples", "library"))); err != nil {
				t.Fatal(err)
			}
		}
		testtree.WriteFiles(t, repo, files)
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
			if out, status := command(t, time.Minute, repo, env, "git", args...); status != 0 {
				t.Fatalf("git %v: %s", args, out)
			}
		}
		return repo
	}
	broken := newRepo(nil, true)
	clean := newRepo(map[string]string{"context/python/basics.md": "# Basics\n\nText.\n", "CLAUDE.md": "# Project\n\nSee @context/python/basics.md for the basics.\n"}, false)
	hookRepo := mustAbs(t, repoRoot)

	// ctxls-check builds ctxls with Go first; the other hooks reuse nothing
	// of it, so it runs alone before them.
	out, status := command(t, 8*time.Minute, broken, env, precommit, "try-repo", hookRepo, "ctxls-check", "--all-files")
	if status != 1 || !strings.Contains(out, "unresolved-reference") || !strings.Contains(out, "Failed") {
		t.Errorf("ctxls-check on the example library: exit %d, want 1 with its errors\n%s", status, out)
	}
	out, status = command(t, 3*time.Minute, clean, env, precommit, "try-repo", hookRepo, "ctxls-check", "--all-files")
	if status != 0 || !strings.Contains(out, "Passed") {
		t.Errorf("ctxls-check on a clean library: exit %d, want 0\n%s", status, out)
	}
	out, status = command(t, 3*time.Minute, broken, env, precommit, "try-repo", hookRepo, "ctxls-check-system", "--all-files")
	if status != 1 || !strings.Contains(out, "unresolved-reference") {
		t.Errorf("ctxls-check-system on the example library: exit %d, want 1\n%s", status, out)
	}
	// A commit of a file the hook does not read skips it.
	other := newRepo(map[string]string{"main.go": "package main\n"}, false)
	out, status = command(t, 3*time.Minute, other, env, precommit, "try-repo", hookRepo, "ctxls-check-system", "--all-files")
	if status != 0 || !strings.Contains(out, "Skipped") {
		t.Errorf("ctxls-check-system on a repository without agent files: exit %d, want it skipped\n%s", status, out)
	}
}
