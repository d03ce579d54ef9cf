package execution

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// step runs command to completion with status in the execution, the way a
// client records a command by hand; StatusRunning leaves it running.
func step(t *testing.T, s *Store, id, command string, status Status) {
	t.Helper()
	ctx := context.Background()
	must[*CommandExecution](t)(s.StartCommand(ctx, id, command, nil))
	switch status {
	case StatusRunning:
	case StatusInterrupted:
		// Only the chain runner ends a step as interrupted (cancelled).
		must[*CommandExecution](t)(s.CompleteStep(ctx, id, command, status, nil, nil))
	default:
		must[*CommandExecution](t)(s.CompleteCommand(ctx, id, command, status, nil))
	}
}

// runChain runs a chain in the execution the way the chain runner does,
// each command ending with the status of the same index (success when
// statuses run out).
func runChain(t *testing.T, s *Store, id string, commands []string, statuses ...Status) {
	t.Helper()
	ctx := context.Background()
	run := must[*Run](t)(s.StartRun(ctx, id, RunKindRun))
	check(t, s.SetPlan(ctx, id, commands, "input"))
	for i, c := range commands {
		status := StatusSuccess
		if i < len(statuses) {
			status = statuses[i]
		}
		step(t, s, id, c, status)
	}
	check(t, s.FinishRun(ctx, run.RunID))
}

// TestStateFollowsCurrentChain checks that an execution's state comes from
// its current chain and the commands recorded since, not from what an
// earlier command left failed or interrupted.
func TestStateFollowsCurrentChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{})
	// In turn: checkCounters after the loop must follow every case.
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, id string)
		want  State
	}{
		{"failed command, then a chain that succeeds", func(t *testing.T, id string) {
			step(t, s, id, "test", StatusFailed)
			runChain(t, s, id, []string{"test"})
		}, StateCompleted},
		{"interrupted command, then a chain that succeeds", func(t *testing.T, id string) {
			other := must[*Store](t)(New(ctx, db, Options{}))
			must[*CommandExecution](t)(other.StartCommand(ctx, id, "review", nil))
			check(t, other.Close()) // leaves "review" interrupted
			runChain(t, s, id, []string{"review"})
		}, StateCompleted},
		{"chain, then a failed command", func(t *testing.T, id string) {
			runChain(t, s, id, []string{"a"})
			step(t, s, id, "b", StatusFailed)
		}, StateFailed},
		{"chain, then an interrupted command", func(t *testing.T, id string) {
			runChain(t, s, id, []string{"a"})
			other := must[*Store](t)(New(ctx, db, Options{}))
			must[*CommandExecution](t)(other.StartCommand(ctx, id, "b", nil))
			check(t, other.Close())
		}, StateInterrupted},
		{"failed chain step", func(t *testing.T, id string) {
			runChain(t, s, id, []string{"a", "b"}, StatusSuccess, StatusFailed)
		}, StateFailed},
		{"failed command, then a chain whose step fails", func(t *testing.T, id string) {
			step(t, s, id, "a", StatusFailed)
			runChain(t, s, id, []string{"a", "b"}, StatusSuccess, StatusInterrupted)
		}, StateInterrupted},
		{"commands without a chain", func(t *testing.T, id string) {
			step(t, s, id, "a", StatusFailed)
			step(t, s, id, "b", StatusSuccess)
		}, StateFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
			c.setup(t, id)
			if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.State != c.want {
				t.Errorf("Get: state %s, want %s", st.State, c.want)
			}
			for _, sm := range must[[]Summary](t)(s.List(ctx)) {
				if sm.SessionID == id && sm.State != c.want {
					t.Errorf("List: state %s, want %s", sm.State, c.want)
				}
			}
		})
	}
	checkCounters(t, db)
}

// TestNewChainWaitsForUnfinishedChain checks that a new chain does not
// start in an execution whose chain did not finish (it would be left behind
// for good), and that it starts once a resume finished that chain.
func TestNewChainWaitsForUnfinishedChain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{})
	runs := func(id string) int {
		var n int
		check(t, db.SQL().QueryRow(`SELECT count(*) FROM runs WHERE session_id = ?`, id).Scan(&n))
		return n
	}
	for _, c := range []struct {
		name   string
		status Status // of the chain's second command; "" when not started
		want   string
	}{
		{"failed", StatusFailed, "stopped at b (failed)"},
		{"interrupted", StatusInterrupted, "stopped at b (interrupted)"},
		{"not started", "", "stopped at b (not started)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
			run := must[*Run](t)(s.StartRun(ctx, id, RunKindRun))
			check(t, s.SetPlan(ctx, id, []string{"a", "b"}, "input"))
			step(t, s, id, "a", StatusSuccess)
			if c.status != "" {
				must[*CommandExecution](t)(s.StartStep(ctx, id, "b", nil, nil))
				must[*CommandExecution](t)(s.CompleteStep(ctx, id, "b", c.status, nil, nil))
			}
			check(t, s.FinishRun(ctx, run.RunID))
			before := runs(id)

			_, err := s.StartRun(ctx, id, RunKindRun)
			if !errors.Is(err, ErrUnfinishedChain) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "resume") {
				t.Fatalf("StartRun of a new chain: %v", err)
			}
			if err := s.SetPlan(ctx, id, []string{"c"}, ""); !errors.Is(err, ErrUnfinishedChain) {
				t.Fatalf("SetPlan: %v", err)
			}
			if n := runs(id); n != before {
				t.Fatalf("the refused run was recorded: %d runs, had %d", n, before)
			}
			rp := must[*ResumePoint](t)(s.ResumePoint(ctx, id))
			if len(rp.Steps) != 2 || rp.Steps[1].Command != "b" || rp.Next != 1 {
				t.Fatalf("the refused chain changed the plan: %+v", rp)
			}

			// Resumed and finished, the execution takes a new chain.
			resume := must[*Run](t)(s.StartRun(ctx, id, RunKindResume))
			step(t, s, id, "b", StatusSuccess)
			check(t, s.FinishRun(ctx, resume.RunID))
			runChain(t, s, id, []string{"c"})
			if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.State != StateCompleted || st.Plan.Commands[0] != "c" {
				t.Fatalf("after the resume and a new chain: state %s, plan %+v", st.State, st.Plan)
			}
		})
	}
}

// TestPartialStepIsResumable checks that list state and resume agree on a
// chain command that ended partial: resume runs it again, so the execution
// is not completed but interrupted (resumable) until it succeeds.
func TestPartialStepIsResumable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	s := newStore(t, db, Options{})
	state := func(id string) State {
		t.Helper()
		st := must[*ExecutionState](t)(s.Get(ctx, id))
		for _, sm := range must[[]Summary](t)(s.List(ctx)) {
			if sm.SessionID == id && sm.State != st.State {
				t.Fatalf("List says %s, Get says %s", sm.State, st.State)
			}
		}
		return st.State
	}

	// By hand, without a chain, work whose last command only partly
	// succeeded is not completed; a command after it that succeeds
	// completes it.
	loose := must[*ExecutionState](t)(s.Create(ctx, "loose", "")).SessionID
	step(t, s, loose, "a", StatusPartial)
	if got := state(loose); got != StateInterrupted {
		t.Fatalf("last command partial, without a chain: %s, want interrupted", got)
	}
	step(t, s, loose, "b", StatusSuccess)
	if got := state(loose); got != StateCompleted {
		t.Fatalf("a command succeeded after the partial one: %s, want completed", got)
	}

	id := must[*ExecutionState](t)(s.Create(ctx, "chain", "")).SessionID
	runChain(t, s, id, []string{"a", "b"}, StatusPartial, StatusSuccess)
	rp := must[*ResumePoint](t)(s.ResumePoint(ctx, id))
	if rp.Done || rp.Next != 0 {
		t.Fatalf("resume point: %+v", rp)
	}
	if got := state(id); got != StateInterrupted {
		t.Fatalf("chain with a partial command: %s, want interrupted", got)
	}
	if err := s.SetPlan(ctx, id, []string{"c"}, ""); !errors.Is(err, ErrUnfinishedChain) || !strings.Contains(err.Error(), "stopped at a (partial)") {
		t.Fatalf("new chain after a partial command: %v", err)
	}
	check(t, s.SetCurrent(ctx, loose))
	if got := must[*ExecutionState](t)(s.GetOrCreate(ctx, "chain")); got.SessionID != id {
		t.Fatalf("GetOrCreate did not continue the unfinished chain: %s", got.SessionID)
	}

	resume := must[*Run](t)(s.StartRun(ctx, id, RunKindResume))
	step(t, s, id, "a", StatusSuccess)
	check(t, s.FinishRun(ctx, resume.RunID))
	if rp := must[*ResumePoint](t)(s.ResumePoint(ctx, id)); !rp.Done {
		t.Fatalf("resume point after the resume: %+v", rp)
	}
	if got := state(id); got != StateCompleted {
		t.Fatalf("after the resume: %s", got)
	}
	checkCounters(t, db)
}

// TestCommandItems checks the memoryUpdated and skillsInvoked entries given
// when a command starts or completes: recorded on that attempt, once each,
// next to those of RecordMemoryLoad, and found again by every read.
func TestCommandItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID

	started := must[*CommandExecution](t)(s.StartCommand(ctx, id, "implement", nil, WithSkillsInvoked("tdd")))
	if !slices.Equal(started.SkillsInvoked, []string{"tdd"}) || len(started.MemoryUpdated) != 0 {
		t.Fatalf("started: %+v", started)
	}
	check(t, s.RecordMemoryLoad(ctx, id, "project", "stack", "fastapi"))
	done := must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "implement", StatusSuccess, nil,
		WithMemoryUpdated("project:decisions", "project:stack"), WithSkillsInvoked("tdd", "code-review")))
	wantMemory, wantSkills := []string{"project:stack", "project:decisions"}, []string{"tdd", "code-review"}
	prev := must[*CommandExecution](t)(s.GetPreviousCommand(ctx, id, "implement"))
	got := must[*ExecutionState](t)(s.Get(ctx, id)).CommandHistory[0]
	for name, ce := range map[string]*CommandExecution{"CompleteCommand": done, "GetPreviousCommand": prev, "Get": &got} {
		if !slices.Equal(ce.MemoryUpdated, wantMemory) || !slices.Equal(ce.SkillsInvoked, wantSkills) {
			t.Errorf("%s: memoryUpdated %q, skillsInvoked %q; want %q, %q", name, ce.MemoryUpdated, ce.SkillsInvoked, wantMemory, wantSkills)
		}
	}

	// A new attempt starts with lists of its own.
	must[*CommandExecution](t)(s.StartCommand(ctx, id, "test", nil))
	must[*CommandExecution](t)(s.CompleteCommand(ctx, id, "test", StatusFailed, nil, WithSkillsInvoked("pytest")))
	retry := must[*CommandExecution](t)(s.StartCommand(ctx, id, "test", nil))
	if retry.Attempts != 2 || len(retry.SkillsInvoked) != 0 {
		t.Fatalf("retry: %+v", retry)
	}

	for _, c := range []struct {
		name string
		opt  CommandOption
	}{
		{"memory entry without a key", WithMemoryUpdated("project:")},
		{"memory entry without a layer", WithMemoryUpdated("stack")},
		{"empty skill", WithSkillsInvoked(" ")},
	} {
		if _, err := s.CompleteCommand(ctx, id, "test", StatusSuccess, nil, c.opt); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", c.name, err)
		}
	}
	if ce := must[*CommandExecution](t)(s.GetPreviousCommand(ctx, id, "")); ce.Command != "implement" {
		t.Fatalf("a refused completion completed %s", ce.Command)
	}
}

// load is a context load of domain:topic whose content is the key itself.
func load(domain, topic string) ContextLoad {
	return ContextLoad{ContextKey: ContextKey{Domain: domain, Topic: topic}, Content: domain + ":" + topic}
}

// TestStartStepLoads checks the context a chain step loads as it starts:
// listed on the new attempt, its content cached unless the load came from
// the cache, and found again by later reads.
func TestStartStepLoads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, openDB(t), Options{})
	id := must[*ExecutionState](t)(s.Create(ctx, "p", "")).SessionID
	a, b, c := load("d", "a"), load("d", "b"), load("d", "c#Section")

	plan := must[*CommandExecution](t)(s.StartStep(ctx, id, "plan", nil, []ContextLoad{a, b}))
	if want := []string{"d:a", "d:b"}; !slices.Equal(plan.ContextLoaded, want) {
		t.Fatalf("plan contextLoaded %q, want %q", plan.ContextLoaded, want)
	}
	must[*CommandExecution](t)(s.CompleteStep(ctx, id, "plan", StatusSuccess, nil, nil))

	// A load served from the cache is listed but leaves the cache as it was.
	fromCache := a
	fromCache.Content, fromCache.Cached = "not stored", true
	// A key given twice is listed once, as the database keeps it.
	build := must[*CommandExecution](t)(s.StartStep(ctx, id, "build", nil, []ContextLoad{fromCache, c, c}))
	if want := []string{"d:a", "d:c#Section"}; !slices.Equal(build.ContextLoaded, want) {
		t.Fatalf("build contextLoaded %q, want %q", build.ContextLoaded, want)
	}
	missing := ContextKey{Domain: "d", Topic: "missing"}
	got := must[map[ContextKey]string](t)(s.CachedContexts(ctx, id, []ContextKey{a.ContextKey, b.ContextKey, c.ContextKey, missing}))
	want := map[ContextKey]string{a.ContextKey: a.Content, b.ContextKey: b.Content, c.ContextKey: c.Content}
	if !maps.Equal(got, want) {
		t.Fatalf("cached contexts %q, want %q", got, want)
	}
	st := must[*ExecutionState](t)(s.Get(ctx, id))
	if len(st.LoadedContext) != 3 || st.LoadedContext["d:a"] != a.Content {
		t.Fatalf("loadedContext %q", st.LoadedContext)
	}
	for i, want := range []*CommandExecution{plan, build} {
		if got := st.CommandHistory[i].ContextLoaded; !slices.Equal(got, want.ContextLoaded) {
			t.Fatalf("%s's contextLoaded read back as %q, want %q", want.Command, got, want.ContextLoaded)
		}
	}
}

// TestReaderWritesNothing checks that a Reader reports executions as a Store
// does, the work of a killed process included, without committing anything
// to the database.
func TestReaderWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	// No heartbeat commits while the test watches the database.
	quiet := Options{HeartbeatInterval: time.Hour}
	s := newStore(t, db, quiet)
	killed := newStore(t, db, quiet)

	done := must[*ExecutionState](t)(s.Create(ctx, "done", "")).SessionID
	step(t, s, done, "a", StatusSuccess)
	busy := must[*ExecutionState](t)(s.Create(ctx, "busy", "", KeepCurrent())).SessionID
	step(t, s, busy, "a", StatusRunning)
	cut := must[*ExecutionState](t)(s.Create(ctx, "cut", "", KeepCurrent())).SessionID
	step(t, killed, cut, "b", StatusRunning)
	// killed's process is gone: its owner row gets the pid of a process
	// that exited.
	exited := exec.Command(os.Args[0], "-test.run=^$")
	check(t, exited.Run())
	crash(killed)
	_, err := db.SQL().Exec(`UPDATE owners SET pid = ? WHERE owner_id = ?`, exited.Process.Pid, killed.owner)
	check(t, err)

	conn, err := db.SQL().Conn(ctx)
	check(t, err)
	defer conn.Close()
	version := func() (v int64) {
		check(t, conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v))
		return v
	}
	before := version()

	r := NewReader(db)
	want := map[string]State{done: StateCompleted, busy: StateRunning, cut: StateInterrupted}
	list := must[[]Summary](t)(r.List(ctx))
	if len(list) != len(want) {
		t.Fatalf("List: %d executions, want %d", len(list), len(want))
	}
	for _, sm := range list {
		if sm.State != want[sm.SessionID] || sm.IsCurrent != (sm.SessionID == done) {
			t.Errorf("List: %s (%s) is %s, current %v; want %s", sm.SessionID, sm.ProjectName, sm.State, sm.IsCurrent, want[sm.SessionID])
		}
	}
	if st := must[*ExecutionState](t)(r.Get(ctx, cut)); st.State != StateInterrupted || st.CommandHistory[0].Status != StatusInterrupted {
		t.Errorf("Get of the killed process's execution: %s, command %s", st.State, st.CommandHistory[0].Status)
	}
	if st := must[*ExecutionState](t)(r.Get(ctx, "")); st.SessionID != done {
		t.Errorf("Get of the current execution: %s", st.SessionID)
	}
	if _, err := r.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an unknown execution: %v", err)
	}

	if after := version(); after != before {
		t.Errorf("the reader committed to the database (data_version %d → %d)", before, after)
	}
	var status string
	check(t, db.SQL().QueryRow(`SELECT status FROM commands WHERE session_id = ?`, cut).Scan(&status))
	if status != "running" {
		t.Errorf("the reader recorded the killed command as %s", status)
	}
}
