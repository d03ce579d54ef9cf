package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The tests of this file and of action_test.go and precommit_test.go take
// a built release, as a user gets it: .ci/test runs
//
//	.ci/release DIST && CTXLS_DIST=DIST go test ./release
//
// Without CTXLS_DIST they are skipped.

// repoRoot is the repository, from the package folder.
const repoRoot = ".."

// dist returns the release folder and its version.
func dist(t *testing.T) (dir, version string) {
	t.Helper()
	dir = os.Getenv("CTXLS_DIST")
	if dir == "" {
		t.Skip("CTXLS_DIST is not set: build a release with .ci/release DIST and run CTXLS_DIST=DIST go test ./release")
	}
	version, err := manifestVersion(filepath.Join(repoRoot, "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, version
}

// hostPlatform is the release platform of this machine.
func hostPlatform(t *testing.T) platform {
	t.Helper()
	for _, p := range platforms {
		if p.goos == runtime.GOOS && p.goarch == runtime.GOARCH {
			return p
		}
	}
	t.Skipf("the release has no binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	return platform{}
}

// headCommit is the commit the release was built from.
func headCommit(t *testing.T) string {
	t.Helper()
	c, err := git(t.Context(), repoRoot, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// copyExample copies the example library into a new folder and returns
// the folder.
func copyExample(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "library")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(repoRoot, "examples", "library"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// command runs name with args in dir and returns its combined output and
// exit status; a command that cannot start, or outlives timeout, fails
// the test.
func command(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: did not finish within %s\n%s", name, strings.Join(args, " "), timeout, out)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), 0
}

// wantExampleReport checks that out is ctxls check's report of the example
// library, which holds known errors.
func wantExampleReport(t *testing.T, out string, status int) {
	t.Helper()
	if status != 1 {
		t.Errorf("ctxls check of the example: exit %d, want 1 (it holds errors)\n%s", status, out)
	}
	for _, want := range []string{"unresolved-reference", "commands/implement.md", "did you mean 'fastapi_patterns'", "skill-name-invalid"} {
		if !strings.Contains(out, want) {
			t.Errorf("ctxls check of the example lacks %q:\n%s", want, out)
		}
	}
}
