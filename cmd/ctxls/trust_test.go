//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// TestTrustCLI drives the ctxls binary, without a terminal, on a workspace
// whose .ctxls.yaml names an exec executor nobody agreed to: chain run and
// resume refuse with exit status 2 and the command that agrees, ctxls
// trust grant agrees, a changed command line is refused again, resume
// --trust agrees on the spot, and ctxls trust revoke takes the agreement
// back.
func TestTrustCLI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	ctxls, agent := chainBins(t)
	log := filepath.Join(t.TempDir(), "agent.log")
	dir := libtest.CopyExample(t)
	old := "executor:\n  kind: preview\n"
	setArgv := func(argv ...string) {
		t.Helper()
		command, _ := json.Marshal(argv)
		next := fmt.Sprintf("executor:\n  kind: exec\n  command: %s\n  timeout: 2m\n", command)
		chaintest.EditConfig(t, dir, old, next)
		old = next
	}
	setArgv(agent, "-log", log, "-failonce", "brainstorm")
	runs := func() int { return len(chaintest.Runs(t, log)) }
	refused := func(what string, r chainCLIResult, why string) {
		t.Helper()
		if r.code != 2 || !strings.Contains(r.stderr, "ctxls trust grant --dir ") || !strings.Contains(r.stderr, why) {
			t.Fatalf("%s: exit %d, want 2 with the grant command and %q\nstderr:\n%s", what, r.code, why, r.stderr)
		}
		if n := runs(); n != 0 {
			t.Fatalf("%s: the agent ran %d times", what, n)
		}
	}
	refused("run", chainExec(t, ctxls, "chain", "run", "brainstorm", "--input", "x", "--dir", dir), "you have not agreed to run")
	if l := chainListJSON(t, ctxls, dir); len(l.Executions) != 0 {
		t.Fatalf("executions recorded by a refused run: %+v", l.Executions)
	}
	show := chainExec(t, ctxls, "trust", "--dir", dir, "--format", "json")
	var st struct {
		Executor struct {
			Command      []string `json:"command"`
			Source       string   `json:"source"`
			NeedsConsent bool     `json:"needsConsent"`
		} `json:"executor"`
	}
	if show.code != 0 || json.Unmarshal([]byte(show.stdout), &st) != nil || !st.Executor.NeedsConsent || st.Executor.Source != "workspace" || len(st.Executor.Command) != 5 {
		t.Fatalf("trust: exit %d\n%s%s", show.code, show.stdout, show.stderr)
	}

	if r := chainExec(t, ctxls, "trust", "grant", "--dir", dir); r.code != 0 || !strings.Contains(r.stdout, "agreed: ") {
		t.Fatalf("trust grant: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// It runs, and its step fails: the execution is left to resume.
	if r := chainExec(t, ctxls, "chain", "run", "brainstorm", "--input", "x", "--dir", dir); r.code != 1 || runs() != 1 {
		t.Fatalf("run once agreed: exit %d, %d runs\n%s", r.code, runs(), r.stderr)
	}

	// The repository changes the command line: run and resume are refused
	// again, saying so.
	setArgv(agent, "-log", log)
	for _, args := range [][]string{{"chain", "run", "brainstorm", "--input", "x"}, {"chain", "resume"}} {
		r := chainExec(t, ctxls, append(args, "--dir", dir)...)
		if r.code != 2 || !strings.Contains(r.stderr, "the command line changed") || !strings.Contains(r.stderr, "ctxls trust grant --dir ") || runs() != 1 {
			t.Fatalf("%s after the argv changed: exit %d, %d runs\n%s", strings.Join(args, " "), r.code, runs(), r.stderr)
		}
	}
	r := chainExec(t, ctxls, "chain", "resume", "--trust", "--dir", dir)
	if r.code != 0 || runs() != 2 || !strings.Contains(r.stderr, "(--trust)") {
		t.Fatalf("resume --trust: exit %d, %d runs\n%s", r.code, runs(), r.stderr)
	}

	if r := chainExec(t, ctxls, "trust", "revoke", "--dir", dir); r.code != 0 || !strings.Contains(r.stdout, "revoked") {
		t.Fatalf("trust revoke: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := chainExec(t, ctxls, "chain", "run", "brainstorm", "--input", "x", "--dir", dir); r.code != 2 || !strings.Contains(r.stderr, "you have not agreed to run") || runs() != 2 {
		t.Fatalf("run after the revoke: exit %d, %d runs\n%s", r.code, runs(), r.stderr)
	}
}
