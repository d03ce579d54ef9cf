package execution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/runs/storage"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// fast are options for tests that watch heartbeats go stale.
var fast = Options{HeartbeatInterval: 20 * time.Millisecond, StaleAfter: 100 * time.Millisecond}

func openDB(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.OpenWorkspace(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newStore(t testing.TB, db *storage.DB, opts Options) *Store {
	t.Helper()
	s, err := New(context.Background(), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// crash stops the heartbeat of s without the cleanup Close does, as when
// the process is killed.
func crash(s *Store) {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.done
	})
}

// waitFor polls cond until it holds; the deadline only bounds a hung test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	watchertest.WaitFor(t, what, cond)
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// runningCommand creates an execution in s and starts command in it; it
// returns the execution's session id.
func runningCommand(t testing.TB, s *Store, command string) string {
	t.Helper()
	ctx := context.Background()
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	must[*CommandExecution](t)(s.StartCommand(ctx, id, command, nil))
	return id
}

func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkCounters recounts, from the commands, the counters that triggers keep
// on every execution row, and compares.
func checkCounters(t testing.TB, db *storage.DB) {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT e.session_id,
			e.steps, e.steps_done, e.steps_failed, e.steps_interrupted, e.plan_done, e.last_command,
			count(c.id), coalesce(sum(c.status IN ('success', 'partial')), 0), coalesce(sum(c.status = 'failed'), 0),
			coalesce(sum(c.status = 'interrupted'), 0),
			coalesce(sum(c.status IN ('success', 'partial') AND c.step >= e.plan_base
				AND c.step < e.plan_base + coalesce(json_array_length(e.plan), 0)), 0),
			coalesce((SELECT command FROM commands WHERE session_id = e.session_id ORDER BY step DESC LIMIT 1), '')
		FROM executions e LEFT JOIN commands c ON c.session_id = e.session_id GROUP BY e.session_id`)
	check(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, last, wantLast string
		var got, want [5]int
		check(t, rows.Scan(&id, &got[0], &got[1], &got[2], &got[3], &got[4], &last,
			&want[0], &want[1], &want[2], &want[3], &want[4], &wantLast))
		if got != want || last != wantLast {
			t.Errorf("execution %s: counters %v %q, recounted %v %q", id, got, last, want, wantLast)
		}
		n++
	}
	check(t, rows.Err())
	if n == 0 {
		t.Error("no executions to check")
	}
}

func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	check(t, err)
	var m map[string]json.RawMessage
	check(t, json.Unmarshal(b, &m))
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestJSONFieldNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	st := must[*ExecutionState](t)(s.Create(ctx, "shop", "python"))
	must[*CommandExecution](t)(s.StartCommand(ctx, st.SessionID, "brainstorm", map[string]any{"topic": "auth"}))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, st.SessionID, "brainstorm", StatusSuccess, nil))
	got := must[*ExecutionState](t)(s.Get(ctx, st.SessionID))

	stateKeys := jsonKeys(t, got)
	for _, k := range []string{"sessionId", "startedAt", "projectName", "projectType", "loadedContext", "loadedMemory", "commandHistory", "sharedData"} {
		if !slices.Contains(stateKeys, k) {
			t.Errorf("ExecutionState JSON lacks %q: %v", k, stateKeys)
		}
	}
	cmdKeys := jsonKeys(t, got.CommandHistory[0])
	want := []string{"attempts", "command", "completedAt", "contextLoaded", "firstAttemptAt", "inputs", "lastAttemptAt", "memoryUpdated", "outputs", "skillsInvoked", "startedAt", "status", "step"}
	if !reflect.DeepEqual(cmdKeys, want) {
		t.Errorf("CommandExecution JSON keys = %v, want %v", cmdKeys, want)
	}
	// Empty collections are {} and [], never null.
	b, _ := json.Marshal(got)
	for _, frag := range []string{`"loadedContext":{}`, `"sharedData":{}`, `"contextLoaded":[]`, `"outputs":{}`} {
		if !strings.Contains(string(b), frag) {
			t.Errorf("JSON lacks %s: %s", frag, b)
		}
	}
	sumKeys := jsonKeys(t, must[[]Summary](t)(s.List(ctx))[0])
	for _, k := range []string{"sessionId", "projectName", "state", "created", "isCurrent", "summary"} {
		if !slices.Contains(sumKeys, k) {
			t.Errorf("Summary JSON lacks %q: %v", k, sumKeys)
		}
	}
}

// TestSeedChain runs /brainstorm then /implement the way the seed's
// integration pattern describes.
func TestSeedChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})

	st := must[*ExecutionState](t)(s.GetOrCreate(ctx, "shop"))
	if st.State != StateNew || !st.IsCurrent || st.ConversationID == "" {
		t.Fatalf("new execution: state %s current %v conversation %q", st.State, st.IsCurrent, st.ConversationID)
	}
	id := st.SessionID
	if again := must[*ExecutionState](t)(s.GetOrCreate(ctx, "shop")); again.SessionID != id {
		t.Fatalf("GetOrCreate returned %s, then %s", id, again.SessionID)
	}

	ce := must[*CommandExecution](t)(s.StartCommand(ctx, id, "brainstorm", map[string]any{"topic": "auth"}))
	if ce.Status != StatusRunning || ce.Attempts != 1 || ce.Step != 0 || string(ce.Inputs["topic"]) != `"auth"` {
		t.Fatalf("started: %+v", ce)
	}
	check(t, s.RecordContextLoad(ctx, id, "commands", "brainstorm_patterns", "# Brainstorm patterns"))
	check(t, s.RecordMemoryLoad(ctx, id, "project", "overview", "a shop"))
	check(t, s.SetSharedData(ctx, id, "requirements", []string{"login", "logout"}))
	done := must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "brainstorm", StatusSuccess, map[string]any{"ideas": 3},
		WithMemoryUpdated("project:decisions"), WithSkillsInvoked("python-code-review")))
	if done.Status != StatusSuccess || done.CompletedAt == nil || string(done.Outputs["ideas"]) != "3" ||
		!reflect.DeepEqual(done.ContextLoaded, []string{"commands:brainstorm_patterns"}) ||
		!reflect.DeepEqual(done.MemoryUpdated, []string{"project:overview", "project:decisions"}) ||
		!reflect.DeepEqual(done.SkillsInvoked, []string{"python-code-review"}) {
		t.Fatalf("completed: %+v", done)
	}

	// The next command finds everything the first left.
	if again := must[*ExecutionState](t)(s.GetOrCreate(ctx, "shop")); again.SessionID != id {
		t.Fatalf("GetOrCreate after a command returned another execution")
	}
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "implement", nil))
	content, ok, err := s.GetCachedContext(ctx, id, "commands", "brainstorm_patterns")
	if err != nil || !ok || content != "# Brainstorm patterns" {
		t.Fatalf("cached context = %q, %v, %v", content, ok, err)
	}
	if _, ok, err := s.GetCachedContext(ctx, id, "commands", "other"); err != nil || ok {
		t.Fatalf("cache miss reported as hit: %v, %v", ok, err)
	}
	mem, ok, err := s.GetCachedMemory(ctx, id, "project", "overview")
	if err != nil || !ok || mem != "a shop" {
		t.Fatalf("cached memory = %q, %v, %v", mem, ok, err)
	}
	req, ok, err := s.GetSharedData(ctx, id, "requirements")
	if err != nil || !ok || string(req) != `["login","logout"]` {
		t.Fatalf("shared data = %s, %v, %v", req, ok, err)
	}
	if _, ok, err := s.GetSharedData(ctx, id, "missing"); err != nil || ok {
		t.Fatalf("missing shared data: %v, %v", ok, err)
	}
	prev := must[*CommandExecution](t)(s.GetPreviousCommand(ctx, id, ""))
	if prev == nil || prev.Command != "brainstorm" || string(prev.Outputs["ideas"]) != "3" {
		t.Fatalf("previous command = %+v, want brainstorm (implement is still running)", prev)
	}
	if p := must[*CommandExecution](t)(s.GetPreviousCommand(ctx, id, "test")); p != nil {
		t.Fatalf("previous test command = %+v, want none", p)
	}
	check(t, s.RecordContextLoad(ctx, id, "python", "fastapi_patterns", "# FastAPI"))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "implement", StatusPartial, map[string]any{"files": []string{"a.py"}}))
	if p := must[*CommandExecution](t)(s.GetPreviousCommand(ctx, id, "")); p.Command != "implement" {
		t.Fatalf("previous command after implement = %s", p.Command)
	}

	got := must[*ExecutionState](t)(s.Get(ctx, id))
	// Its last command only partly succeeded: not completed.
	if got.State != StateInterrupted || len(got.CommandHistory) != 2 {
		t.Fatalf("state %s with %d commands", got.State, len(got.CommandHistory))
	}
	if h := got.CommandHistory[1]; h.Command != "implement" || h.Status != StatusPartial || h.Step != 1 ||
		!reflect.DeepEqual(h.ContextLoaded, []string{"python:fastapi_patterns"}) {
		t.Fatalf("second command: %+v", h)
	}
	wantCtx := map[string]string{"commands:brainstorm_patterns": "# Brainstorm patterns", "python:fastapi_patterns": "# FastAPI"}
	if !reflect.DeepEqual(got.LoadedContext, wantCtx) {
		t.Fatalf("loadedContext = %v", got.LoadedContext)
	}
	if !reflect.DeepEqual(got.LoadedMemory, map[string]string{"project:overview": "a shop"}) {
		t.Fatalf("loadedMemory = %v", got.LoadedMemory)
	}
	if want := (Progress{CurrentCommand: "implement", CommandsCompleted: 2, CommandsTotal: 2, TasksCompleted: 1}); got.Summary != want {
		t.Fatalf("summary = %+v, want %+v", got.Summary, want)
	}
	checkCounters(t, s.db)
}

func TestRetryKeepsAttempts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID

	must[*CommandExecution](t)(s.StartCommand(ctx, id, "test", map[string]any{"try": 1}))
	check(t, s.RecordContextLoad(ctx, id, "python", "testing", "x"))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "test", StatusFailed, map[string]any{"error": "boom"}))
	if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.State != StateFailed {
		t.Fatalf("state after a failure = %s", st.State)
	}

	again := must[*CommandExecution](t)(s.StartCommand(ctx, id, "test", map[string]any{"try": 2}))
	if again.Attempts != 2 || again.Step != 0 {
		t.Fatalf("retry: attempts %d step %d, want 2 and 0", again.Attempts, again.Step)
	}
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "test", StatusSuccess, map[string]any{"passed": 12}))

	atts := must[[]CommandExecution](t)(s.Attempts(ctx, id, 0))
	if len(atts) != 2 {
		t.Fatalf("%d attempts kept, want 2", len(atts))
	}
	if a := atts[0]; a.Attempts != 1 || a.Status != StatusFailed || string(a.Outputs["error"]) != `"boom"` ||
		string(a.Inputs["try"]) != "1" || !reflect.DeepEqual(a.ContextLoaded, []string{"python:testing"}) {
		t.Fatalf("first attempt: %+v", a)
	}
	if a := atts[1]; a.Attempts != 2 || a.Status != StatusSuccess || string(a.Inputs["try"]) != "2" || len(a.ContextLoaded) != 0 {
		t.Fatalf("second attempt: %+v", a)
	}
	st := must[*ExecutionState](t)(s.Get(ctx, id))
	if len(st.CommandHistory) != 1 || st.CommandHistory[0].Attempts != 2 || st.State != StateCompleted {
		t.Fatalf("history after retry: %+v, state %s", st.CommandHistory, st.State)
	}

	// A command that succeeded starts a new step.
	next := must[*CommandExecution](t)(s.StartCommand(ctx, id, "test", nil))
	if next.Step != 1 || next.Attempts != 1 {
		t.Fatalf("after success: step %d attempts %d, want 1 and 1", next.Step, next.Attempts)
	}
	// Starting it again while this process runs it abandons the attempt.
	third := must[*CommandExecution](t)(s.StartCommand(ctx, id, "test", nil))
	if third.Step != 1 || third.Attempts != 2 {
		t.Fatalf("restart of a running command: step %d attempts %d", third.Step, third.Attempts)
	}
	if atts := must[[]CommandExecution](t)(s.Attempts(ctx, id, 1)); atts[0].Status != StatusInterrupted {
		t.Fatalf("abandoned attempt has status %s", atts[0].Status)
	}
	if _, err := s.Attempts(ctx, id, 7); !errors.Is(err, ErrNotFound) {
		t.Fatalf("attempts of a missing step: %v", err)
	}
	checkCounters(t, s.db)
}

func TestCompleteNeedsRunningCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	if _, err := s.CompleteCommand(ctx, id, "x", StatusSuccess, nil); !errors.Is(err, ErrNoRunningCommand) {
		t.Fatalf("complete without start: %v", err)
	}
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "x", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "x", StatusSuccess, nil))
	if _, err := s.CompleteCommand(ctx, id, "x", StatusFailed, nil); !errors.Is(err, ErrNoRunningCommand) {
		t.Fatalf("second completion: %v", err)
	}
	if _, err := s.CompleteCommand(ctx, id, "x", StatusSuccess, nil, WithSkillsInvoked("s")); !errors.Is(err, ErrNoRunningCommand) {
		t.Fatalf("skill without a running command: %v", err)
	}
	if c := must[*ExecutionState](t)(s.Get(ctx, id)).CommandHistory[0]; c.Status != StatusSuccess || len(c.SkillsInvoked) != 0 {
		t.Fatalf("a refused completion changed the command: status %s, skills %q", c.Status, c.SkillsInvoked)
	}
}

// TestOwners uses two Stores on one database, as two processes would be.
func TestOwners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	// a stays alive however slow the machine; b then looks at it from two
	// minutes later, by when it has gone stale.
	a := newStore(t, db, Options{HeartbeatInterval: 50 * time.Millisecond, StaleAfter: time.Minute})
	b := newStore(t, db, Options{HeartbeatInterval: time.Hour})
	id := must[*ExecutionState](t)(a.Create(ctx, "p", "")).SessionID
	check(t, a.SetPlan(ctx, id, []string{"plan", "build"}, "input"))
	must[*CommandExecution](t)(a.StartCommand(ctx, id, "plan", nil))
	must[*CommandExecution](t)(a.CompleteCommand(ctx, id, "plan", StatusSuccess, map[string]any{"n": 1}))
	must[*CommandExecution](t)(a.StartCommand(ctx, id, "build", nil))

	// Conflicts name the other process as people know it: pid and host,
	// not its owner id.
	host, _ := os.Hostname()
	where := fmt.Sprintf("running in another process (pid %d on host %s)", os.Getpid(), host)
	_, err := b.StartCommand(ctx, id, "build", nil)
	if !errors.Is(err, ErrConflict) || errkind.Of(err) != errkind.Conflict || !strings.Contains(err.Error(), where) || strings.Contains(err.Error(), a.owner) {
		t.Fatalf("start of a command another live process runs: %v (kind %v)", err, errkind.Of(err))
	}
	// A resume: the plan is set, a run of kind RunKindRun would set another.
	runA := must[*Run](t)(a.StartRun(ctx, id, RunKindResume))
	_, err = b.StartRun(ctx, id, RunKindResume)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), where) || strings.Contains(err.Error(), a.owner) {
		t.Fatalf("resume of a chain another live process runs: %v", err)
	}
	if st := must[*ExecutionState](t)(b.Get(ctx, id)); st.State != StateRunning {
		t.Fatalf("state seen by the other process: %s", st.State)
	}

	crash(a)
	b.setNow(func() time.Time { return time.Now().Add(2 * time.Minute) })
	st := must[*ExecutionState](t)(b.Get(ctx, id))
	if st.State != StateInterrupted || st.CommandHistory[1].Status != StatusInterrupted {
		t.Fatalf("after the crash: state %s, command %s", st.State, st.CommandHistory[1].Status)
	}
	rp := must[*ResumePoint](t)(b.ResumePoint(ctx, id))
	if rp.Next != 1 || rp.Steps[1].Status != StatusInterrupted || rp.Input != "input" {
		t.Fatalf("resume point: %+v", rp)
	}
	runB := must[*Run](t)(b.StartRun(ctx, id, RunKindResume))
	// That write recorded the crashed process's work as interrupted.
	var status string
	check(t, db.SQL().QueryRow(`SELECT status FROM commands WHERE session_id = ? AND step = 1`, id).Scan(&status))
	if status != "interrupted" {
		t.Fatalf("stored status %s, want interrupted", status)
	}
	ce := must[*CommandExecution](t)(b.StartCommand(ctx, id, "build", nil))
	if ce.Attempts != 2 || ce.Step != 1 {
		t.Fatalf("resumed: attempts %d step %d", ce.Attempts, ce.Step)
	}
	must[*CommandExecution](t)(b.CompleteCommand(ctx, id, "build", StatusSuccess, nil))
	check(t, b.FinishRun(ctx, runB.RunID))
	if st := must[*ExecutionState](t)(b.Get(ctx, id)); st.State != StateCompleted {
		t.Fatalf("state after resume: %s", st.State)
	}
	var runStatus string
	check(t, db.SQL().QueryRow(`SELECT status FROM runs WHERE run_id = ?`, runA.RunID).Scan(&runStatus))
	if runStatus != "interrupted" {
		t.Fatalf("run of the crashed process is %s, want interrupted", runStatus)
	}
	if atts := must[[]CommandExecution](t)(b.Attempts(ctx, id, 1)); len(atts) != 2 || atts[0].Status != StatusInterrupted {
		t.Fatalf("attempts after resume: %+v", atts)
	}
	checkCounters(t, db)
}

// TestInterruptedBeforeSweep: a command of a dead process is reported as
// interrupted by reads at once, before any write records it.
func TestInterruptedBeforeSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	a := newStore(t, db, fast)
	// No heartbeat during the test, so no sweep but the one a write makes.
	b := newStore(t, db, Options{HeartbeatInterval: time.Hour})
	id := runningCommand(t, a, "x")
	crash(a)
	waitFor(t, "the crashed owner to go stale", func() bool {
		return must[*ExecutionState](t)(b.Get(ctx, id)).State == StateInterrupted
	})
	st := must[*ExecutionState](t)(b.Get(ctx, id))
	if st.CommandHistory[0].Status != StatusInterrupted {
		t.Fatalf("command status %s, want interrupted", st.CommandHistory[0].Status)
	}
	if l := must[[]Summary](t)(b.List(ctx)); l[0].State != StateInterrupted {
		t.Fatalf("listed as %s", l[0].State)
	}
	stored := func() (status string) {
		check(t, db.SQL().QueryRow(`SELECT status FROM commands WHERE session_id = ? AND step = 0`, id).Scan(&status))
		return status
	}
	if got := stored(); got != "running" {
		t.Fatalf("stored status %s before any write, want running", got)
	}
	must[*CommandExecution](t)(b.StartCommand(ctx, id, "y", nil))
	if got := stored(); got != "interrupted" {
		t.Fatalf("stored status %s after a write, want interrupted", got)
	}
	checkCounters(t, db)
}

// TestCloseInterrupts: a process that shuts down cleanly mid-command leaves
// it interrupted at once, and can pick it up again after a restart.
func TestCloseInterrupts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	a, err := New(ctx, db, Options{})
	check(t, err)
	id := runningCommand(t, a, "x")
	check(t, a.Close())
	b := newStore(t, db, Options{})
	st := must[*ExecutionState](t)(b.Get(ctx, id))
	if st.State != StateInterrupted || st.CommandHistory[0].Status != StatusInterrupted {
		t.Fatalf("after Close: state %s, command %s", st.State, st.CommandHistory[0].Status)
	}
}

func TestPlanAndRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	if _, err := s.ResumePoint(ctx, id); !errors.Is(err, ErrNoPlan) {
		t.Fatalf("resume point without a plan: %v", err)
	}
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "a", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "a", StatusFailed, nil))

	// A chain after an ad hoc command starts at the next step and does not
	// retry the failed ad hoc "a".
	run := must[*Run](t)(s.StartRun(ctx, id, RunKindRun))
	check(t, s.SetPlan(ctx, id, []string{"a", "b", "c"}, "build it"))
	if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.State != StateRunning || st.Plan == nil || st.Plan.Input != "build it" {
		t.Fatalf("between steps of a live run: state %s plan %+v", st.State, st.Plan)
	}
	if ce := must[*CommandExecution](t)(s.StartCommand(ctx, id, "a", nil)); ce.Step != 1 || ce.Attempts != 1 {
		t.Fatalf("first chain step: step %d attempts %d", ce.Step, ce.Attempts)
	}
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "a", StatusSuccess, nil))
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "b", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "b", StatusFailed, nil))
	check(t, s.FinishRun(ctx, run.RunID))

	rp := must[*ResumePoint](t)(s.ResumePoint(ctx, id))
	wantSteps := []PlanStep{{"a", StatusSuccess, 1, 1}, {"b", StatusFailed, 1, 2}, {"c", "", 0, 3}}
	if rp.Next != 1 || rp.Done || !reflect.DeepEqual(rp.Steps, wantSteps) {
		t.Fatalf("resume point: %+v", rp)
	}
	if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.State != StateFailed || st.Summary.CommandsTotal != 4 {
		t.Fatalf("after a failed step: state %s, summary %+v", st.State, st.Summary)
	}

	resume := must[*Run](t)(s.StartRun(ctx, id, RunKindResume))
	for _, c := range rp.Steps[rp.Next:] {
		must[*CommandExecution](t)(s.StartCommand(ctx, id, c.Command, nil))
		must[*CommandExecution](t)(s.CompleteCommand(ctx, id, c.Command, StatusSuccess, nil))
	}
	check(t, s.FinishRun(ctx, resume.RunID))
	rp = must[*ResumePoint](t)(s.ResumePoint(ctx, id))
	if !rp.Done || rp.Next != 3 || rp.Steps[1].Attempts != 2 {
		t.Fatalf("resume point after the resume: %+v", rp)
	}
	st := must[*ExecutionState](t)(s.Get(ctx, id))
	// The ad hoc "a" before the chain is still failed, but the state is the
	// chain's.
	if st.State != StateCompleted || st.CommandHistory[0].Status != StatusFailed || st.Summary.CommandsFailed != 1 {
		t.Fatalf("state = %s, first step %s, summary %+v: want completed with the ad hoc step failed",
			st.State, st.CommandHistory[0].Status, st.Summary)
	}

	// A finished chain is not continued by GetOrCreate.
	id2 := must[*ExecutionState](t)(s.Create(ctx, "q", "")).SessionID
	check(t, s.SetPlan(ctx, id2, []string{"x"}, ""))
	if got := must[*ExecutionState](t)(s.GetOrCreate(ctx, "q")); got.SessionID != id2 {
		t.Fatalf("GetOrCreate skipped an unfinished chain")
	}
	must[*CommandExecution](t)(s.StartCommand(ctx, id2, "x", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id2, "x", StatusSuccess, nil))
	if got := must[*ExecutionState](t)(s.GetOrCreate(ctx, "q")); got.SessionID == id2 {
		t.Fatalf("GetOrCreate continued a finished chain")
	}

	// A chain stopped before its end with nothing failed is interrupted.
	id3 := must[*ExecutionState](t)(s.Create(ctx, "r", "")).SessionID
	r3 := must[*Run](t)(s.StartRun(ctx, id3, RunKindRun))
	check(t, s.SetPlan(ctx, id3, []string{"x", "y"}, ""))
	must[*CommandExecution](t)(s.StartCommand(ctx, id3, "x", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id3, "x", StatusSuccess, nil))
	check(t, s.FinishRun(ctx, r3.RunID))
	if st := must[*ExecutionState](t)(s.Get(ctx, id3)); st.State != StateInterrupted {
		t.Fatalf("stopped chain: state %s", st.State)
	}
	if err := s.FinishRun(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("finish of an unknown run: %v", err)
	}
	checkCounters(t, s.db)
}

func TestListAndCurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, fast)
	other := newStore(t, db, fast)

	if _, err := s.Get(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of the current execution when there is none: %v", err)
	}
	if l := must[[]Summary](t)(s.List(ctx)); len(l) != 0 {
		t.Fatalf("List of an empty database: %v", l)
	}

	step := func(id, cmd string, status Status) {
		t.Helper()
		must[*CommandExecution](t)(s.StartCommand(ctx, id, cmd, nil))
		if status != StatusRunning {
			must[*CommandExecution](t)(s.CompleteCommand(ctx, id, cmd, status, nil))
		}
	}
	ids := map[State]string{}
	create := func(state State) string {
		id := must[*ExecutionState](t)(s.Create(ctx, "proj-"+string(state), "go")).SessionID
		ids[state] = id
		time.Sleep(2 * time.Millisecond) // distinct creation times, for the order
		return id
	}
	create(StateNew)
	id := create(StateCompleted)
	step(id, "a", StatusPartial)
	step(id, "b", StatusSuccess)
	id = create(StateFailed)
	step(id, "a", StatusSuccess)
	step(id, "b", StatusFailed)
	id = create(StateInterrupted)
	must[*CommandExecution](t)(other.StartCommand(ctx, id, "a", nil))
	crash(other)
	id = create(StateRunning)
	step(id, "a", StatusSuccess)
	step(id, "b", StatusRunning)

	waitFor(t, "the crashed owner to go stale", func() bool {
		for _, sm := range must[[]Summary](t)(s.List(ctx)) {
			if sm.SessionID == ids[StateInterrupted] {
				return sm.State == StateInterrupted
			}
		}
		return false
	})
	list := must[[]Summary](t)(s.List(ctx))
	order := []State{StateRunning, StateInterrupted, StateFailed, StateCompleted, StateNew}
	if len(list) != len(order) {
		t.Fatalf("List returned %d executions, want %d", len(list), len(order))
	}
	for i, want := range order {
		sm := list[i]
		if sm.SessionID != ids[want] || sm.State != want || sm.ProjectName != "proj-"+string(want) || sm.ProjectType != "go" {
			t.Errorf("item %d: %+v, want the %s execution", i, sm, want)
		}
		if sm.IsCurrent != (want == StateRunning) {
			t.Errorf("item %d (%s): isCurrent %v", i, want, sm.IsCurrent)
		}
	}
	if want := (Progress{CurrentCommand: "b", CommandsCompleted: 1, CommandsTotal: 2, TasksCompleted: 1}); list[0].Summary != want {
		t.Errorf("running summary = %+v, want %+v", list[0].Summary, want)
	}
	if want := (Progress{CurrentCommand: "b", CommandsCompleted: 1, CommandsFailed: 1, CommandsTotal: 2, TasksCompleted: 1}); list[2].Summary != want {
		t.Errorf("failed summary = %+v, want %+v", list[2].Summary, want)
	}

	// Current is shared through the database.
	check(t, s.SetCurrent(ctx, ids[StateFailed]))
	third := newStore(t, db, Options{})
	if cur := must[string](t)(third.Current(ctx)); cur != ids[StateFailed] {
		t.Fatalf("another process sees current %s, want %s", cur, ids[StateFailed])
	}
	if st := must[*ExecutionState](t)(third.Get(ctx, "")); st.SessionID != ids[StateFailed] || !st.IsCurrent {
		t.Fatalf("Get(\"\") = %s (current %v)", st.SessionID, st.IsCurrent)
	}
	kept := must[*ExecutionState](t)(s.Create(ctx, "x", "", KeepCurrent()))
	if kept.IsCurrent || must[string](t)(s.Current(ctx)) != ids[StateFailed] {
		t.Fatalf("KeepCurrent changed the current execution")
	}
	if err := s.SetCurrent(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetCurrent of an unknown execution: %v", err)
	}
	checkCounters(t, db)
}

func countRows(t *testing.T, db *storage.DB, sessionID string) int {
	t.Helper()
	var n int
	err := db.SQL().QueryRow(`SELECT
		(SELECT count(*) FROM executions WHERE session_id = ?1) +
		(SELECT count(*) FROM commands WHERE session_id = ?1) +
		(SELECT count(*) FROM command_attempts a JOIN commands c ON c.id = a.command_id WHERE c.session_id = ?1) +
		(SELECT count(*) FROM command_items) +
		(SELECT count(*) FROM context_loads WHERE session_id = ?1) +
		(SELECT count(*) FROM memory_loads WHERE session_id = ?1) +
		(SELECT count(*) FROM shared_data WHERE session_id = ?1) +
		(SELECT count(*) FROM runs WHERE session_id = ?1) +
		(SELECT count(*) FROM conversations WHERE session_id = ?1) +
		(SELECT count(*) FROM messages WHERE conversation_id = ?1)`, sessionID).Scan(&n)
	check(t, err)
	return n
}

func TestDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{DeleteTokenTTL: time.Minute})
	other := newStore(t, db, Options{})

	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	run := must[*Run](t)(s.StartRun(ctx, id, RunKindRun))
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "a", nil))
	check(t, s.RecordContextLoad(ctx, id, "d", "t", "c"))
	check(t, s.RecordMemoryLoad(ctx, id, "l", "k", "c"))
	check(t, s.SetSharedData(ctx, id, "k", 1))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "a", StatusFailed, nil))
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "a", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "a", StatusSuccess, nil))
	check(t, s.FinishRun(ctx, run.RunID))
	_, err := db.SQL().Exec(`INSERT INTO messages (conversation_id, role, content, created_at) VALUES (?, 'user', 'hello', 0)`, id)
	check(t, err)
	keep := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID // now current
	check(t, s.SetSharedData(ctx, keep, "k", 2))
	if n := countRows(t, db, id); n < 10 {
		t.Fatalf("fixture has only %d rows", n)
	}

	if _, _, err := s.RequestDelete(ctx, keep); !errors.Is(err, ErrIsCurrent) {
		t.Fatalf("delete request for the current execution: %v", err)
	}
	if _, _, err := s.RequestDelete(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete request for an unknown execution: %v", err)
	}
	tok1, exp, err := s.RequestDelete(ctx, id)
	check(t, err)
	tok2, _, err := s.RequestDelete(ctx, id)
	check(t, err)
	if tok1 == tok2 || len(tok1) < 26 {
		t.Fatalf("tokens %q and %q: want distinct random tokens of at least 128 bits", tok1, tok2)
	}
	if d := time.Until(exp); d <= 0 || d > time.Minute {
		t.Fatalf("token expires in %v", d)
	}
	for _, c := range []struct {
		name, session, token string
		store                *Store
	}{
		{"guessed token", id, "AAAAAAAAAAAAAAAAAAAAAAAAAA", s},
		{"empty token", id, "", s},
		{"token of another process", id, tok2, other},
		{"token used for another execution", keep, tok2, s},
		{"token already used", id, tok2, s},
	} {
		if err := c.store.ConfirmDelete(ctx, c.session, c.token); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", c.name, err)
		}
	}
	if countRows(t, db, id) == 0 {
		t.Fatal("a refused confirmation deleted the execution")
	}

	// Expiry.
	tok3, _, err := s.RequestDelete(ctx, id)
	check(t, err)
	s.setNow(func() time.Time { return time.Now().Add(2 * time.Minute) })
	if err := s.ConfirmDelete(ctx, id, tok3); !errors.Is(err, ErrInvalidToken) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired token: %v", err)
	}
	s.setNow(time.Now)

	// Made current between the two calls.
	tok4, _, err := s.RequestDelete(ctx, id)
	check(t, err)
	check(t, other.SetCurrent(ctx, id))
	if err := s.ConfirmDelete(ctx, id, tok4); !errors.Is(err, ErrIsCurrent) {
		t.Fatalf("confirmation for what became current: %v", err)
	}
	check(t, other.SetCurrent(ctx, keep))

	check(t, s.ConfirmDelete(ctx, id, tok1))
	if n := countRows(t, db, id); n != 0 {
		t.Fatalf("%d rows of the deleted execution remain", n)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a deleted execution: %v", err)
	}
	if v, ok, err := s.GetSharedData(ctx, keep, "k"); err != nil || !ok || string(v) != "2" {
		t.Fatalf("the other execution lost data: %s %v %v", v, ok, err)
	}
}

// TestDeleteRefusedWhileRunning checks that an execution in which a live
// process runs a command or a chain is not deleted, at either step, and that
// what a dead process left running does not stop the delete.
func TestDeleteRefusedWhileRunning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{})
	other := newStore(t, db, Options{})
	host, _ := os.Hostname()
	// In turn, before the last case: it moves s's clock an hour on, from
	// where the work of other looks dead.
	for _, c := range []struct {
		name string
		// busy starts the work in the execution and returns what ends it.
		busy func(t *testing.T, id string) (done func())
		want string
	}{
		{"command of this process", func(t *testing.T, id string) func() {
			must[*CommandExecution](t)(s.StartCommand(ctx, id, "a", nil))
			return func() { must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "a", StatusSuccess, nil)) }
		}, fmt.Sprintf(`command "a" runs in this process (pid %d)`, os.Getpid())},
		{"command of another process", func(t *testing.T, id string) func() {
			must[*CommandExecution](t)(other.StartCommand(ctx, id, "b", nil))
			return func() { must[*CommandExecution](t)(other.CompleteCommand(ctx, id, "b", StatusFailed, nil)) }
		}, fmt.Sprintf(`command "b" runs in pid %d on host %s`, os.Getpid(), host)},
		{"chain of another process", func(t *testing.T, id string) func() {
			run := must[*Run](t)(other.StartRun(ctx, id, RunKindRun))
			return func() { check(t, other.FinishRun(ctx, run.RunID)) }
		}, fmt.Sprintf(`its chain runs in pid %d on host %s`, os.Getpid(), host)},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := must[*ExecutionState](t)(s.Create(ctx, "p", "", KeepCurrent())).SessionID
			// A token issued before the work started does not delete it either.
			early, _, err := s.RequestDelete(ctx, id)
			check(t, err)
			done := c.busy(t, id)
			_, _, err = s.RequestDelete(ctx, id)
			if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("delete request: %v, want a conflict saying %q", err, c.want)
			}
			err = s.ConfirmDelete(ctx, id, early)
			if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("delete confirmation: %v, want a conflict saying %q", err, c.want)
			}
			if countRows(t, db, id) == 0 {
				t.Fatal("the running execution was deleted")
			}
			done()
			tok, _, err := s.RequestDelete(ctx, id)
			check(t, err)
			check(t, s.ConfirmDelete(ctx, id, tok))
			if n := countRows(t, db, id); n != 0 {
				t.Fatalf("%d rows remain after the work ended", n)
			}
		})
	}

	t.Run("command of a dead process", func(t *testing.T) {
		gone := newStore(t, db, Options{})
		id := must[*ExecutionState](t)(s.Create(ctx, "p", "", KeepCurrent())).SessionID
		must[*CommandExecution](t)(gone.StartCommand(ctx, id, "c", nil))
		crash(gone)
		// Seen from later, gone's heartbeat is stale.
		s.setNow(func() time.Time { return time.Now().Add(time.Hour) })
		defer s.setNow(time.Now)
		tok, _, err := s.RequestDelete(ctx, id)
		check(t, err)
		check(t, s.ConfirmDelete(ctx, id, tok))
		if n := countRows(t, db, id); n != 0 {
			t.Fatalf("%d rows remain", n)
		}
	})
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{})
	id := runningCommand(t, s, "run")
	const missing = "no-such-session"
	nan := math.NaN()

	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"create without project", func() error { _, err := s.Create(ctx, " ", ""); return err }, ErrInvalidArgument},
		{"getOrCreate without project", func() error { _, err := s.GetOrCreate(ctx, ""); return err }, ErrInvalidArgument},
		{"start empty session id", func() error { _, err := s.StartCommand(ctx, "", "x", nil); return err }, ErrInvalidArgument},
		{"start unknown session", func() error { _, err := s.StartCommand(ctx, missing, "x", nil); return err }, ErrNotFound},
		{"start empty command", func() error { _, err := s.StartCommand(ctx, id, "", nil); return err }, ErrInvalidArgument},
		{"start blank command", func() error { _, err := s.StartCommand(ctx, id, " \t", nil); return err }, ErrInvalidArgument},
		{"start unserialisable inputs", func() error {
			_, err := s.StartCommand(ctx, id, "x", map[string]any{"f": func() {}})
			return err
		}, ErrInvalidArgument},
		{"complete unknown session", func() error { _, err := s.CompleteCommand(ctx, missing, "run", StatusSuccess, nil); return err }, ErrNotFound},
		{"complete invalid status", func() error { _, err := s.CompleteCommand(ctx, id, "run", "done", nil); return err }, ErrInvalidArgument},
		{"complete as running", func() error { _, err := s.CompleteCommand(ctx, id, "run", StatusRunning, nil); return err }, ErrInvalidArgument},
		{"complete as interrupted", func() error { _, err := s.CompleteCommand(ctx, id, "run", StatusInterrupted, nil); return err }, ErrInvalidArgument},
		{"complete NaN output", func() error {
			_, err := s.CompleteCommand(ctx, id, "run", StatusSuccess, map[string]any{"x": nan})
			return err
		}, ErrInvalidArgument},
		{"context unknown session", func() error { return s.RecordContextLoad(ctx, missing, "d", "t", "c") }, ErrNotFound},
		{"context empty domain", func() error { return s.RecordContextLoad(ctx, id, "", "t", "c") }, ErrInvalidArgument},
		{"context empty topic", func() error { return s.RecordContextLoad(ctx, id, "d", "", "c") }, ErrInvalidArgument},
		{"cached context unknown session", func() error { _, _, err := s.GetCachedContext(ctx, missing, "d", "t"); return err }, ErrNotFound},
		{"memory unknown session", func() error { return s.RecordMemoryLoad(ctx, missing, "l", "k", "c") }, ErrNotFound},
		{"memory empty key", func() error { return s.RecordMemoryLoad(ctx, id, "l", "", "c") }, ErrInvalidArgument},
		{"cached contexts unknown session", func() error { _, err := s.CachedContexts(ctx, missing, nil); return err }, ErrNotFound},
		{"cached memory unknown session", func() error { _, _, err := s.GetCachedMemory(ctx, missing, "l", "k"); return err }, ErrNotFound},
		{"shared unknown session", func() error { return s.SetSharedData(ctx, missing, "k", 1) }, ErrNotFound},
		{"shared empty key", func() error { return s.SetSharedData(ctx, id, "", 1) }, ErrInvalidArgument},
		{"shared channel", func() error { return s.SetSharedData(ctx, id, "k", make(chan int)) }, ErrInvalidArgument},
		{"shared NaN", func() error { return s.SetSharedData(ctx, id, "k", nan) }, ErrInvalidArgument},
		{"shared invalid raw JSON", func() error { return s.SetSharedData(ctx, id, "k", json.RawMessage("{oops")) }, ErrInvalidArgument},
		{"merge with one bad value", func() error {
			return s.mergeSharedData(ctx, id, map[string]any{"good": 1, "bad": func() {}})
		}, ErrInvalidArgument},
		{"get shared unknown session", func() error { _, _, err := s.GetSharedData(ctx, missing, "k"); return err }, ErrNotFound},
		{"previous unknown session", func() error { _, err := s.GetPreviousCommand(ctx, missing, ""); return err }, ErrNotFound},
		{"get unknown session", func() error { _, err := s.Get(ctx, missing); return err }, ErrNotFound},
		{"plan unknown session", func() error { return s.SetPlan(ctx, missing, []string{"a"}, "") }, ErrNotFound},
		{"plan empty", func() error { return s.SetPlan(ctx, id, nil, "") }, ErrInvalidArgument},
		{"plan empty command", func() error { return s.SetPlan(ctx, id, []string{"a", ""}, "") }, ErrInvalidArgument},
		{"resume unknown session", func() error { _, err := s.ResumePoint(ctx, missing); return err }, ErrNotFound},
		{"run unknown session", func() error { _, err := s.StartRun(ctx, missing, RunKindRun); return err }, ErrNotFound},
		{"run bad kind", func() error { _, err := s.StartRun(ctx, id, "walk"); return err }, ErrInvalidArgument},
		{"memory update unknown session", func() error {
			_, err := s.StartCommand(ctx, missing, "x", nil, WithMemoryUpdated("l:k"))
			return err
		}, ErrNotFound},
		{"skill empty", func() error { _, err := s.StartCommand(ctx, id, "x", nil, WithSkillsInvoked("")); return err }, ErrInvalidArgument},
		{"step load unknown session", func() error { _, err := s.StartStep(ctx, missing, "x", nil, []ContextLoad{load("d", "t")}); return err }, ErrNotFound},
		{"step load empty domain", func() error { _, err := s.StartStep(ctx, id, "x", nil, []ContextLoad{load("", "t")}); return err }, ErrInvalidArgument},
		{"step load empty topic", func() error { _, err := s.StartStep(ctx, id, "x", nil, []ContextLoad{load("d", "")}); return err }, ErrInvalidArgument},
	}
	for _, c := range cases {
		err := c.call()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		} else if err.Error() == c.want.Error() {
			t.Errorf("%s: error %q says nothing about the call", c.name, err)
		}
	}
	// Nothing half-written.
	st := must[*ExecutionState](t)(s.Get(ctx, id))
	if len(st.SharedData) != 0 || len(st.CommandHistory) != 1 || st.CommandHistory[0].Status != StatusRunning ||
		len(st.LoadedContext) != 0 || st.Plan != nil {
		t.Fatalf("state after refused calls: %+v", st)
	}
	if n := len(must[[]Summary](t)(s.List(ctx))); n != 1 {
		t.Fatalf("%d executions after refused creates", n)
	}
}

func TestHugeAndBinaryValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID

	huge := strings.Repeat("0123456789abcdef", 6<<20/16) // 6 MiB
	largest := huge[:maxSharedDataBytes-2]               // the limit, quoted
	check(t, s.SetSharedData(ctx, id, "huge", largest))
	check(t, s.RecordContextLoad(ctx, id, "big", "topic", huge))
	binary := "head\x00\xff\xfe\x80 tail\x00"
	check(t, s.RecordContextLoad(ctx, id, "bin", "topic", binary))
	check(t, s.RecordMemoryLoad(ctx, id, "bin", "key", binary))
	blob := []byte{0, 1, 2, 0xff, 0xfe}
	check(t, s.SetSharedData(ctx, id, "blob", blob))

	v, ok, err := s.GetSharedData(ctx, id, "huge")
	check(t, err)
	var back string
	check(t, json.Unmarshal(v, &back))
	if !ok || back != largest {
		t.Fatalf("huge shared value: %d bytes back, want %d", len(back), len(largest))
	}
	if c, ok, err := s.GetCachedContext(ctx, id, "big", "topic"); err != nil || !ok || c != huge {
		t.Fatalf("huge context: %d bytes, %v, %v", len(c), ok, err)
	}
	if c, ok, err := s.GetCachedContext(ctx, id, "bin", "topic"); err != nil || !ok || c != binary {
		t.Fatalf("binary context = %q, %v, %v", c, ok, err)
	}
	if c, ok, err := s.GetCachedMemory(ctx, id, "bin", "key"); err != nil || !ok || c != binary {
		t.Fatalf("binary memory = %q, %v, %v", c, ok, err)
	}
	v, _, err = s.GetSharedData(ctx, id, "blob")
	check(t, err)
	var gotBlob []byte
	check(t, json.Unmarshal(v, &gotBlob))
	if !reflect.DeepEqual(gotBlob, blob) {
		t.Fatalf("binary shared value = %v", gotBlob)
	}
	if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.LoadedContext["bin:topic"] != binary || len(st.LoadedContext["big:topic"]) != len(huge) {
		t.Fatal("Get lost binary or huge context")
	}
	// Empty content is a hit, not a miss.
	check(t, s.RecordContextLoad(ctx, id, "d", "empty", ""))
	if c, ok, err := s.GetCachedContext(ctx, id, "d", "empty"); err != nil || !ok || c != "" {
		t.Fatalf("empty context = %q, %v, %v", c, ok, err)
	}
}

func TestSameProcessConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	const workers, each = 4, 25
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range each {
				if err := s.SetSharedData(ctx, id, fmt.Sprintf("w%d-%d", w, i), i); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		check(t, <-errs)
	}
	if n := len(must[*ExecutionState](t)(s.Get(ctx, id)).SharedData); n != workers*each {
		t.Fatalf("%d shared values, want %d", n, workers*each)
	}
}

// TestWritesRefusedWhileAChainRunsElsewhere: while one process runs a chain
// of an execution, every write another process makes to that execution is
// refused with the error a second resume of the chain gets, and goes
// through once the chain has finished.
func TestWritesRefusedWhileAChainRunsElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	a := newStore(t, db, Options{})
	b := newStore(t, db, Options{})
	id := must[*ExecutionState](t)(a.Create(ctx, "p", "")).SessionID
	check(t, a.SetPlan(ctx, id, []string{"plan", "build"}, "input"))
	run := must[*Run](t)(a.StartRun(ctx, id, RunKindResume))
	must[*CommandExecution](t)(a.StartCommand(ctx, id, "plan", nil))

	_, resumeErr := b.StartRun(ctx, id, RunKindResume)
	if !errors.Is(resumeErr, ErrConflict) {
		t.Fatalf("second resume: %v", resumeErr)
	}
	_, want, _ := strings.Cut(resumeErr.Error(), ": ") // after "start run"
	writes := []struct {
		name  string
		write func() error
	}{
		{"StartCommand", func() error { _, err := b.StartCommand(ctx, id, "build", nil); return err }},
		{"StartStep", func() error { _, err := b.StartStep(ctx, id, "build", nil, nil); return err }},
		{"CompleteCommand", func() error { _, err := b.CompleteCommand(ctx, id, "plan", StatusSuccess, nil); return err }},
		{"CompleteStep", func() error { _, err := b.CompleteStep(ctx, id, "plan", StatusFailed, nil, nil); return err }},
		{"SetPlan", func() error { return b.SetPlan(ctx, id, []string{"other"}, "") }},
		{"SetSharedData", func() error { return b.SetSharedData(ctx, id, "k", 1) }},
		{"MergeSharedData", func() error { return b.mergeSharedData(ctx, id, map[string]any{"k": 1}) }},
		{"RecordContextLoad", func() error { return b.RecordContextLoad(ctx, id, "d", "t", "content") }},
		{"StartStep with loads", func() error { _, err := b.StartStep(ctx, id, "build", nil, []ContextLoad{load("d", "t")}); return err }},
		{"RecordMemoryLoad", func() error { return b.RecordMemoryLoad(ctx, id, "l", "k", "content") }},
		{"CompleteCommand with items", func() error {
			_, err := b.CompleteCommand(ctx, id, "plan", StatusSuccess, nil, WithMemoryUpdated("l:k"), WithSkillsInvoked("s"))
			return err
		}},
	}
	for _, w := range writes {
		err := w.write()
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s while a chain runs in another process: %v, want %q", w.name, err, want)
		}
	}
	// The process running the chain writes as before.
	check(t, a.SetSharedData(ctx, id, "k", "a"))
	must[*CommandExecution](t)(a.CompleteCommand(ctx, id, "plan", StatusSuccess, nil))
	check(t, a.FinishRun(ctx, run.RunID))
	check(t, b.SetSharedData(ctx, id, "k", "b"))
	if v, _, err := b.GetSharedData(ctx, id, "k"); err != nil || string(v) != `"b"` {
		t.Fatalf("shared data after the chain: %s %v", v, err)
	}
}

// TestSharedDataLimit: a shared value larger than maxSharedDataBytes is
// refused and stores nothing; one at the limit is stored.
func TestSharedDataLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	atLimit := strings.Repeat("x", maxSharedDataBytes-2) // quoted: exactly the limit
	check(t, s.SetSharedData(ctx, id, "k", atLimit))
	err := s.mergeSharedData(ctx, id, map[string]any{"k": atLimit + "y", "other": 1})
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "the limit is") {
		t.Fatalf("a value over the limit: %v", err)
	}
	if _, ok, _ := s.GetSharedData(ctx, id, "other"); ok {
		t.Error("a refused merge stored part of its values")
	}
	if v, _, _ := s.GetSharedData(ctx, id, "k"); len(v) != maxSharedDataBytes {
		t.Errorf("stored value: %d bytes, want %d", len(v), maxSharedDataBytes)
	}
}

// TestClockMovesDuringHeartbeat moves a Store's clock while its heartbeat
// runs, as the tests of stale owners do; under the race detector it fails
// if the two touch the clock without synchronisation.
func TestClockMovesDuringHeartbeat(t *testing.T) {
	t.Parallel()
	var beats atomic.Int32
	s := newStore(t, openDB(t), Options{HeartbeatInterval: time.Millisecond, OnError: func(error) {}})
	s.setNow(func() time.Time { beats.Add(1); return time.Now() })
	deadline := time.Now().Add(30 * time.Second)
	for beats.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the heartbeat did not read the clock within 30 s")
		}
		s.setNow(func() time.Time { beats.Add(1); return time.Now().Add(time.Minute) })
		time.Sleep(time.Millisecond)
	}
}
