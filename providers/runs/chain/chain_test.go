//go:build unix

package chain

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
	"github.com/ctxls/ctxls/providers/runs/execution"
	"github.com/ctxls/ctxls/providers/runs/history"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

var (
	agentOnce sync.Once
	agentPath string
	agentErr  error
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(serveEnv); dir != "" {
		os.Exit(serveChain(dir))
	}
	code := m.Run()
	if agentPath != "" {
		os.RemoveAll(filepath.Dir(agentPath))
	}
	os.Exit(code)
}

// buildAgent builds the stand-in agent program once per test binary.
func buildAgent(t testing.TB) string {
	t.Helper()
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctxls-agent")
		if err != nil {
			agentErr = err
			return
		}
		agentPath, agentErr = chaintest.BuildAgent(dir)
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentPath
}

// env is a workspace copied from the example library, with its database and
// a Runner.
type env struct {
	dir    string
	log    string
	lib    *library.Library
	db     *storage.DB
	store  *execution.Store
	hist   *history.Store
	runner *Runner
}

// executorYAML returns the executor section running the stand-in agent
// with the given flags.
func executorYAML(t testing.TB, timeout string, flags ...string) string {
	argv := append([]string{buildAgent(t)}, flags...)
	b, _ := json.Marshal(argv)
	return fmt.Sprintf("executor:\n  kind: exec\n  command: %s\n  timeout: %s\n", b, timeout)
}

// agentEnv is newEnv with the stand-in agent as executor, logging its runs
// to e.log, plus extra configuration.
func agentEnv(t testing.TB, timeout, extra string, flags ...string) *env {
	t.Helper()
	log := filepath.Join(t.TempDir(), "agent.log")
	e := newEnv(t, executorYAML(t, timeout, append([]string{"-log", log}, flags...)...)+extra)
	e.log = log
	return e
}

// dumpingEnv is agentEnv with the agent writing each prompt it is given
// into the folder it returns, as COMMAND-ATTEMPT.txt.
func dumpingEnv(t testing.TB) (*env, string) {
	t.Helper()
	dumps := t.TempDir()
	return agentEnv(t, "30s", "", "-dump", dumps), dumps
}

// newEnv copies examples/library into a temp dir, replaces its executor
// section with extra (none: the preview executor) and opens everything.
func newEnv(t testing.TB, extra string) *env {
	t.Helper()
	return newEnvConfig(t, func(cfg string) string {
		return strings.Replace(cfg, "executor:\n  kind: preview\n", extra, 1)
	})
}

// newEnvConfig is newEnv with the example's .ctxls.yaml rewritten by edit.
func newEnvConfig(t testing.TB, edit func(string) string) *env {
	t.Helper()
	dir := t.TempDir()
	libtest.CopyTree(t, libtest.ExampleDir(t), dir)
	cfgPath := filepath.Join(dir, ".ctxls.yaml")
	cfg, err := os.ReadFile(cfgPath)
	check(t, err)
	check(t, os.WriteFile(cfgPath, []byte(edit(string(cfg))), 0o644))
	ctx := context.Background()
	e := &env{dir: dir}
	e.lib, err = library.Load(ctx, dir, nil, library.Options{})
	check(t, err)
	e.db, err = storage.OpenWorkspace(ctx, dir)
	check(t, err)
	t.Cleanup(func() { e.db.Close() })
	e.store, err = execution.New(ctx, e.db, execution.Options{})
	check(t, err)
	t.Cleanup(func() { e.store.Close() })
	e.hist = history.Open(e.db, e.lib.Snapshot().Counter())
	e.runner = New(Options{Store: e.store, Provider: contextapi.NewStatic(e.lib.Snapshot()), History: StoreHistory(e.hist)})
	return e
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// runFeature runs the feature chain with input and fails the test unless
// it ends in state with the step statuses want (any, when want is empty).
func (e *env) runFeature(t *testing.T, input string, state execution.State, want string) *Result {
	t.Helper()
	res, err := e.runner.Run(t.Context(), Request{Commands: feature, Input: input})
	check(t, err)
	if res.State != state || want != "" && statuses(res) != want {
		t.Fatalf("state %s, want %s: %s", res.State, state, statuses(res))
	}
	return res
}

func (e *env) agentRuns(t testing.TB) []string {
	t.Helper()
	return chaintest.Runs(t, e.log)
}

func statuses(res *Result) string {
	var s []string
	for _, st := range res.Steps {
		s = append(s, st.Command+":"+st.Status)
	}
	return strings.Join(s, " ")
}

var feature = []string{"brainstorm", "implement", "test"}

// TestRunPreviewExecutor runs a chain with the default executor: every
// step records its prompt and costs, later steps reuse cached context.
func TestRunPreviewExecutor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	ctx := context.Background()
	res, err := e.runner.Run(ctx, Request{Commands: []string{"/brainstorm", "implement", "test"}, Input: "add sorting", ProjectName: "shop"})
	check(t, err)
	if res.State != execution.StateCompleted || statuses(res) != "brainstorm:success implement:success test:success" {
		t.Fatalf("state %s, steps %s", res.State, statuses(res))
	}
	if res.Executor != KindPreview || res.CacheHits == 0 {
		t.Fatalf("executor %s, cache hits %d", res.Executor, res.CacheHits)
	}
	st, err := e.store.Get(ctx, res.SessionID)
	check(t, err)
	if !st.IsCurrent || st.ProjectName != "shop" || len(st.CommandHistory) != 3 {
		t.Fatalf("execution: current %v project %q, %d commands", st.IsCurrent, st.ProjectName, len(st.CommandHistory))
	}
	common, _ := e.lib.Snapshot().Topic("python/common_issues")
	if got := st.LoadedContext["python:common_issues"]; got != common.Body() {
		t.Fatalf("cached python:common_issues differs from the topic body (%d vs %d bytes)", len(got), len(common.Body()))
	}
	for i, ce := range st.CommandHistory {
		var prompt string
		check(t, json.Unmarshal(ce.Outputs["prompt"], &prompt))
		if !strings.HasSuffix(strings.TrimSpace(prompt), "add sorting") {
			t.Errorf("step %d prompt does not end with the input", i)
		}
		var tokens int
		check(t, json.Unmarshal(ce.Outputs["promptTokens"], &tokens))
		if tokens != res.Steps[i].PromptTokens || tokens < 1000 {
			t.Errorf("step %d: recorded %d prompt tokens, result says %d", i, tokens, res.Steps[i].PromptTokens)
		}
		if len(ce.ContextLoaded) != len(res.Steps[i].Context) {
			t.Errorf("step %d: contextLoaded %v, result has %d items", i, ce.ContextLoaded, len(res.Steps[i].Context))
		}
	}
	// python:common_issues is always-load in brainstorm and implement: the
	// second load is a cache hit.
	var hit bool
	for _, it := range res.Steps[1].Context {
		if it.Reference == "python:common_issues" {
			hit = it.Cached && it.Source == "cache"
		}
	}
	if !hit {
		t.Fatalf("implement did not reuse python:common_issues: %+v", res.Steps[1].Context)
	}
}

// TestRunExec runs the stand-in agent: shared blocks flow into later
// prompts, the prompt's parts come in order, and the environment names the
// step.
func TestRunExec(t *testing.T) {
	t.Parallel()
	e, dumps := dumpingEnv(t)
	ctx := context.Background()
	res := e.runFeature(t, "INPUT-MARKER add sorting", execution.StateCompleted, "")
	if res.Executor != KindExec {
		t.Fatalf("executor %s, want %s", res.Executor, KindExec)
	}
	if got := strings.Join(e.agentRuns(t), " "); got != "brainstorm#1 implement#1 test#1" {
		t.Fatalf("agent runs: %s", got)
	}
	log, _ := os.ReadFile(e.log)
	if !strings.Contains(string(log), "implement 1 1 "+res.SessionID) {
		t.Fatalf("environment not passed: %s", log)
	}
	shared, err := e.store.AllSharedData(ctx, res.SessionID)
	check(t, err)
	for _, c := range feature {
		if _, ok := shared[c]; !ok {
			t.Fatalf("shared data lacks %s: %s", c, shared)
		}
	}
	prompt, err := os.ReadFile(filepath.Join(dumps, "test-1.txt"))
	check(t, err)
	p := string(prompt)
	cmd, _ := e.lib.Snapshot().Command("test")
	order := []string{
		strings.TrimSpace(cmd.Body())[:40], // command body
		"## testing:pytest_patterns",       // context
		`"implement": {`,                   // shared data of an earlier step
		"# Conversation so far",            // history
		"result of implement (step 1",      // an earlier step's output, in the history
		"INPUT-MARKER",                     // input
	}
	last := -1
	for _, part := range order {
		i := strings.Index(p[max(last, 0):], part)
		if i >= 0 {
			i += max(last, 0)
		}
		if part == "INPUT-MARKER" {
			// Earlier prompts in the history hold it too.
			i = strings.LastIndex(p, part)
		}
		if i < 0 || i < last {
			t.Fatalf("prompt part %q at %d, after %d:\n%s", part, i, last, p[:min(len(p), 2000)])
		}
		last = i
	}
	st, err := e.store.Get(ctx, res.SessionID)
	check(t, err)
	var out string
	check(t, json.Unmarshal(st.CommandHistory[2].Outputs["output"], &out))
	if !strings.HasPrefix(out, "result of test (step 2, attempt 1)") {
		t.Fatalf("recorded output %q", out)
	}
	// Each step's prompt and result are in the conversation.
	page, err := e.hist.List(ctx, res.SessionID, history.ListRequest{})
	check(t, err)
	var msgs []string
	for _, m := range page.Items {
		if m.RunID != res.RunID {
			t.Fatalf("message %d has run %q, want %q", m.ID, m.RunID, res.RunID)
		}
		msgs = append(msgs, m.Command+":"+m.Role)
	}
	if got := strings.Join(msgs, " "); got != "brainstorm:user brainstorm:assistant implement:user implement:assistant test:user test:assistant" {
		t.Fatalf("conversation: %s", got)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	ctx := context.Background()
	for _, run := range []bool{false, true} {
		var err error
		if run {
			_, err = e.runner.Run(ctx, Request{Commands: []string{"brainstorm", "implemnt"}})
		} else {
			_, err = e.runner.Preview(ctx, Request{Commands: []string{"brainstorm", "implemnt"}})
		}
		if !errors.Is(err, ErrUnknownCommand) || !strings.Contains(err.Error(), `"implemnt"`) ||
			!strings.Contains(err.Error(), `did you mean "implement"`) ||
			!strings.Contains(err.Error(), "available commands: brainstorm, implement, review, ship, test") {
			t.Fatalf("run=%v: %v", run, err)
		}
	}
	if _, err := e.runner.Run(ctx, Request{}); !errors.Is(err, ErrNoCommands) {
		t.Fatalf("empty chain: %v", err)
	}
	if l, _ := e.store.List(ctx); len(l) != 0 {
		t.Fatalf("a failed request created %d executions", len(l))
	}
}

func TestExecutorMissing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, want string }{
		{"executor:\n  kind: exec\n  command: [\"/nonexistent/agent-cli\", \"-p\"]\n", `agent program "/nonexistent/agent-cli" not found`},
		{"executor:\n  kind: exec\n  command: [no-such-agent-cli-on-path]\n", `"no-such-agent-cli-on-path" not found`},
	} {
		e := newEnv(t, tc.yaml)
		ctx := context.Background()
		_, err := e.runner.Run(ctx, Request{Commands: feature})
		if !errors.Is(err, ErrExecutor) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if l, _ := e.store.List(ctx); len(l) != 0 {
			t.Fatalf("a failed run created %d executions", len(l))
		}
		// A preview still works and says what is wrong.
		res, err := e.runner.Preview(ctx, Request{Commands: feature})
		check(t, err)
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], tc.want) {
			t.Fatalf("preview warnings %v", res.Warnings)
		}
	}
}

// TestFailureAndResume: a failing step stops the chain with stderr's tail
// as the reason; resume retries it as attempt 2 and never re-runs the step
// that succeeded.
func TestFailureAndResume(t *testing.T) {
	t.Parallel()
	e := agentEnv(t, "30s", "", "-failonce", "implement")
	ctx := context.Background()
	res := e.runFeature(t, "x", execution.StateFailed, "brainstorm:success implement:failed test:pending")
	reason := res.Steps[1].Reason
	if !strings.Contains(reason, "exit status 3") || !strings.Contains(reason, "agent failure in implement: the model refused") {
		t.Fatalf("reason %q", reason)
	}
	if _, ok, _ := e.store.GetSharedData(ctx, res.SessionID, "implement"); ok {
		t.Fatal("a failed step's output was merged into shared data")
	}
	res2, err := e.runner.Resume(ctx, Request{SessionID: res.SessionID})
	check(t, err)
	if res2.State != execution.StateCompleted || statuses(res2) != "brainstorm:success implement:success test:success" {
		t.Fatalf("after resume: %s: %s", res2.State, statuses(res2))
	}
	if !res2.Steps[0].Skipped || res2.Steps[1].Attempts != 2 {
		t.Fatalf("resume steps: %+v", res2.Steps[:2])
	}
	if got := strings.Join(e.agentRuns(t), " "); got != "brainstorm#1 implement#1 implement#2 test#1" {
		t.Fatalf("agent runs: %s", got)
	}
	atts, err := e.store.Attempts(ctx, res.SessionID, 1)
	check(t, err)
	if len(atts) != 2 || atts[0].Status != execution.StatusFailed || atts[1].Status != execution.StatusSuccess {
		t.Fatalf("attempts: %+v", atts)
	}
	// A finished chain resumes to nothing.
	res3, err := e.runner.Resume(ctx, Request{SessionID: res.SessionID})
	check(t, err)
	if res3.State != execution.StateCompleted || len(e.agentRuns(t)) != 4 {
		t.Fatalf("resume of a finished chain: %s, runs %v", res3.State, e.agentRuns(t))
	}
}

// waitPids waits for the agent's pid file and checks that it names two
// processes, the agent and the child it left; it returns the file's text.
func waitPids(t *testing.T, pidFile string) string {
	t.Helper()
	pids := chaintest.WaitFile(t, pidFile)
	if len(strings.Fields(pids)) != 2 {
		t.Fatalf("pid file %q", pids)
	}
	return pids
}

// TestTimeout: a hanging agent is killed with its children when the step
// times out, and the step fails with the reason.
func TestTimeout(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("process groups")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	e := newEnv(t, executorYAML(t, "1s", "-hang", "brainstorm", "-hangchild", "-pidfile", pidFile))
	res := e.runFeature(t, "", execution.StateFailed, "brainstorm:failed implement:pending test:pending")
	if r := res.Steps[0].Reason; !strings.HasPrefix(r, "timed out after 1s") {
		t.Fatalf("reason %q", r)
	}
	pids := waitPids(t, pidFile)
	chaintest.WaitGone(t, pids)
}

// TestCancel: cancelling a run kills the agent, leaves the step
// interrupted, and a resume completes the chain.
func TestCancel(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("process groups")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	e := agentEnv(t, "1m", "", "-hangonce", "implement", "-hangchild", "-pidfile", pidFile)
	ctx := context.Background()
	var (
		res *Result
		err error
	)
	done := make(chan struct{})
	started := make(chan string, 3)
	go func() {
		defer close(done)
		res, err = e.runner.Run(ctx, Request{Commands: feature, Progress: func(ev Event) {
			if ev.Kind == StepStarted {
				started <- ev.Step.Command
			}
		}})
	}()
	pids := chaintest.WaitFile(t, pidFile)
	running := e.runner.Running()
	if len(running) != 1 {
		t.Fatalf("running %v", running)
	}
	// A second run of the same execution is refused while it runs.
	if _, err := e.runner.Resume(ctx, Request{SessionID: running[0]}); !errors.Is(err, ErrConflict) {
		t.Fatalf("concurrent resume: %v", err)
	}
	if got := e.runner.Cancel(running[0]); len(got) != 1 {
		t.Fatalf("cancel stopped %v", got)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled chain did not return")
	}
	check(t, err)
	chaintest.WaitGone(t, pids)
	if res.State != execution.StateInterrupted || statuses(res) != "brainstorm:success implement:interrupted test:pending" {
		t.Fatalf("%s: %s", res.State, statuses(res))
	}
	if l, _ := e.store.List(ctx); l[0].State != execution.StateInterrupted {
		t.Fatalf("listed as %s", l[0].State)
	}
	res2, err := e.runner.Resume(ctx, Request{SessionID: res.SessionID})
	check(t, err)
	if res2.State != execution.StateCompleted || res2.Steps[1].Attempts != 2 {
		t.Fatalf("resume: %s %s attempts %d", res2.State, statuses(res2), res2.Steps[1].Attempts)
	}
	if got := strings.Join(e.agentRuns(t), " "); got != "brainstorm#1 implement#1 implement#2 test#1" {
		t.Fatalf("agent runs: %s", got)
	}
}

// TestBadOutput: megabytes, binary data and a broken shared block each give
// a clear status or warning and lose nothing that was kept.
func TestBadOutput(t *testing.T) {
	t.Parallel()
	// Above what a result holds, and below what the agent prints: each
	// bound cuts. Every kept byte is tokenized for the history, so the
	// sizes stay small.
	const maxOutput, bigSize = 256 << 10, 600000
	if maxOutput <= outputInResult || bigSize <= maxOutput {
		t.Fatalf("sizes %d, %d, %d: each bound must cut", outputInResult, maxOutput, bigSize)
	}
	e := newEnv(t, executorYAML(t, "30s", "-big", "brainstorm", "-bigsize", strconv.Itoa(bigSize), "-binary", "implement", "-badshared", "test"))
	e.runner.opts.MaxOutput = maxOutput
	ctx := context.Background()
	res, err := e.runner.Run(ctx, Request{Commands: feature})
	check(t, err)
	if statuses(res) != "brainstorm:partial implement:success test:success" {
		t.Fatalf("%s", statuses(res))
	}
	big := res.Steps[0]
	if big.OutputBytes < bigSize || !containsAny(big.Warnings, fmt.Sprintf("only the first %d were kept", maxOutput)) || len(big.Output) > outputInResult+100 {
		t.Fatalf("big output: %d bytes, warnings %v, %d in result", big.OutputBytes, big.Warnings, len(big.Output))
	}
	st, err := e.store.Get(ctx, res.SessionID)
	check(t, err)
	var kept string
	check(t, json.Unmarshal(st.CommandHistory[0].Outputs["output"], &kept))
	if len(kept) != maxOutput {
		t.Fatalf("recorded %d bytes of the big output", len(kept))
	}
	var b64 string
	check(t, json.Unmarshal(st.CommandHistory[1].Outputs["outputBase64"], &b64))
	raw, err := base64.StdEncoding.DecodeString(b64)
	check(t, err)
	if len(raw) != 4096 || raw[1] != 7 || raw[37] != byte(37*7%256) {
		t.Fatalf("binary output not kept exactly: %d bytes", len(raw))
	}
	if !containsAny(res.Steps[1].Warnings, "not UTF-8") {
		t.Fatalf("binary warnings %v", res.Steps[1].Warnings)
	}
	if !containsAny(res.Steps[2].Warnings, "the shared block at line 2 was ignored: it is not a JSON object") {
		t.Fatalf("bad shared warnings %v", res.Steps[2].Warnings)
	}
	var out string
	check(t, json.Unmarshal(st.CommandHistory[2].Outputs["output"], &out))
	if !strings.Contains(out, "{not json: [1, 2") {
		t.Fatalf("output with the bad block lost: %q", out)
	}
	if _, ok := st.SharedData["test"]; ok || len(st.SharedData) != 0 {
		t.Fatalf("shared data %v", st.SharedData)
	}
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestPreview: a preview runs and records nothing, marks what an earlier
// step (or the named execution) loaded as cached and says what the budget
// dropped.
func TestPreview(t *testing.T) {
	t.Parallel()
	e := agentEnv(t, "30s", "budget:\n  files: 2\n  tokens: 100000\n")
	ctx := context.Background()
	res, err := e.runner.Preview(ctx, Request{Commands: feature, Input: "x"})
	check(t, err)
	if l, _ := e.store.List(ctx); len(l) != 0 || len(e.agentRuns(t)) != 0 {
		t.Fatal("preview ran or recorded something")
	}
	if res.Budget.Files != 2 || len(res.Steps) != 3 {
		t.Fatalf("budget %+v, %d steps", res.Budget, len(res.Steps))
	}
	for _, st := range res.Steps {
		files := 0
		for _, it := range st.Context {
			if it.Kind != "lookup" {
				files++
			}
		}
		if files > 2 || len(st.Dropped) == 0 || !containsAny(st.Warnings, "the context budget dropped") {
			t.Fatalf("%s: %d files, dropped %d, warnings %v", st.Command, files, len(st.Dropped), st.Warnings)
		}
		if !strings.HasPrefix(st.Dropped[0].Reason, "dropped: file budget of 2 files reached") {
			t.Fatalf("drop reason %q", st.Dropped[0].Reason)
		}
		if st.PromptTokens <= st.ContextTokens || st.Prompt == "" {
			t.Fatalf("%s: prompt %d tokens, context %d", st.Command, st.PromptTokens, st.ContextTokens)
		}
	}
	if res.Steps[1].CacheHits == 0 || res.Steps[0].CacheHits != 0 {
		t.Fatalf("cache hits %d, %d", res.Steps[0].CacheHits, res.Steps[1].CacheHits)
	}
	// Against an execution that loaded brainstorm's context already, its
	// first step is all cache hits.
	run, err := e.runner.Run(ctx, Request{Commands: []string{"brainstorm"}})
	check(t, err)
	res, err = e.runner.Preview(ctx, Request{Commands: []string{"brainstorm"}, SessionID: run.SessionID})
	check(t, err)
	if res.Steps[0].CacheHits != len(res.Steps[0].Context) || res.Steps[0].SharedDataTokens == 0 {
		t.Fatalf("preview in the execution: %d hits of %d, shared %d tokens", res.Steps[0].CacheHits, len(res.Steps[0].Context), res.Steps[0].SharedDataTokens)
	}
}

// TestRunInExecution continues an existing execution: the new chain's
// steps come after the recorded ones and reuse its cache.
func TestRunInExecution(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	ctx := context.Background()
	first, err := e.runner.Run(ctx, Request{Commands: []string{"brainstorm"}})
	check(t, err)
	second, err := e.runner.Run(ctx, Request{Commands: []string{"implement", "test"}, SessionID: first.SessionID})
	check(t, err)
	if second.SessionID != first.SessionID || second.Steps[0].Step != 1 || second.Steps[1].Step != 2 || second.CacheHits == 0 {
		t.Fatalf("second run: %+v", second.Steps)
	}
	if _, err := e.runner.Run(ctx, Request{Commands: []string{"test"}, SessionID: "no-such-session"}); !errors.Is(err, execution.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

func TestParseShared(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out, want string
		warn            string
	}{
		{"none", "just text\n```go\nx := 1\n```\n", "", ""},
		{"one", "a\n```shared\n{\"plan\": [1, 2], \"ok\": true}\n```\n", `ok=true plan=[1,2]`, ""},
		{"later wins", "```shared\n{\"a\": 1}\n```\n~~~~ shared\n{\"a\": 2, \"b\": \"x\"}\n~~~~\n", `a=2 b="x"`, ""},
		{"not json", "```shared\nplan: yes\n```\n", "", "at line 1 was ignored: it is not a JSON object"},
		{"array", "```shared\n[1]\n```\n", "", "not a JSON object"},
		{"null", "```shared\nnull\n```\n", "", "it is not a JSON object"},
		{"unclosed", "```shared\n{\"a\": 1}\n", "", "is not closed"},
		{"indented and info", "  ```Shared json\n{\"a\": {\"b\": 1}}\n  ```", `a={"b":1}`, ""},
		{"nested fence", "````markdown\n```shared\n{\"a\": 1}\n```\n````\n", "", ""},
		{"empty key", "```shared\n{\"\": 1, \"k\": 2}\n```", "k=2", "empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, warns := parseShared(tc.out)
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			sortStrings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, k+"="+string(got[k]))
			}
			if g := strings.Join(parts, " "); g != tc.want {
				t.Errorf("shared = %q, want %q", g, tc.want)
			}
			if tc.warn == "" && len(warns) > 0 || tc.warn != "" && !containsAny(warns, tc.warn) {
				t.Errorf("warnings %v, want %q", warns, tc.warn)
			}
		})
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestPromptTokens: a prompt's cost, summed from its measured parts, is
// the tokenizer's count of the whole prompt to within a token per part.
func TestPromptTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	ctx := context.Background()
	run, err := e.runner.Run(ctx, Request{Commands: []string{"brainstorm"}, Input: "seed the cache and the history"})
	check(t, err)
	check(t, e.store.SetSharedData(ctx, run.SessionID, "plan", map[string]any{"steps": []string{"a", "b"}, "risk": "low"}))
	res, err := e.runner.Preview(ctx, Request{Commands: feature, Input: "add sorting\nwith two lines", SessionID: run.SessionID})
	check(t, err)
	for _, st := range res.Steps {
		exact := e.lib.Snapshot().Counter().Count(st.Prompt)
		parts := 5 + len(st.Context)
		if d := st.PromptTokens - exact; d < -parts || d > parts || st.HistoryTokens == 0 || st.SharedDataTokens == 0 {
			t.Errorf("%s: %d tokens by parts, %d counted (history %d, shared %d)", st.Command, st.PromptTokens, exact, st.HistoryTokens, st.SharedDataTokens)
		}
		// The parts a preview shows add up to its total, and the memory
		// and context parts to their items.
		sum := st.CommandTokens + st.MemoryTokens + st.ContextTokens + st.SharedDataTokens + st.HistoryTokens + st.InputTokens + st.FramingTokens
		if sum != st.PromptTokens || st.FramingTokens <= 0 {
			t.Errorf("%s: parts sum to %d (framing %d), prompt %d", st.Command, sum, st.FramingTokens, st.PromptTokens)
		}
		items, mem := 0, 0
		for _, it := range st.Context {
			items += it.Tokens
		}
		for _, m := range st.Memory {
			mem += m.Tokens
		}
		if items != st.ContextTokens || mem != st.MemoryTokens || len(st.Memory) == 0 {
			t.Errorf("%s: context items %d of %d, memory items %d of %d", st.Command, items, st.ContextTokens, mem, st.MemoryTokens)
		}
	}
}

// TestExecutorRelativePath: a relative agent path is taken from the
// workspace, not from the directory the server runs in.
func TestExecutorRelativePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	check(t, os.MkdirAll(filepath.Join(dir, "tools"), 0o755))
	check(t, os.WriteFile(filepath.Join(dir, "tools", "agent"), []byte("#!/bin/sh\ncat\n"), 0o755))
	e, err := newExecutor(config.Executor{Kind: KindExec, Command: []string{"./tools/agent", "-x"}}, dir)
	check(t, err)
	x := e.(*execExecutor)
	if x.Path != filepath.Join(dir, "tools", "agent") || len(x.Args) != 1 || x.Timeout != config.DefaultExecTimeout {
		t.Fatalf("executor %+v", x)
	}
	if _, err := newExecutor(config.Executor{Kind: KindExec, Command: []string{"tools/missing"}}, dir); !errors.Is(err, ErrExecutor) {
		t.Fatalf("missing relative agent: %v", err)
	}
}

// TestExpandChains: a chain's name stands for its commands in runs and
// previews, unless a command has that name.
func TestExpandChains(t *testing.T) {
	t.Parallel()
	e := newEnvConfig(t, func(cfg string) string {
		return strings.Replace(cfg, "  review: [review]\n", "  review: [review]\n  test: [brainstorm]\n  both: [brainstorm, /test]\n", 1)
	})
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"feature"}, "brainstorm implement test"},
		{[]string{"/feature"}, "brainstorm implement test"},
		{[]string{"test"}, "test"}, // the command wins over the chain
		{[]string{"feature", "review"}, "brainstorm implement test review"},
		{[]string{"both"}, "brainstorm /test"},
		{[]string{"implement", "nope"}, "implement nope"},
	} {
		if got := strings.Join(expand(e.lib.Snapshot(), tc.names), " "); got != tc.want {
			t.Errorf("Expand(%v) = %q, want %q", tc.names, got, tc.want)
		}
	}
	ctx := context.Background()
	pv, err := e.runner.Preview(ctx, Request{Commands: []string{"feature"}, Input: "x"})
	check(t, err)
	if len(pv.Steps) != 3 || pv.Steps[2].Command != "test" {
		t.Fatalf("preview of the feature chain: %d steps", len(pv.Steps))
	}
	res, err := e.runner.Run(ctx, Request{Commands: []string{"feature"}, Input: "x"})
	check(t, err)
	if statuses(res) != "brainstorm:success implement:success test:success" {
		t.Fatalf("run of the feature chain: %s", statuses(res))
	}
	res, err = e.runner.Run(ctx, Request{Commands: []string{"test"}, Input: "x"})
	check(t, err)
	if statuses(res) != "test:success" {
		t.Fatalf("run of test, a command and a chain: %s", statuses(res))
	}
}

// serveEnv names the workspace in which the test binary, started again by
// a test, runs the feature chain as a server would (see serveChain);
// crashEnv a command after whose messages are stored the process kills
// itself.
const (
	serveEnv = "CTXLS_CHAIN_TEST_SERVE"
	crashEnv = "CTXLS_CHAIN_TEST_CRASH"
)

// serveChain runs the feature chain in the workspace dir, as a ctxls
// server would, for a test that kills this process or has it crash.
func serveChain(dir string) int {
	ctx := context.Background()
	lib, err := library.Load(ctx, dir, nil, library.Options{})
	if err == nil {
		var db *storage.DB
		if db, err = storage.OpenWorkspace(ctx, dir); err == nil {
			var store *execution.Store
			if store, err = execution.New(ctx, db, execution.Options{}); err == nil {
				hist := &crashingHistory{History: StoreHistory(history.Open(db, lib.Snapshot().Counter())), crash: os.Getenv(crashEnv)}
				runner := New(Options{Store: store, Provider: contextapi.NewStatic(lib.Snapshot()), History: hist})
				_, err = runner.Run(ctx, Request{Commands: feature, Input: "add sorting"})
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestAgentDiesWithServer kills the process running a chain (SIGKILL, which
// it cannot handle) while the agent hangs with a child of its own: the
// agent and its child die too.
func TestAgentDiesWithServer(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	e := newEnv(t, executorYAML(t, "5m", "-hang", "brainstorm", "-hangchild", "-pidfile", pidFile))
	server := exec.Command(os.Args[0], "-test.run", "^$")
	server.Env = append(os.Environ(), serveEnv+"="+e.dir)
	server.WaitDelay = 5 * time.Second // the agent's child may hold stderr
	var stderr strings.Builder
	server.Stderr = &stderr
	check(t, server.Start())
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	t.Cleanup(func() {
		server.Process.Kill()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Error("the killed server was not reaped")
		}
	})
	pids := waitPids(t, pidFile)
	check(t, server.Process.Signal(syscall.SIGKILL))
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the killed server was not reaped")
	}
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("server: %v\n%s", err, stderr.String())
	}
	exited <- nil // for the cleanup
	chaintest.WaitGone(t, pids)
}

// TestAgentLeavesNoChild: what an agent leaves running in its process group
// when it exits is killed once its step is over.
func TestAgentLeavesNoChild(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	e := newEnv(t, executorYAML(t, "30s", "-leavechild", "brainstorm", "-pidfile", pidFile))
	res, err := e.runner.Run(context.Background(), Request{Commands: []string{"brainstorm"}})
	check(t, err)
	if statuses(res) != "brainstorm:success" || !strings.Contains(res.Steps[0].Output, "a child left behind") {
		t.Fatalf("%s: %q", statuses(res), res.Steps[0].Output)
	}
	pids := waitPids(t, pidFile)
	chaintest.WaitGone(t, pids)
}

// TestHistoryDoesNotNest: a step's stored request is its prompt without the
// history it was given, so the history of a three-step chain holds no
// history in it, and the last prompt has one history section.
func TestHistoryDoesNotNest(t *testing.T) {
	t.Parallel()
	e, dumps := dumpingEnv(t)
	ctx := context.Background()
	res := e.runFeature(t, "add sorting", execution.StateCompleted, "")
	const heading = "# Conversation so far"
	page, err := e.hist.List(ctx, res.SessionID, history.ListRequest{})
	check(t, err)
	if len(page.Items) != 6 {
		t.Fatalf("%d messages, want 6", len(page.Items))
	}
	for _, m := range page.Items {
		if strings.Contains(m.Content, heading) {
			t.Errorf("%s message of %s holds a history section", m.Role, m.Command)
		}
		if m.Role == "user" && !strings.HasSuffix(strings.TrimSpace(m.Content), "add sorting") {
			t.Errorf("request of %s does not end with the input", m.Command)
		}
	}
	// What the next prompt would receive (ctxls history --context).
	hc, _, err := e.hist.BuildFor(ctx, res.SessionID, history.BuildSpec{}, e.lib.Snapshot().Config())
	check(t, err)
	if strings.Contains(hc.Text, heading) || hc.Selected == 0 {
		t.Errorf("history context (%d messages) holds a history section:\n%s", hc.Selected, hc.Text)
	}
	prompt, err := os.ReadFile(filepath.Join(dumps, "test-1.txt"))
	check(t, err)
	if n := strings.Count(string(prompt), heading); n != 1 {
		t.Errorf("the last prompt has %d history sections, want 1", n)
	}
}

// modelsYAML replaces the example's models with small (3000 tokens), large
// and tiny (50 tokens), small the default.
func modelsYAML(cfg string) string {
	i := strings.Index(cfg, "models:\n")
	if i < 0 {
		panic("the example configuration has no models")
	}
	return cfg[:i] + `models:
  small: {contextWindow: 3000, historyShare: 0.25}
  large: {contextWindow: 200000, historyShare: 0.2}
  tiny: {contextWindow: 50}
defaultModel: small
`
}

// TestPromptFitsModelWindow: every prompt fits the window of the model the
// run names (the default model without one); the history is compressed
// first, the command and the input are kept whole, what was cut is
// recorded, the stored messages keep what was sent and the effective budget
// is logged.
func TestPromptFitsModelWindow(t *testing.T) {
	t.Parallel()
	const input = "INPUT add sorting to the product list"
	for _, tc := range []struct {
		name     string
		model    string
		window   int
		wantCuts bool
		wantErr  error
	}{
		{"default model", "", 3000, true, nil},
		{"small named", "small", 3000, true, nil},
		{"large named", "large", 200000, false, nil},
		{"unknown model", "huge", 0, false, ErrUnknownModel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvConfig(t, modelsYAML)
			var logBuf strings.Builder
			e.runner.opts.History = StoreHistory(history.New(e.db, e.lib.Snapshot().Counter,
				history.Options{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}))
			ctx := context.Background()
			res, err := e.runner.Run(ctx, Request{Commands: feature, Input: input, Model: tc.model})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "large, small, tiny") {
					t.Fatalf("err %v, want %v listing the models", err, tc.wantErr)
				}
				if l, _ := e.store.List(ctx); len(l) != 0 {
					t.Fatal("a run with an unknown model created an execution")
				}
				return
			}
			check(t, err)
			if res.State != execution.StateCompleted || res.Model.Window != tc.window {
				t.Fatalf("%s with window %d: %s", res.State, res.Model.Window, statuses(res))
			}
			st, err := e.store.Get(ctx, res.SessionID)
			check(t, err)
			cut, maxTokens := false, 0
			for i, ce := range st.CommandHistory {
				var (
					prompt, model string
					tokens, win   int
					cuts          []history.Cut
				)
				check(t, json.Unmarshal(ce.Outputs["prompt"], &prompt))
				check(t, json.Unmarshal(ce.Outputs["promptTokens"], &tokens))
				check(t, json.Unmarshal(ce.Outputs["model"], &model))
				check(t, json.Unmarshal(ce.Outputs["contextWindow"], &win))
				if raw, ok := ce.Outputs["cuts"]; ok {
					check(t, json.Unmarshal(raw, &cuts))
				}
				if win != tc.window || model != res.Model.Model {
					t.Errorf("step %d recorded model %s window %d", i, model, win)
				}
				if exact := e.lib.Snapshot().Counter().Count(prompt); tokens > tc.window || exact > tc.window {
					t.Errorf("step %d: %d tokens (%d counted) above the window of %d", i, tokens, exact, tc.window)
				}
				if len(cuts) != len(res.Steps[i].Cuts) {
					t.Errorf("step %d: %d cuts recorded, %d in the result", i, len(cuts), len(res.Steps[i].Cuts))
				}
				cmd, _ := e.lib.Snapshot().Command(ce.Command)
				if !strings.HasPrefix(prompt, strings.TrimSpace(cmd.Body())) || !strings.HasSuffix(strings.TrimSpace(prompt), input) {
					t.Errorf("step %d: the command or the input was cut", i)
				}
				cut = cut || len(cuts) > 0
				maxTokens = max(maxTokens, tokens)
			}
			if cut != tc.wantCuts {
				t.Errorf("cuts: %v, want %v", cut, tc.wantCuts)
			}
			if !tc.wantCuts && maxTokens <= 3000 {
				t.Errorf("the largest prompt has %d tokens: the large model's window was not used", maxTokens)
			}
			if tc.wantCuts && !containsAny(res.Steps[2].Warnings, "the prompt was cut to fit the 3000-token context window of model small") {
				t.Errorf("warnings of the last step: %v", res.Steps[2].Warnings)
			}
			// The stored messages are what was sent, whatever later prompts
			// cut of them.
			page, err := e.hist.List(ctx, res.SessionID, history.ListRequest{})
			check(t, err)
			var first string
			check(t, json.Unmarshal(st.CommandHistory[0].Outputs["prompt"], &first))
			if len(page.Items) != 3 || page.Items[0].Content != first {
				t.Errorf("%d messages; the first is not the first prompt", len(page.Items))
			}
			for _, want := range []string{"prompt budget", "model=" + res.Model.Model, fmt.Sprintf("contextWindow=%d", tc.window)} {
				if !strings.Contains(logBuf.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, logBuf.String())
				}
			}
		})
	}
}

// TestPromptTooLarge: a step whose command and input alone exceed the
// model's window fails with the reason and runs no agent; a preview says
// so and shows what fitting cut.
func TestPromptTooLarge(t *testing.T) {
	t.Parallel()
	e := agentEnv(t, "30s", "")
	ctx := context.Background()
	cfgPath := filepath.Join(e.dir, ".ctxls.yaml")
	cfg, err := os.ReadFile(cfgPath)
	check(t, err)
	check(t, os.WriteFile(cfgPath, []byte(modelsYAML(string(cfg))), 0o644))
	e.lib, err = library.Load(ctx, e.dir, nil, library.Options{})
	check(t, err)
	e.runner = New(Options{Store: e.store, Provider: contextapi.NewStatic(e.lib.Snapshot()), History: StoreHistory(e.hist)})

	pv, err := e.runner.Preview(ctx, Request{Commands: feature, Input: "x"})
	check(t, err)
	for _, st := range pv.Steps {
		if len(st.Cuts) == 0 || !containsAny(st.Warnings, "the prompt was cut") || st.PromptTokens > 3000 {
			t.Errorf("preview of %s: %d tokens, cuts %+v, warnings %v", st.Command, st.PromptTokens, st.Cuts, st.Warnings)
		}
	}
	pv, err = e.runner.Preview(ctx, Request{Commands: feature, Input: "x", Model: "tiny"})
	check(t, err)
	if r := pv.Steps[0].Reason; !strings.Contains(r, "does not fit") || !strings.Contains(r, "model tiny") {
		t.Fatalf("preview with the tiny model: reason %q", r)
	}
	res, err := e.runner.Run(ctx, Request{Commands: feature, Input: "x", Model: "tiny"})
	check(t, err)
	if statuses(res) != "brainstorm:failed implement:pending test:pending" || !strings.Contains(res.Steps[0].Reason, "does not fit the model's context window") {
		t.Fatalf("%s: %q", statuses(res), res.Steps[0].Reason)
	}
	if runs := e.agentRuns(t); len(runs) != 0 {
		t.Fatalf("the agent ran: %v", runs)
	}
	if page, err := e.hist.List(ctx, res.SessionID, history.ListRequest{}); err == nil && len(page.Items) != 0 {
		t.Fatalf("a prompt that was not sent is in the history: %d messages", len(page.Items))
	}
	// Resumed with a model whose window fits, the chain completes.
	res, err = e.runner.Resume(ctx, Request{SessionID: res.SessionID, Model: "large"})
	check(t, err)
	if res.State != execution.StateCompleted || res.Steps[0].Attempts != 2 {
		t.Fatalf("resume with the large model: %s %s", res.State, statuses(res))
	}
}

// TestPreviewMatchesRun: the preview of each step costs what a run with the
// preview executor records for it, later steps with the history the earlier
// ones add, in a new execution or after an existing one's steps, with the
// prompts fitted to a small window or not.
func TestPreviewMatchesRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		model    string
		existing bool // preview and run after a step of an existing execution
	}{
		{"new execution", "large", false},
		{"new execution, small window", "small", false},
		{"existing execution", "large", true},
		{"existing execution, small window", "small", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvConfig(t, modelsYAML)
			ctx := context.Background()
			session := ""
			if tc.existing {
				first, err := e.runner.Run(ctx, Request{Commands: []string{"review"}, Input: "earlier work", Model: tc.model})
				check(t, err)
				session = first.SessionID
			}
			req := Request{Commands: feature, Input: "add sorting", SessionID: session, Model: tc.model}
			pv, err := e.runner.Preview(ctx, req)
			check(t, err)
			res, err := e.runner.Run(ctx, req)
			check(t, err)
			st, err := e.store.Get(ctx, res.SessionID)
			check(t, err)
			recorded := st.CommandHistory[len(st.CommandHistory)-len(feature):]
			for i, ce := range recorded {
				var (
					prompt string
					tokens int
				)
				check(t, json.Unmarshal(ce.Outputs["prompt"], &prompt))
				check(t, json.Unmarshal(ce.Outputs["promptTokens"], &tokens))
				p := pv.Steps[i]
				if p.PromptTokens != tokens || p.Prompt != prompt || len(p.Cuts) != len(res.Steps[i].Cuts) {
					t.Errorf("%s: preview %d tokens (history %d, %d cuts), run recorded %d (history %d, %d cuts); same prompt: %v",
						ce.Command, p.PromptTokens, p.HistoryTokens, len(p.Cuts), tokens, res.Steps[i].HistoryTokens, len(res.Steps[i].Cuts), p.Prompt == prompt)
				}
			}
			if tc.model == "large" && pv.Steps[2].HistoryTokens == 0 {
				t.Error("the last step's preview has no history")
			}
		})
	}
}

// crashingHistory kills its process (SIGKILL) right after the messages of
// the command named crash are committed, before the step's completion.
type crashingHistory struct {
	History
	crash string
}

func (h *crashingHistory) Append(ctx context.Context, msgs ...Message) error {
	err := h.History.Append(ctx, msgs...)
	if err == nil && len(msgs) > 0 && msgs[0].Command == h.crash {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return err
}

// TestCrashBetweenHistoryAndCompletion: when a step's messages are stored
// but its completion is not, the resumed step's messages supersede them:
// later prompts get the step's exchange once, from the attempt that
// completed, while every stored message is kept.
func TestCrashBetweenHistoryAndCompletion(t *testing.T) {
	t.Parallel()
	e, dumps := dumpingEnv(t)
	ctx := context.Background()
	runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	server := exec.CommandContext(runCtx, os.Args[0], "-test.run", "^$")
	server.Env = append(os.Environ(), serveEnv+"="+e.dir, crashEnv+"=implement")
	server.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	server.Stderr = &stderr
	if err := server.Run(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the process running the chain: %v\n%s", err, stderr.String())
	}
	// This process finds the step interrupted and resumes the chain.
	list, err := e.store.List(ctx)
	check(t, err)
	if len(list) != 1 || list[0].State != execution.StateInterrupted {
		t.Fatalf("after the crash: %+v", list)
	}
	res, err := e.runner.Resume(ctx, Request{SessionID: list[0].SessionID})
	check(t, err)
	if res.State != execution.StateCompleted || res.Steps[1].Attempts != 2 {
		t.Fatalf("resume: %s %s, implement attempts %d", res.State, statuses(res), res.Steps[1].Attempts)
	}
	page, err := e.hist.List(ctx, res.SessionID, history.ListRequest{})
	check(t, err)
	var stored []string
	for _, m := range page.Items {
		stored = append(stored, fmt.Sprintf("%s:%s#%d", m.Command, m.Role, m.Attempt))
	}
	if got := strings.Join(stored, " "); got != "brainstorm:user#1 brainstorm:assistant#1 implement:user#1 implement:assistant#1 "+
		"implement:user#2 implement:assistant#2 test:user#1 test:assistant#1" {
		t.Fatalf("stored: %s", got)
	}
	hc, _, err := e.hist.BuildFor(ctx, res.SessionID, history.BuildSpec{}, e.lib.Snapshot().Config())
	check(t, err)
	prompt, err := os.ReadFile(filepath.Join(dumps, "test-1.txt"))
	check(t, err)
	for what, text := range map[string]string{"history": hc.Text, "the test step's prompt": string(prompt)} {
		if n := strings.Count(text, "[assistant · implement]"); n != 1 || !strings.Contains(text, "result of implement (step 1, attempt 2)") {
			t.Errorf("%s has %d answers of implement:\n%s", what, n, text)
		}
		if n := strings.Count(text, "[user · implement]"); n != 1 {
			t.Errorf("%s has %d requests of implement", what, n)
		}
	}
}

// The workspace's memory files and their imports are in every step's
// prompt, loaded once per execution and counted apart.
func TestChainMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	testtree.WriteFiles(t, e.dir, map[string]string{
		"CLAUDE.md":     "# Project\n\nUse tabs. See @docs/style.md and @AGENTS.md.\n",
		"docs/style.md": "Style: MEMORY-STYLE-RULE.\n",
		"AGENTS.md":     "Agents: MEMORY-AGENTS-RULE.\n",
	})
	ctx := context.Background()

	pre, err := e.runner.Preview(ctx, Request{Commands: []string{"brainstorm"}, Input: "x"})
	check(t, err)
	if p := pre.Steps[0].Prompt; !strings.Contains(p, "# Project memory") || !strings.Contains(p, "MEMORY-STYLE-RULE") {
		t.Fatalf("preview prompt lacks the memory:\n%s", p)
	}

	res, err := e.runner.Run(ctx, Request{Commands: []string{"brainstorm", "implement"}, Input: "add sorting", ProjectName: "shop"})
	check(t, err)
	want := []string{"project:CLAUDE.md", "project:docs/style.md", "project:AGENTS.md"}
	for i, s := range res.Steps {
		var keys []string
		for _, m := range s.Memory {
			keys = append(keys, m.Key)
			if m.Cached != (i > 0) || m.Tokens <= 0 {
				t.Errorf("step %d: memory item %+v; want cached from the second step and a cost", i, m)
			}
		}
		if !slices.Equal(keys, want) {
			t.Errorf("step %d: memory %v, want %v", i, keys, want)
		}
		sum := 0
		for _, m := range s.Memory {
			sum += m.Tokens
		}
		if s.MemoryTokens != sum || s.PromptTokens <= s.CommandTokens+s.ContextTokens+s.InputTokens {
			t.Errorf("step %d: memory tokens %d (items %d), prompt %d", i, s.MemoryTokens, sum, s.PromptTokens)
		}
	}

	// The memory is the execution's: a later run in it keeps what was
	// loaded, whatever the files say now.
	testtree.WriteFiles(t, e.dir, map[string]string{"docs/style.md": "Style: CHANGED.\n"})
	res2, err := e.runner.Run(ctx, Request{Commands: []string{"test"}, SessionID: res.SessionID})
	check(t, err)
	st, err := e.store.Get(ctx, res.SessionID)
	check(t, err)
	if got := st.LoadedMemory["project:docs/style.md"]; got != "Style: MEMORY-STYLE-RULE.\n" {
		t.Errorf("loadedMemory of docs/style.md = %q", got)
	}
	last := st.CommandHistory[len(st.CommandHistory)-1]
	var prompt string
	check(t, json.Unmarshal(last.Outputs["prompt"], &prompt))
	if !strings.Contains(prompt, "MEMORY-STYLE-RULE") || strings.Contains(prompt, "CHANGED") || !strings.Contains(prompt, "MEMORY-AGENTS-RULE") {
		t.Errorf("prompt of the later run does not carry the execution's memory:\n%s", prompt)
	}
	if !res2.Steps[0].Memory[0].Cached {
		t.Errorf("later run: memory not from the execution's cache: %+v", res2.Steps[0].Memory[0])
	}
}

// Without memory files, a step has none and says so with empty lists.
func TestChainNoMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	// The example library has memory files of its own; this workspace has none.
	for _, name := range []string{"CLAUDE.md", "AGENTS.md", filepath.Join(".claude", "CLAUDE.md"), filepath.Join(".claude", "rules")} {
		check(t, os.RemoveAll(filepath.Join(e.dir, name)))
	}
	res, err := e.runner.Run(context.Background(), Request{Commands: []string{"brainstorm"}, Input: "x"})
	check(t, err)
	if s := res.Steps[0]; s.Memory == nil || len(s.Memory) != 0 || s.MemoryTokens != 0 {
		t.Errorf("memory %v, %d tokens; want none", s.Memory, s.MemoryTokens)
	}
}
