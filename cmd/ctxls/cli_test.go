package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// runCLIStatus runs one command line in process with stdin and returns
// what the process would print and its exit status.
func runCLIStatus(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, strings.NewReader(stdin), &out, &errb)
	status = exitStatus(err, &errb)
	return out.String(), errb.String(), status
}

// Every subcommand's help has the same layout: the usage line, the
// description, and the flags when it has any.
func TestHelpLayout(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			help, stderr, status := runCLIStatus(t, "", append(strings.Fields(c.name), "--help")...)
			if status != 0 || stderr != "" {
				t.Fatalf("exit status %d, stderr %q:\n%s", status, stderr, help)
			}
			want := "Usage: " + c.synopsis(!c.noFlags) + "\n\n" + c.doc + "\n"
			if !c.noFlags {
				want += "\nFlags:\n  "
			}
			if !strings.HasPrefix(help, want) || c.noFlags && help != want {
				t.Errorf("help:\n%s\nwant it to start with:\n%s", help, want)
			}
			if !c.noFlags && !strings.Contains(help, "--dir DIR") {
				t.Errorf("help lacks --dir DIR:\n%s", help)
			}
		})
	}
}

// A usage error ends with the usage line of the subcommand that was
// misused, not with the global help.
func TestUsageErrorPrintsSubcommandUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--bogus"}, "Usage: ctxls check [DIR] [flags]"},
		{[]string{"show"}, "Usage: ctxls show domain:topic[#Section] [flags]"},
		{[]string{"history", "a", "b"}, "Usage: ctxls history [CONVERSATION] [flags]"},
		{[]string{"chain", "use"}, "Usage: ctxls chain use ID [flags]"},
		{[]string{"chain", "run", "--format", "xml", "x"}, "Usage: ctxls chain run COMMAND... [flags]"},
		{[]string{"chain", "frobnicate"}, "Usage:\n  ctxls chain run COMMAND... [flags]"},
		{[]string{"serve", "extra"}, "Usage: ctxls serve [flags]"},
		{[]string{"version", "extra"}, "Usage: ctxls version"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			_, stderr, status := runCLIStatus(t, "", tc.args...)
			if status != 2 {
				t.Errorf("exit status %d, want 2", status)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr:\n%s\nwant %q", stderr, tc.want)
			}
			if strings.Contains(stderr, "language server and tools for context libraries") {
				t.Errorf("stderr holds the global help:\n%s", stderr)
			}
		})
	}
}

// Exit status: 0 clean, 1 problems found, 2 usage errors, missing
// directories and unknown executions or conversations.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	clean := libtest.WriteTree(t, map[string]string{"context/python/a.md": "# A\n\nText.\n"})
	broken := libtest.WriteTree(t, map[string]string{"context/python/a.md": "# A\n\nSee python:nope.\n"})
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"check", clean}, 0},
		{[]string{"check", broken}, 1},
		{[]string{"check", missing}, 2},
		{[]string{"catalog", missing}, 2},
		{[]string{"search", "x", missing}, 2},
		{[]string{"show", "python:a", "--dir", missing}, 2},
		{[]string{"chain", "list", "--dir", missing}, 2},
		{[]string{"history", "--dir", missing}, 2},
		{[]string{"bench", "--topics", "0"}, 2},
		{[]string{"history", "nope", "--dir", clean}, 2},
		{[]string{"chain", "show", "nope", "--dir", clean}, 2},
		{[]string{"chain", "use", "nope", "--dir", clean}, 2},
		{[]string{"search", "zzzqqq", clean}, 1},
		{[]string{"nonsense"}, 2},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			_, stderr, status := runCLIStatus(t, "", tc.args...)
			if status != tc.want {
				t.Errorf("exit status %d, want %d; stderr:\n%s", status, tc.want, stderr)
			}
		})
	}
}

// chainWorkspace is a workspace with two commands and the preview
// executor.
func chainWorkspace(t *testing.T) string {
	t.Helper()
	return libtest.WriteTree(t, map[string]string{
		"context/python/a.md":   "# A\n\nText.\n",
		"commands/plan.md":      "# Plan\n\nLoad python:a.\n",
		"commands/implement.md": "# Implement\n\nDo it.\n",
		".ctxls.yaml":           "models:\n  small: {contextWindow: 8000}\n  big: {contextWindow: 100000}\ndefaultModel: big\n",
	})
}

// chainRunID runs a chain with the preview executor and returns the id of
// the execution it created.
func chainRunID(t *testing.T, dir string, args ...string) string {
	t.Helper()
	stdout, stderr, status := runCLIStatus(t, "", append([]string{"chain", "run", "--dir", dir, "--format", "json"}, args...)...)
	if status != 0 {
		t.Fatalf("chain run %v: exit %d\n%s", args, status, stderr)
	}
	var res struct {
		SessionID string `json:"sessionId"`
		Model     struct {
			Model string `json:"model"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.SessionID == "" {
		t.Fatalf("chain run output: %v\n%s", err, stdout)
	}
	return res.SessionID
}

func TestChainUseDeleteResumeCurrent(t *testing.T) {
	t.Parallel()
	dir := chainWorkspace(t)
	first := chainRunID(t, dir, "plan")
	second := chainRunID(t, dir, "implement")

	// use takes a prefix and makes that execution current.
	if out, stderr, status := runCLIStatus(t, "", "chain", "use", first[:6], "--dir", dir); status != 0 || !strings.Contains(out, first) {
		t.Fatalf("chain use: %d %q %q", status, out, stderr)
	}
	show, _, _ := runCLIStatus(t, "", "chain", "show", "--dir", dir)
	if !strings.Contains(show, "Execution "+first+" (current)") {
		t.Fatalf("after chain use, show prints:\n%s", show)
	}

	// resume without an id resumes the current one, which is complete.
	out, stderr, status := runCLIStatus(t, "", "chain", "resume", "--dir", dir)
	if status != 0 || !strings.Contains(out+stderr, "nothing to resume") || !strings.Contains(out+stderr, first) {
		t.Fatalf("resume of the current, completed execution: %d\n%s\n%s", status, out, stderr)
	}

	// delete asks for the token; a wrong one deletes nothing.
	_, stderr, status = runCLIStatus(t, "wrong\n", "chain", "delete", second, "--dir", dir)
	if status != 2 || !strings.Contains(stderr, "not deleted") {
		t.Fatalf("delete with a wrong token: %d %s", status, stderr)
	}
	if _, _, status := runCLIStatus(t, "", "chain", "show", second, "--dir", dir); status != 0 {
		t.Fatal("a wrong token deleted the execution")
	}
	// The current execution cannot be deleted.
	if _, stderr, status := runCLIStatus(t, "", "chain", "delete", first, "--yes", "--dir", dir); status != 2 || !strings.Contains(stderr, "current execution") {
		t.Fatalf("delete of the current execution: %d %s", status, stderr)
	}
	if out, stderr, status := runCLIStatus(t, "", "chain", "delete", second[:5], "--yes", "--dir", dir); status != 0 || !strings.Contains(out, "deleted execution "+second) {
		t.Fatalf("delete --yes: %d %s %s", status, out, stderr)
	}
	if _, _, status := runCLIStatus(t, "", "chain", "show", second, "--dir", dir); status != 2 {
		t.Fatalf("show of a deleted execution: exit %d, want 2", status)
	}
}

// The token printed is the one to type back.
func TestChainDeleteTypedToken(t *testing.T) {
	t.Parallel()
	dir := chainWorkspace(t)
	id := chainRunID(t, dir, "plan")
	chainRunID(t, dir, "plan") // now the current one, so id can be deleted
	// The token is random; a reader that echoes what the prompt printed
	// plays the user.
	var out, errb bytes.Buffer
	pr := &echoToken{prompt: &errb}
	err := run(t.Context(), []string{"chain", "delete", id, "--dir", dir}, pr, &out, &errb)
	if err != nil || !strings.Contains(out.String(), "deleted execution "+id) {
		t.Fatalf("delete with the typed token: %v\n%s\n%s", err, out.String(), errb.String())
	}
}

// echoToken reads as a user who types back the token the prompt shows.
type echoToken struct {
	prompt *bytes.Buffer
	done   bool
}

func (e *echoToken) Read(p []byte) (int, error) {
	if e.done {
		return 0, nil
	}
	e.done = true
	_, after, _ := strings.Cut(e.prompt.String(), "press Enter:\n")
	token, _, _ := strings.Cut(strings.TrimSpace(after), "\n")
	return copy(p, token+"\n"), nil
}

func TestChainRunModel(t *testing.T) {
	t.Parallel()
	dir := chainWorkspace(t)
	stdout, stderr, status := runCLIStatus(t, "", "chain", "run", "plan", "--model", "small", "--dir", dir, "--format", "json")
	if status != 0 {
		t.Fatalf("exit %d: %s", status, stderr)
	}
	var res struct {
		Model struct {
			Model  string `json:"model"`
			Window int    `json:"contextWindow"`
		} `json:"model"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Model.Model != "small" || res.Model.Window != 8000 {
		t.Fatalf("model of the run: %+v %v\n%s", res.Model, err, stdout)
	}
	if _, stderr, status := runCLIStatus(t, "", "chain", "run", "plan", "--model", "huge", "--dir", dir); status != 2 || !strings.Contains(stderr, `unknown model "huge"`) {
		t.Fatalf("unknown model: %d %s", status, stderr)
	}
}

func TestHistoryContextCountsOneMessage(t *testing.T) {
	t.Parallel()
	dir := historyFixture(t)
	_, stderr, status := runCLIStatus(t, "", "history", "conv-b", "--context", "--dir", dir)
	if status != 0 || !strings.Contains(stderr, "1 message selected") {
		t.Errorf("exit %d, stderr %q; want \"1 message selected\"", status, stderr)
	}
}

// run's progress and show print the same duration for a step: the one
// recorded.
func TestChainDurationsAgree(t *testing.T) {
	t.Parallel()
	dir := chainWorkspace(t)
	_, progress, status := runCLIStatus(t, "", "chain", "run", "plan", "implement", "--dir", dir)
	if status != 0 {
		t.Fatalf("run: exit %d\n%s", status, progress)
	}
	show, _, _ := runCLIStatus(t, "", "chain", "show", "--dir", dir)
	ran := regexp.MustCompile(`\] (\w+): success in (\S+),`).FindAllStringSubmatch(progress, -1)
	shown := regexp.MustCompile(`\d+\. (\w+) \[success, attempt 1\] in (\S+)\n`).FindAllStringSubmatch(show, -1)
	if len(ran) != 2 || len(shown) != 2 {
		t.Fatalf("durations not found:\n%s\n%s", progress, show)
	}
	for i := range ran {
		if ran[i][1] != shown[i][1] || ran[i][2] != shown[i][2] {
			t.Errorf("step %d: run says %s in %s, show says %s in %s", i+1, ran[i][1], ran[i][2], shown[i][1], shown[i][2])
		}
	}
}

// A step whose prompt can never fit its model is not worth resuming as
// it is: the hint names a larger model instead.
func TestChainTooLargeSuggestsLargerModel(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"commands/huge.md": "# Huge\n\n" + strings.Repeat("Every word of this command counts. ", 200),
		".ctxls.yaml":      "models:\n  tiny: {contextWindow: 100}\n  wide: {contextWindow: 100000}\ndefaultModel: tiny\n",
	})
	out, stderr, status := runCLIStatus(t, "", "chain", "run", "huge", "--dir", dir)
	if status != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", status, out, stderr)
	}
	if strings.Contains(out, "to finish the chain: ctxls chain resume") {
		t.Errorf("suggests a resume that would fail the same way:\n%s", out)
	}
	if !regexp.MustCompile(`huge cannot fit the context window of model tiny \(100 tokens\).*ctxls chain resume \S+ --model wide`).MatchString(out) {
		t.Errorf("no hint with the larger model:\n%s", out)
	}
}

// A chain run records the project type detected in the workspace.
func TestChainRunDetectsProjectType(t *testing.T) {
	t.Parallel()
	dir := libtest.CopyExample(t)
	testtree.WriteFiles(t, dir, map[string]string{"main.py": "from fastapi import FastAPI\n"})
	id := chainRunID(t, dir, "review")
	out, stderr, status := runCLIStatus(t, "", "chain", "show", id, "--dir", dir, "--format", "json")
	var st struct {
		ProjectType string `json:"projectType"`
	}
	if status != 0 || json.Unmarshal([]byte(out), &st) != nil || st.ProjectType != "fastapi" {
		t.Errorf("projectType %q (exit %d, %s)", st.ProjectType, status, stderr)
	}
}
