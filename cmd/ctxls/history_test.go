package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/runs/history"
	"github.com/ctxls/ctxls/providers/runs/storage"
	"github.com/ctxls/ctxls/providers/tokens"
)

// historyFixture makes a workspace with a small model and two recorded
// conversations: "conv-a" (two runs, 30 messages) and "conv-b" (one).
func historyFixture(t *testing.T) string {
	t.Helper()
	dir := libtest.WriteTree(t, map[string]string{
		".ctxls.yaml": "models:\n  small:\n    contextWindow: 4096\n    historyTokens: 300\n  large:\n    contextWindow: 100000\ndefaultModel: small\n",
	})
	ctx := context.Background()
	db, err := storage.OpenWorkspace(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	s := history.Open(db, counter)
	for i := range 30 {
		run := "run-1"
		if i >= 20 {
			run = "run-2"
		}
		role := history.RoleUser
		if i%2 == 1 {
			role = history.RoleAssistant
		}
		content := fmt.Sprintf("message %d\n%s", i, strings.Repeat("output line\n", i))
		if _, err := s.Append(ctx, history.Message{ConversationID: "conv-a", Role: role, Mode: history.ModeRun,
			RunID: run, Command: "implement", Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append(ctx, history.Message{ConversationID: "conv-b", Role: history.RoleUser, Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHistoryCommand(t *testing.T) {
	t.Parallel()
	dir := historyFixture(t)

	out, _, err := runCLI(t, "history", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "CONVERSATION") {
		t.Fatalf("list:\n%s", out)
	}
	// Aligned columns: every row's MESSAGES column starts where the header's does.
	col := strings.Index(lines[0], "MESSAGES")
	for _, l := range lines[1:] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row not aligned with the header:\n%s\n%s", lines[0], l)
		}
	}
	if !strings.Contains(out, "conv-a") || !strings.Contains(lines[1]+lines[2], " 30 ") {
		t.Errorf("list lacks conv-a with 30 messages:\n%s", out)
	}

	out, _, err = runCLI(t, "history", "conv-a", "--dir", dir, "--run", "run-2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "run run-2") != 10 || strings.Contains(out, "run run-1") || !strings.Contains(out, "message 29") {
		t.Errorf("conversation filtered by run:\n%.500s", out)
	}

	out, errOut, err := runCLI(t, "history", "conv-a", "--dir", dir, "--context")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "message 29\n"+strings.Repeat("output line\n", 9)+"... (10 lines omitted) ...\n"+strings.Repeat("output line\n", 10)) ||
		strings.Contains(out, "message 0\n") || !strings.Contains(errOut, "budget 300 (model small, window 4,096)") {
		t.Errorf("context:\n%s\nstderr: %s", out, errOut)
	}

	out, _, err = runCLI(t, "history", "conv-a", "--dir", dir, "--context", "--model", "large", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var hc struct {
		Text     string `json:"text"`
		Tokens   int    `json:"tokens"`
		Selected int    `json:"selected"`
		Omitted  int    `json:"omitted"`
		Budget   int    `json:"budget"`
	}
	if err := json.Unmarshal([]byte(out), &hc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if hc.Selected != 30 || hc.Omitted != 0 || hc.Budget != 25000 || !strings.HasPrefix(hc.Text, "[user · implement]\nmessage 0\n") {
		t.Errorf("large model context: %+v", hc)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "conv-a", "--dir", dir, "--context", "--model", "huge"}, "unknown model"},
		{[]string{"history", "conv-a", "--dir", dir, "--context", "--budget", "-4"}, "above 0"},
		{[]string{"history", "nope", "--dir", dir, "--context", "--model", "huge"}, "unknown model"},
		{[]string{"history", "--dir", dir, "--context"}, "need a conversation"},
		{[]string{"history", "conv", "--dir", dir}, `conversation id "conv" is ambiguous: conv-a, conv-b`},
	} {
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one mentioning %q", c.args, err, c.want)
		}
	}
	// An empty workspace lists nothing and creates no database.
	empty := t.TempDir()
	out, _, err = runCLI(t, "history", "--dir", empty)
	if err != nil || !strings.Contains(out, "no conversations") {
		t.Errorf("empty workspace: %q %v", out, err)
	}
	if _, err := os.Stat(storage.WorkspacePath(empty)); !os.IsNotExist(err) {
		t.Errorf("listing created a database: %v", err)
	}
}

// TestHistoryLookups checks how history finds a conversation: by id or a
// unique prefix; an unknown id, a workspace without a database and a run
// with no messages are errors.
func TestHistoryLookups(t *testing.T) {
	t.Parallel()
	dir := historyFixture(t)
	ctx := t.Context()
	db, err := storage.OpenWorkspace(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := history.Open(db, counter).Append(ctx, history.Message{ConversationID: "review-7f3a", Role: history.RoleUser, Content: "looks good"}); err != nil {
		t.Fatal(err)
	}
	if _, err := history.Open(db, counter).Append(ctx, history.Message{ConversationID: "review-7f3a", Role: history.RoleUser, Mode: history.ModeRun,
		RunID: "7c1e9a-run", Command: "review", Content: "in a run"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	noDB := t.TempDir()
	for _, c := range []struct {
		name     string
		args     []string
		stdout   string // in stdout; "" for none at all
		warning  string // in stderr; "" for none at all
		notInErr string
	}{
		{"id", []string{"history", "conv-b", "--dir", dir}, "hello", "", ""},
		{"unique prefix", []string{"history", "rev", "--dir", dir}, "looks good", "", ""},
		{"run id prefix", []string{"history", "rev", "--run", "7c1", "--dir", dir}, "in a run", "", ""},
		{"unique prefix with context", []string{"history", "review", "--dir", dir, "--context"}, "looks good", "budget 300", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, err := runCLI(t, c.args...)
			if err != nil {
				t.Fatalf("exit %d: %v\n%s", exitCode(err), err, errOut)
			}
			if c.stdout == "" && out != "" || !strings.Contains(out, c.stdout) {
				t.Errorf("stdout:\n%s\nwant %q", out, c.stdout)
			}
			if c.warning == "" && strings.Contains(errOut, "warning") || !strings.Contains(errOut, c.warning) {
				t.Errorf("stderr:\n%s\nwant %q", errOut, c.warning)
			}
			if c.notInErr != "" && strings.Contains(errOut, c.notInErr) {
				t.Errorf("stderr mentions %q:\n%s", c.notInErr, errOut)
			}
		})
	}
	// In turn: the check after the loop must follow the "no database" case.
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown id", []string{"history", "nope", "--dir", dir}, `unknown conversation "nope"`},
		{"unknown id with context", []string{"history", "nope", "--dir", dir, "--context"}, `unknown conversation "nope"`},
		{"unknown id as JSON", []string{"history", "nope", "--dir", dir, "--format", "json"}, `unknown conversation "nope"`},
		{"no database", []string{"history", "x", "--dir", noDB}, "no history recorded in " + noDB},
		{"unknown run", []string{"history", "conv-a", "--dir", dir, "--run", "nope"}, `conversation conv-a has no messages of run "nope" (its runs: run-1, run-2)`},
		{"ambiguous run", []string{"history", "conv-a", "--dir", dir, "--run", "run-"}, `run id "run-" is ambiguous: run-1, run-2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, status := runCLIStatus(t, "", c.args...)
			if status != 2 || out != "" || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", status, out, errOut, c.want)
			}
		})
	}
	if _, err := os.Stat(storage.WorkspacePath(noDB)); !os.IsNotExist(err) {
		t.Errorf("reading created a database: %v", err)
	}
}
