//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// leakyFiles are the files of the leaky workspace besides its links: a
// command to chain, and the preview executor the test replaces.
var leakyFiles = map[string]string{
	"commands/build.md": "# Build\n\nBuild the project.\n",
	".ctxls.yaml":       "executor:\n  kind: preview\n",
}

// TestLeakyRepositoryCLI runs check, cost, chain preview and chain run
// (with an agent that keeps its standard input) on a cloned repository
// whose CLAUDE.md imports links to the user's private key and to
// /proc/self/environ, with a secret in the environment: nothing of either
// comes out, on the standard output and error, in the database or on the
// agent's input, and where the links lead is not said.
func TestLeakyRepositoryCLI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	ctxls, agent := chainBins(t)
	w := fsguardtest.NewLeaky(t, leakyFiles)
	run := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, ctxls, args...)
		cmd.Env = append(os.Environ(), w.Env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
		case err != nil:
			t.Fatalf("ctxls %v: %v", args, err)
		}
		what := "ctxls " + strings.Join(args, " ")
		fsguardtest.NoSecret(t, what+" stdout", out.Bytes())
		fsguardtest.NoSecret(t, what+" stderr", errb.Bytes())
		return out.String(), errb.String(), code
	}

	out, _, code := run("check", "--format", "json", w.Dir)
	if code != 0 || strings.Count(out, `"code":"import-outside-project"`) != 2 || !strings.Contains(out, "through a symbolic link") {
		t.Errorf("check: exit %d, want 0 with an import-outside-project per link:\n%s", code, out)
	}

	out, _, code = run("cost", "--format", "json", "--dir", w.Dir)
	var cost struct {
		AlwaysLoaded []struct {
			File string `json:"file"`
		} `json:"alwaysLoaded"`
		Warnings []string `json:"warnings"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cost) != nil || len(cost.AlwaysLoaded) != 1 || cost.AlwaysLoaded[0].File != "CLAUDE.md" || len(cost.Warnings) != 2 {
		t.Errorf("cost: exit %d, want CLAUDE.md alone and a warning per link:\n%s", code, out)
	}

	for _, format := range []string{"text", "json"} {
		out, _, code = run("chain", "preview", "build", "--format", format, "--dir", w.Dir)
		if code != 0 || !strings.Contains(out, "CLAUDE.md") || !strings.Contains(out, "left out") {
			t.Errorf("chain preview --format %s: exit %d, want CLAUDE.md in memory and the links left out:\n%s", format, code, out)
		}
	}

	dump := t.TempDir()
	chaintest.UseExecutor(t, w.Dir, []string{agent, "-dump", dump}, "2m")
	out, _, code = run("chain", "run", "build", "--format", "json", "--dir", w.Dir)
	if code != 0 || !strings.Contains(out, `"state": "completed"`) {
		t.Fatalf("chain run: exit %d:\n%s", code, out)
	}
	prompts, err := os.ReadDir(dump)
	if err != nil || len(prompts) != 1 {
		t.Fatalf("the agent received %d prompts (%v); want one", len(prompts), err)
	}
	prompt, err := os.ReadFile(filepath.Join(dump, prompts[0].Name()))
	if err != nil || !strings.Contains(string(prompt), "See @docs/notes.md") {
		t.Fatalf("the agent's input lacks CLAUDE.md (%v):\n%s", err, prompt)
	}
	fsguardtest.NoSecret(t, "the agent's standard input", prompt)
	// The database, its write-ahead log and everything else ctxls wrote.
	fsguardtest.NoSecretInFiles(t, filepath.Join(w.Dir, ".ctxls"))
	if _, err := os.Stat(filepath.Join(w.Dir, ".ctxls", "ctxls.db")); err != nil {
		t.Fatalf("no database to look into: %v", err)
	}
	out, _, _ = run("chain", "show", "--format", "json", "--dir", w.Dir)
	if !strings.Contains(out, "project:CLAUDE.md") {
		t.Errorf("chain show lacks the memory it recorded:\n%s", out)
	}
}
