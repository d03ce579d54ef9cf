//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

// chainBins returns the ctxls binary and the stand-in agent.
func chainBins(t *testing.T) (ctxls, agent string) {
	t.Helper()
	agent, err := builtAgent()
	if err != nil {
		t.Fatal(err)
	}
	return buildCtxls(t), agent
}

// chainCLIWorkspace copies the example library with the agent as executor.
func chainCLIWorkspace(t *testing.T, agent, log string, flags ...string) string {
	t.Helper()
	dir := libtest.CopyExample(t)
	chaintest.UseExecutor(t, dir, append([]string{agent, "-log", log}, flags...), "2m")
	return dir
}

type chainCLIResult struct {
	stdout, stderr string
	code           int
}

func chainExec(t *testing.T, bin string, args ...string) chainCLIResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 5 * time.Second // an agent left behind may hold the output
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ctxls %v did not end within 2 minutes:\n%s", args, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return chainCLIResult{out.String(), errb.String(), code}
}

func chainCLIRuns(t *testing.T, log string) string {
	t.Helper()
	return strings.Join(chaintest.Runs(t, log), " ")
}

type chainCLIList struct {
	Chains []struct {
		Name     string   `json:"name"`
		Commands []string `json:"commands"`
	} `json:"chains"`
	Executions []struct {
		SessionID   string `json:"sessionId"`
		ProjectName string `json:"projectName"`
		State       string `json:"state"`
		IsCurrent   bool   `json:"isCurrent"`
		Summary     struct {
			CommandsCompleted int `json:"commandsCompleted"`
			CommandsTotal     int `json:"commandsTotal"`
		} `json:"summary"`
	} `json:"executions"`
}

func chainListJSON(t *testing.T, bin, dir string) chainCLIList {
	t.Helper()
	r := chainExec(t, bin, "chain", "list", "--dir", dir, "--format", "json")
	if r.code != 0 {
		t.Fatalf("chain list: %d %s", r.code, r.stderr)
	}
	var l chainCLIList
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		t.Fatalf("chain list output: %v\n%s", err, r.stdout)
	}
	return l
}

// TestChainCLI drives the ctxls binary: run with the live progress as
// plain lines, bad input, list and show, SIGKILL mid-step then resume, and
// two processes on one workspace at once.
func TestChainCLI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	ctxls, agent := chainBins(t)

	t.Run("run", func(t *testing.T) {
		t.Parallel()
		log := filepath.Join(t.TempDir(), "agent.log")
		dir := chainCLIWorkspace(t, agent, log)
		r := chainExec(t, ctxls, "chain", "run", "brainstorm", "implement", "test", "--input", "add sorting", "--dir", dir)
		if r.code != 0 || !strings.Contains(r.stdout, ": completed (executor exec)") || !strings.Contains(r.stdout, "result of test (step 2, attempt 1)") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{"[1/3] brainstorm: running (attempt 1,", "[2/3] implement: success in ", "[3/3] test: success in "} {
			if !strings.Contains(r.stderr, want) {
				t.Fatalf("progress lacks %q:\n%s", want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "\x1b[") {
			t.Fatal("terminal control sequences on a non-terminal stderr")
		}
		l := chainListJSON(t, ctxls, dir)
		if len(l.Chains) != 2 || len(l.Executions) != 1 || l.Executions[0].State != "completed" || !l.Executions[0].IsCurrent {
			t.Fatalf("list: %+v", l)
		}
		show := chainExec(t, ctxls, "chain", "show", "--dir", dir)
		if show.code != 0 || !strings.Contains(show.stdout, l.Executions[0].SessionID+" (current)") ||
			!strings.Contains(show.stdout, "2. implement [success, attempt 1]") || !strings.Contains(show.stdout, "python:fastapi_patterns") {
			t.Fatalf("show: %d\n%s%s", show.code, show.stdout, show.stderr)
		}
		// A named chain of .ctxls.yaml runs by its name.
		r = chainExec(t, ctxls, "chain", "run", "feature", "--dir", dir, "--format", "json")
		var res struct {
			State string `json:"state"`
			Steps []struct {
				Command   string `json:"command"`
				CacheHits int    `json:"cacheHits"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || res.State != "completed" || len(res.Steps) != 3 {
			t.Fatalf("run feature: %d %v\n%s", r.code, err, r.stdout)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		t.Parallel()
		log := filepath.Join(t.TempDir(), "agent.log")
		dir := chainCLIWorkspace(t, agent, log, "-fail", "test")
		r := chainExec(t, ctxls, "chain", "run", "brainstorm", "implemnt", "--dir", dir)
		if r.code != 2 || !strings.Contains(r.stderr, `unknown command "implemnt" (did you mean "implement"?); available commands: brainstorm, implement, review, ship, test`) {
			t.Fatalf("unknown command: %d %s", r.code, r.stderr)
		}
		if r := chainExec(t, ctxls, "chain", "run", "--dir", dir); r.code != 2 {
			t.Fatalf("no command: exit %d", r.code)
		}
		if r := chainExec(t, ctxls, "chain", "resume", "nope", "--dir", dir); r.code != 2 || !strings.Contains(r.stderr, `no execution "nope"`) {
			t.Fatalf("resume unknown: %d %s", r.code, r.stderr)
		}
		r = chainExec(t, ctxls, "chain", "run", "implement", "test", "--dir", dir)
		if r.code != 1 || !strings.Contains(r.stdout, ": failed") || !strings.Contains(r.stdout, "agent failure in test: the model refused") ||
			!strings.Contains(r.stderr, "[2/2] test: failed in ") {
			t.Fatalf("failing agent: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		// The progress line ends with the last line of the agent's stderr;
		// the result prints every line in the reason's column.
		if !regexp.MustCompile(`\[2/2\] test: failed in .*\(exit status 3: agent failure in test: the model refused\)\n`).MatchString(r.stderr) {
			t.Fatalf("progress line of the failed step:\n%s", r.stderr)
		}
		if !strings.Contains(r.stdout, "   reason: exit status 3: noise line\n           agent failure in test: the model refused\n") {
			t.Fatalf("reason of the failed step:\n%s", r.stdout)
		}
		if show := chainExec(t, ctxls, "chain", "show", "--dir", dir); !strings.Contains(show.stdout, "   reason: exit status 3: noise line\n           agent failure in test: the model refused\n") {
			t.Fatalf("reason in chain show:\n%s", show.stdout)
		}
		l := chainListJSON(t, ctxls, dir)
		if len(l.Executions) != 1 || l.Executions[0].State != "failed" {
			t.Fatalf("the refused runs created executions: %+v", l.Executions)
		}
		// A new chain does not start in an execution whose chain failed:
		// it would leave that chain failed for good.
		id, runs := l.Executions[0].SessionID, chainCLIRuns(t, log)
		if !strings.Contains(r.stdout, "to finish the chain: ctxls chain resume "+id) {
			t.Fatalf("the failed run does not say how to resume:\n%s", r.stdout)
		}
		r = chainExec(t, ctxls, "chain", "run", "test", "--session", id, "--dir", dir)
		if r.code != 2 || !strings.Contains(r.stderr, "stopped at test (failed)") || !strings.Contains(r.stderr, "ctxls chain resume "+id) {
			t.Fatalf("run in the failed execution: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if got := chainCLIRuns(t, log); got != runs {
			t.Fatalf("the refused run ran the agent: %s, before %s", got, runs)
		}
		if l := chainListJSON(t, ctxls, dir); l.Executions[0].State != "failed" {
			t.Fatalf("after the refused run: %+v", l.Executions)
		}
	})

	t.Run("missing executor", func(t *testing.T) {
		t.Parallel()
		dir := chainCLIWorkspace(t, filepath.Join(t.TempDir(), "no-such-agent"), filepath.Join(t.TempDir(), "log"))
		r := chainExec(t, ctxls, "chain", "run", "brainstorm", "--dir", dir)
		if r.code != 2 || !strings.Contains(r.stderr, "executor: agent program") || !strings.Contains(r.stderr, "no-such-agent") {
			t.Fatalf("missing executor: %d %s", r.code, r.stderr)
		}
	})

	t.Run("sigkill and resume", func(t *testing.T) {
		t.Parallel()
		log := filepath.Join(t.TempDir(), "agent.log")
		pidFile := filepath.Join(t.TempDir(), "pids")
		dir := chainCLIWorkspace(t, agent, log, "-hangonce", "implement", "-pidfile", pidFile)
		cmd := exec.Command(ctxls, "chain", "run", "feature", "--input", "add sorting", "--dir", dir)
		cmd.WaitDelay = 5 * time.Second // the killed agent's output must not hold Wait
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill() // when the agent never started
			cmd.Wait()
			if t.Failed() {
				t.Logf("ctxls stderr:\n%s", errb.String())
			}
		})
		pids := chaintest.WaitFile(t, pidFile)
		cmd.Process.Kill() // SIGKILL: ctxls has no say in it
		cmd.Wait()
		chaintest.WaitGone(t, pids) // the agent does not outlive ctxls
		l := chainListJSON(t, ctxls, dir)
		if len(l.Executions) != 1 || l.Executions[0].State != "interrupted" || l.Executions[0].Summary.CommandsCompleted != 1 {
			t.Fatalf("after SIGKILL: %+v", l.Executions)
		}
		id := l.Executions[0].SessionID
		// Another chain in the interrupted execution would leave it
		// interrupted for good: refused, pointing to resume.
		r := chainExec(t, ctxls, "chain", "run", "review", "--session", id, "--dir", dir)
		if r.code != 2 || !strings.Contains(r.stderr, "stopped at implement (interrupted)") || !strings.Contains(r.stderr, "ctxls chain resume "+id) {
			t.Fatalf("run in the interrupted execution: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		r = chainExec(t, ctxls, "chain", "resume", id[:8], "--dir", dir)
		if r.code != 0 || !strings.Contains(r.stdout, "1. brainstorm [success, done earlier]") || !strings.Contains(r.stdout, "2. implement [success, attempt 2]") {
			t.Fatalf("resume: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if got := chainCLIRuns(t, log); got != "brainstorm#1 implement#1 implement#2 test#1" {
			t.Fatalf("agent runs: %s", got)
		}
		if l := chainListJSON(t, ctxls, dir); l.Executions[0].State != "completed" {
			t.Fatalf("after the resume: %+v", l.Executions)
		}
		// Finished, the execution takes another chain (named by a prefix).
		r = chainExec(t, ctxls, "chain", "run", "review", "--session", id[:8], "--dir", dir)
		if r.code != 0 || !strings.Contains(r.stdout, id+": completed") {
			t.Fatalf("run after the resume: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("two processes", func(t *testing.T) {
		t.Parallel()
		log := filepath.Join(t.TempDir(), "agent.log")
		dir := chainCLIWorkspace(t, agent, log)
		const n = 4
		var wg sync.WaitGroup
		for p := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					r := chainExec(t, ctxls, "chain", "run", "feature", "--dir", dir, "--project", fmt.Sprintf("p%d", p), "--input", strconv.Itoa(i))
					if r.code != 0 {
						t.Errorf("process %d run %d: %d\n%s\n%s", p, i, r.code, r.stdout, r.stderr)
						return
					}
				}
			}()
		}
		wg.Wait()
		l := chainListJSON(t, ctxls, dir)
		if len(l.Executions) != 2*n {
			t.Fatalf("%d executions, want %d", len(l.Executions), 2*n)
		}
		for _, e := range l.Executions {
			if e.State != "completed" || e.Summary.CommandsCompleted != 3 {
				t.Fatalf("execution %+v", e)
			}
		}
		if got := strings.Count(chainCLIRuns(t, log), "#1"); got != 2*n*3 {
			t.Fatalf("%d agent runs, want %d", got, 2*n*3)
		}
	})
}

// TestChainProgressTerminal checks the live display drawn on a terminal:
// the running step's line is redrawn in place with its elapsed time and
// tokens, then replaced by the step's outcome.
func TestChainProgressTerminal(t *testing.T) {
	t.Parallel()
	var buf libtest.SyncBuffer
	p := &progress{w: &buf, tty: true, done: make(chan struct{})}
	go p.tick()
	p.event(chain.Event{Kind: chain.StepStarted, Index: 0, Total: 2, Step: chain.Step{Command: "brainstorm", PromptTokens: 4073}})
	// The ticker redraws the line every 100 ms: wait for two redraws
	// that show the elapsed time, however late a loaded machine runs them.
	drawn := regexp.MustCompile(`brainstorm  [1-9][0-9]*00ms  4073 tokens`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := buf.String()
		if strings.Count(out, "\r\x1b[K[1/2] brainstorm  ") >= 3 && drawn.MatchString(out) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running line was not redrawn with its elapsed time in 30 s:\n%q", out)
		}
	}
	p.event(chain.Event{Kind: chain.StepFinished, Index: 0, Total: 2, Step: chain.Step{Command: "brainstorm", Status: "success", ElapsedMS: 350, PromptTokens: 4073}})
	p.stop()
	out := buf.String()
	if n := strings.Count(out, "\r\x1b[K[1/2] brainstorm  "); n < 3 {
		t.Fatalf("the running line was drawn %d times:\n%q", n, out)
	}
	if !regexp.MustCompile(`brainstorm  [1-9][0-9]*00ms  4073 tokens`).MatchString(out) {
		t.Fatalf("no elapsed time or tokens:\n%q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K[1/2] brainstorm: success in 350ms, 4073 prompt tokens\n") {
		t.Fatalf("outcome line:\n%q", out)
	}
}

// openExecutions opens the database of the workspace at dir, until the
// test ends, and an execution store on it, which the test closes.
func openExecutions(t *testing.T, dir string) (*storage.DB, *execution.Store) {
	t.Helper()
	db, err := storage.OpenWorkspace(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := execution.New(t.Context(), db, execution.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

// TestChainReadOnly checks that chain list and chain show only read: in a
// workspace without a database they create nothing, and in one with a
// database they commit nothing (no owner row, no sweep).
func TestChainReadOnly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	fresh := t.TempDir()
	out, _, err := runCLI(t, "chain", "list", "--dir", fresh)
	if err != nil || !strings.Contains(out, "no executions recorded in ") {
		t.Errorf("list without a database: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "chain", "list", "--dir", fresh, "--format", "json")
	if err != nil || !strings.Contains(out, `"executions": []`) {
		t.Errorf("JSON list without a database: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "chain", "show", "--dir", fresh); err == nil || !strings.Contains(err.Error(), "no executions recorded in ") {
		t.Errorf("show without a database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fresh, storage.DirName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading created %s: %v", storage.DirName, err)
	}

	dir := t.TempDir()
	db, s := openExecutions(t, dir)
	ex, err := s.Create(ctx, "shop", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartCommand(ctx, ex.SessionID, "implement", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteCommand(ctx, ex.SessionID, "implement", execution.StatusSuccess, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// data_version changes when another connection commits.
	version := func() (v int64) {
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chain", "list"}, ex.SessionID},
		{[]string{"chain", "list", "--format", "json"}, `"state": "completed"`},
		{[]string{"chain", "show"}, "1. implement [success, attempt 1]"},
		{[]string{"chain", "show", ex.SessionID[:8]}, ex.SessionID + " (current)"},
	} {
		out, _, err := runCLI(t, append(c.args, "--dir", dir)...)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%v: %v, want output with %q:\n%s", c.args, err, c.want, out)
		}
	}
	if after := version(); after != before {
		t.Errorf("chain list and show committed to the database (data_version %d → %d)", before, after)
	}
}

// TestStepReason checks how a step's failure reason is shown: on the
// progress line, the failure and the last line of the agent's stderr; in
// the result, every line, each in the reason's column.
func TestStepReason(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reason, short, block string
	}{
		{"", "", ""},
		{"cancelled", "cancelled", "cancelled"},
		{"exit status 3: agent failure", "exit status 3: agent failure", "exit status 3: agent failure"},
		{"exit status 3: noise line\nagent failure in test: the model refused",
			"exit status 3: agent failure in test: the model refused",
			"exit status 3: noise line\n    agent failure in test: the model refused"},
		{"signal: killed: starting\n\nout of memory\n", "signal: killed: out of memory", "signal: killed: starting\n\n    out of memory"},
		{"timed out after 2m0s: thinking\nstill thinking", "timed out after 2m0s: still thinking", "timed out after 2m0s: thinking\n    still thinking"},
		{"exit status -1: a\r\nb\r\n", "exit status -1: b", "exit status -1: a\n    b"},
		{"agent program gone\nsee the log", "agent program gone: see the log", "agent program gone\n    see the log"},
	} {
		if got := shortReason(c.reason); got != c.short {
			t.Errorf("shortReason(%q) = %q, want %q", c.reason, got, c.short)
		}
		if got := hangingIndent(c.reason, "    "); got != c.block {
			t.Errorf("hangingIndent(%q) = %q, want %q", c.reason, got, c.block)
		}
	}
}

// TestChainHelpStates checks that chain --help describes every state an
// execution can be listed in.
func TestChainHelpStates(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "chain", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []execution.State{execution.StateNew, execution.StateRunning, execution.StateCompleted,
		execution.StateFailed, execution.StateInterrupted} {
		if !regexp.MustCompile(`(?m)^  ` + string(st) + ` +\S`).MatchString(out) {
			t.Errorf("chain --help does not describe the state %q:\n%s", st, out)
		}
	}
}

// TestChainListPages: chain list prints a page of the executions, newest
// first, with the cursor of the next; the cursor lists the rest.
func TestChainListPages(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	_, s := openExecutions(t, dir)
	for _, p := range []string{"a", "b", "c"} {
		if _, err := s.Create(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	list := func(args ...string) (ids []string, next string) {
		t.Helper()
		out, _, err := runCLI(t, append([]string{"chain", "list", "--dir", dir, "--format", "json"}, args...)...)
		if err != nil {
			t.Fatalf("chain list %v: %v", args, err)
		}
		var l struct {
			Executions []struct {
				SessionID string `json:"sessionId"`
			} `json:"executions"`
			Next string `json:"next"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("chain list %v: %v\n%s", args, err, out)
		}
		for _, e := range l.Executions {
			ids = append(ids, e.SessionID)
		}
		return ids, l.Next
	}
	first, next := list("--limit", "2")
	if len(first) != 2 || first[0] != all[0].SessionID || first[1] != all[1].SessionID || next == "" {
		t.Fatalf("first page: %v, next %q; want the two newest of %+v and a cursor", first, next, all)
	}
	rest, next2 := list("--limit", "2", "--cursor", next)
	if len(rest) != 1 || rest[0] != all[2].SessionID || next2 != "" {
		t.Errorf("second page: %v, next %q; want %s alone", rest, next2, all[2].SessionID)
	}
	out, _, err := runCLI(t, "chain", "list", "--dir", dir, "--limit", "2")
	if err != nil || !strings.Contains(out, "--cursor "+next) {
		t.Errorf("text list of a page does not say how to list the rest: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "chain", "list", "--dir", dir, "--cursor", "nonsense"); err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("a bad cursor: %v, want an error about it", err)
	}
}
