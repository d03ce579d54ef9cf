package execution

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An execution created without a project type gets the detected one;
// GetOrCreate detects only when it creates.
func TestProjectTypeDetected(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	s := newStore(t, openDB(t), Options{DetectProjectType: func(context.Context) string {
		calls.Add(1)
		return "fastapi"
	}})
	ctx := t.Context()
	st, err := s.Create(ctx, "shop", "")
	if err != nil || st.ProjectType != "fastapi" {
		t.Fatalf("Create without a type: %+v, %v", st, err)
	}
	if got, _ := s.Get(ctx, st.SessionID); got.ProjectType != "fastapi" {
		t.Errorf("recorded project type %q", got.ProjectType)
	}
	st, err = s.Create(ctx, "shop", "django")
	if err != nil || st.ProjectType != "django" || calls.Load() != 1 {
		t.Errorf("Create with a type: %+v, %v, %d detections", st, err, calls.Load())
	}
	if _, err := s.GetOrCreate(ctx, "shop"); err != nil || calls.Load() != 1 {
		t.Errorf("GetOrCreate of an existing project detected again: %v, %d detections", err, calls.Load())
	}
	st, err = s.GetOrCreate(ctx, "blog")
	if err != nil || st.ProjectType != "fastapi" || calls.Load() != 2 {
		t.Errorf("GetOrCreate of a new project: %+v, %v, %d detections", st, err, calls.Load())
	}
}

// A retry keeps when the step's first attempt started.
func TestRetryKeepsFirstAttempt(t *testing.T) {
	t.Parallel()
	s := newStore(t, openDB(t), Options{})
	ctx := t.Context()
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli())
	s.setNow(func() time.Time { return time.UnixMilli(clock.Load()).UTC() })
	st := must[*ExecutionState](t)(s.Create(ctx, "shop", "go"))
	first := s.now()
	step(t, s, st.SessionID, "test", StatusFailed)
	clock.Add(int64(time.Minute / time.Millisecond))
	second := s.now()
	ce := must[*CommandExecution](t)(s.StartCommand(ctx, st.SessionID, "test", nil))
	if ce.Attempts != 2 || !ce.FirstAttemptAt.Equal(first) || !ce.LastAttemptAt.Equal(second) || !ce.StartedAt.Equal(second) {
		t.Errorf("started retry: attempts %d, first %v, last %v, started %v; want 2, %v, %v", ce.Attempts, ce.FirstAttemptAt, ce.LastAttemptAt, ce.StartedAt, first, second)
	}
	got := must[*ExecutionState](t)(s.Get(ctx, st.SessionID))
	if h := got.CommandHistory[0]; !h.FirstAttemptAt.Equal(first) || !h.LastAttemptAt.Equal(second) {
		t.Errorf("recorded: first %v, last %v; want %v, %v", h.FirstAttemptAt, h.LastAttemptAt, first, second)
	}
	all, err := s.Attempts(ctx, st.SessionID, 0)
	if err != nil || len(all) != 2 {
		t.Fatalf("attempts: %v, %v", all, err)
	}
	for i, a := range all {
		if !a.FirstAttemptAt.Equal(first) || !a.LastAttemptAt.Equal(second) {
			t.Errorf("attempt %d: first %v, last %v; want %v, %v", i+1, a.FirstAttemptAt, a.LastAttemptAt, first, second)
		}
	}
}

// A list entry says what the execution is working on and how many of its
// commands are done; a partial command is not.
func TestSummaryCurrentPromptAndTasks(t *testing.T) {
	t.Parallel()
	s := newStore(t, openDB(t), Options{})
	ctx := t.Context()
	loose := must[*ExecutionState](t)(s.Create(ctx, "loose", ""))
	long := strings.Repeat("é", currentPromptMax+50)
	for _, c := range []struct {
		command string
		input   any
		status  Status
	}{{"a", "first", StatusSuccess}, {"b", long, StatusPartial}} {
		must[*CommandExecution](t)(s.StartCommand(ctx, loose.SessionID, c.command, map[string]any{"input": c.input}))
		must[*CommandExecution](t)(s.CompleteCommand(ctx, loose.SessionID, c.command, c.status, nil))
	}
	chained := must[*ExecutionState](t)(s.Create(ctx, "chained", ""))
	runChain(t, s, chained.SessionID, []string{"x", "y", "z"}, StatusSuccess, StatusSuccess, StatusFailed)

	want := map[string]Progress{
		loose.SessionID: {CurrentCommand: "b", CommandsCompleted: 2, CommandsTotal: 2,
			CurrentPrompt: strings.Repeat("é", currentPromptMax), TasksCompleted: 1},
		chained.SessionID: {CurrentCommand: "z", CommandsCompleted: 2, CommandsFailed: 1, CommandsTotal: 3,
			CurrentPrompt: "input", TasksCompleted: 2},
	}
	for _, sm := range must[[]Summary](t)(s.List(ctx)) {
		if sm.Summary != want[sm.SessionID] {
			t.Errorf("%s: summary %+v, want %+v", sm.ProjectName, sm.Summary, want[sm.SessionID])
		}
	}
	for _, sm := range must[ListPage](t)(s.ListPage(ctx, ListRequest{Limit: 1})).Items {
		if sm.Summary != want[sm.SessionID] {
			t.Errorf("ListPage %s: summary %+v, want %+v", sm.ProjectName, sm.Summary, want[sm.SessionID])
		}
	}
}

// Memory recorded for a whole execution reads back in the order it was
// recorded, without touching any command's lists.
func TestMemoryLayer(t *testing.T) {
	t.Parallel()
	s := newStore(t, openDB(t), Options{})
	ctx := t.Context()
	st := must[*ExecutionState](t)(s.Create(ctx, "shop", "go"))
	step(t, s, st.SessionID, "plan", StatusRunning)
	loads := []MemoryLoad{{"project", "CLAUDE.md", "a"}, {"project", "docs/b.md", "b"}, {"project", "AGENTS.md", "c"}, {"user", "x", "y"}}
	check(t, s.RecordMemoryLoads(ctx, st.SessionID, loads))
	got, err := s.MemoryLayer(ctx, st.SessionID, "project")
	if err != nil || len(got) != 3 || got[0] != loads[0] || got[1] != loads[1] || got[2] != loads[2] {
		t.Errorf("MemoryLayer = %+v, %v", got, err)
	}
	full := must[*ExecutionState](t)(s.Get(ctx, st.SessionID))
	if len(full.CommandHistory[0].MemoryUpdated) != 0 || full.LoadedMemory["project:docs/b.md"] != "b" {
		t.Errorf("memoryUpdated %v, loadedMemory %v", full.CommandHistory[0].MemoryUpdated, full.LoadedMemory)
	}
	if err := s.RecordMemoryLoads(ctx, st.SessionID, []MemoryLoad{{"project", "", "x"}}); err == nil {
		t.Error("an empty key was recorded")
	}
}

// A retry's input becomes the current prompt, and a step that succeeds on
// retry counts as done.
func TestSummaryFollowsRetry(t *testing.T) {
	t.Parallel()
	s := newStore(t, openDB(t), Options{})
	ctx := t.Context()
	st := must[*ExecutionState](t)(s.Create(ctx, "shop", ""))
	for i, try := range []struct {
		input  string
		status Status
	}{{"first try", StatusFailed}, {"second try", StatusSuccess}} {
		must[*CommandExecution](t)(s.StartCommand(ctx, st.SessionID, "build", map[string]any{"input": try.input}))
		sum, err := s.Summary(ctx, st.SessionID)
		if err != nil || sum.Summary.CurrentPrompt != try.input {
			t.Fatalf("attempt %d started: %+v, %v; want current prompt %q", i+1, sum, err, try.input)
		}
		must[*CommandExecution](t)(s.CompleteCommand(ctx, st.SessionID, "build", try.status, nil))
	}
	sum, err := s.Summary(ctx, st.SessionID)
	if err != nil || sum.Summary.TasksCompleted != 1 || sum.State != StateCompleted {
		t.Errorf("after the retry succeeded: %+v, %v", sum, err)
	}
}
