package execution

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/runs/storage"
)

// The tests below run this test binary again as child processes, selected by
// childEnv, each with its own Store on the same database file: two ctxls
// processes on one workspace.
const childEnv = "CTXLS_EXECUTION_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		if err := runChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(mode string) error {
	ctx := context.Background()
	db, err := storage.Open(ctx, os.Getenv("CHILD_DB"))
	if err != nil {
		return err
	}
	defer db.Close()
	stale, err := time.ParseDuration(os.Getenv("CHILD_STALE"))
	if err != nil {
		return err
	}
	s, err := New(ctx, db, Options{HeartbeatInterval: stale / 5, StaleAfter: stale})
	if err != nil {
		return err
	}
	defer s.Close()
	switch mode {
	case "hammer":
		return hammer(ctx, s)
	case "killed":
		return killedMidStep(ctx, s)
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// hammer creates executions and runs a command in each, writing shared data
// both to its own executions and to one execution shared with the other
// child. It prints the id of every execution it completed.
func hammer(ctx context.Context, s *Store) error {
	name, shared := os.Getenv("CHILD_NAME"), os.Getenv("CHILD_SHARED")
	n, err := strconv.Atoi(os.Getenv("CHILD_N"))
	if err != nil {
		return err
	}
	// Start together with the other child: wait for the go line on stdin.
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("wait for start: %w", err)
	}
	for i := range n {
		st, err := s.Create(ctx, "project-"+name, "go", KeepCurrent())
		if err != nil {
			return err
		}
		id := st.SessionID
		if i%10 == 0 {
			if err := s.SetCurrent(ctx, id); err != nil {
				return err
			}
		}
		if _, err := s.StartCommand(ctx, id, "build", map[string]any{"i": i}); err != nil {
			return err
		}
		if err := s.RecordContextLoad(ctx, id, "go", "style", fmt.Sprintf("%s %d", name, i)); err != nil {
			return err
		}
		if err := s.SetSharedData(ctx, id, "result", i); err != nil {
			return err
		}
		if err := s.SetSharedData(ctx, shared, fmt.Sprintf("%s-%d", name, i), i); err != nil {
			return err
		}
		if err := s.RecordContextLoad(ctx, shared, name, fmt.Sprint(i), "x"); err != nil {
			return err
		}
		if _, err := s.CompleteCommand(ctx, id, "build", StatusSuccess, map[string]any{"i": i}); err != nil {
			return err
		}
		if _, err := s.List(ctx); err != nil {
			return err
		}
		fmt.Println("done", id)
	}
	return nil
}

// killedMidStep completes one step of a chain, starts the second and then
// writes shared data until it is killed, printing each committed write.
func killedMidStep(ctx context.Context, s *Store) error {
	st, err := s.Create(ctx, "shop", "python")
	if err != nil {
		return err
	}
	id := st.SessionID
	if _, err := s.StartRun(ctx, id, RunKindRun); err != nil {
		return err
	}
	if err := s.SetPlan(ctx, id, []string{"brainstorm", "implement", "test"}, "add login"); err != nil {
		return err
	}
	if _, err := s.StartCommand(ctx, id, "brainstorm", map[string]any{"input": "add login"}); err != nil {
		return err
	}
	if err := s.RecordContextLoad(ctx, id, "commands", "brainstorm_patterns", "# patterns"); err != nil {
		return err
	}
	if _, err := s.CompleteCommand(ctx, id, "brainstorm", StatusSuccess, map[string]any{"ideas": []string{"oauth", "password"}}); err != nil {
		return err
	}
	fmt.Println("session", id)
	if _, err := s.StartCommand(ctx, id, "implement", nil); err != nil {
		return err
	}
	for i := 0; ; i++ {
		if err := s.SetSharedData(ctx, id, fmt.Sprintf("k%d", i), strings.Repeat("v", i%512)); err != nil {
			return err
		}
		fmt.Println("committed", i)
	}
}

type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Scanner
	stderr *strings.Builder
}

// startChild runs this test binary again as a child in mode, with env
// added to its environment, until the test ends.
func startChild(t *testing.T, mode string, env ...string) *child {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^$"), stderr: &strings.Builder{}}
	c.cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + mode}, env...)...)
	c.cmd.Stderr = c.stderr
	out, err := c.cmd.StdoutPipe()
	check(t, err)
	c.out = bufio.NewScanner(out)
	c.stdin, err = c.cmd.StdinPipe()
	check(t, err)
	check(t, c.cmd.Start())
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	return c
}

func integrityCheck(t *testing.T, db *storage.DB) {
	t.Helper()
	var res string
	check(t, db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&res))
	if res != "ok" {
		t.Fatalf("integrity_check: %s", res)
	}
	var fk int
	rows, err := db.SQL().Query(`PRAGMA foreign_key_check`)
	check(t, err)
	for rows.Next() {
		fk++
	}
	rows.Close()
	if fk != 0 {
		t.Fatalf("foreign_key_check reports %d rows", fk)
	}
}

// TestTwoProcesses runs two processes writing the same database at once;
// every record either made must be there afterwards.
func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	path := storage.WorkspacePath(root)
	db, err := storage.OpenWorkspace(ctx, root)
	check(t, err)
	t.Cleanup(func() { db.Close() })
	s := newStore(t, db, Options{})
	shared := must[*ExecutionState](t)(s.Create(ctx, "shared", "")).SessionID

	const n = 50
	names := []string{"alpha", "beta"}
	var children []*child
	for _, name := range names {
		c := startChild(t, "hammer", "CHILD_DB="+path, "CHILD_STALE=10s", "CHILD_NAME="+name,
			"CHILD_SHARED="+shared, "CHILD_N="+strconv.Itoa(n))
		if !c.out.Scan() || c.out.Text() != "ready" {
			t.Fatalf("child %s did not start: %v\n%s", name, c.out.Err(), c.stderr)
		}
		children = append(children, c)
	}
	for _, c := range children {
		io.WriteString(c.stdin, "go\n")
	}
	ids := make([][]string, len(names))
	var wg sync.WaitGroup
	for i, c := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.out.Scan() {
				if id, ok := strings.CutPrefix(c.out.Text(), "done "); ok {
					ids[i] = append(ids[i], id)
				}
			}
			if err := c.cmd.Wait(); err != nil {
				t.Errorf("child %s: %v\n%s", names[i], err, c.stderr)
			}
		}()
	}
	// This process reads and writes meanwhile too.
	for i := 0; i < 20; i++ {
		check(t, s.SetSharedData(ctx, shared, fmt.Sprintf("parent-%d", i), i))
		must[[]Summary](t)(s.List(ctx))
	}
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(2 * time.Minute):
		t.Fatal("the child processes did not finish within 2 minutes")
	}
	if t.Failed() {
		return
	}

	integrityCheck(t, db)
	checkCounters(t, db)
	for c, name := range names {
		if len(ids[c]) != n {
			t.Fatalf("child %s completed %d executions, want %d", name, len(ids[c]), n)
		}
		for i, id := range ids[c] {
			st := must[*ExecutionState](t)(s.Get(ctx, id))
			if st.ProjectName != "project-"+name || len(st.CommandHistory) != 1 ||
				st.CommandHistory[0].Status != StatusSuccess || string(st.CommandHistory[0].Outputs["i"]) != strconv.Itoa(i) ||
				string(st.SharedData["result"]) != strconv.Itoa(i) || st.LoadedContext["go:style"] != fmt.Sprintf("%s %d", name, i) {
				t.Fatalf("execution %d of %s: %+v", i, name, st)
			}
		}
	}
	st := must[*ExecutionState](t)(s.Get(ctx, shared))
	if want := len(names)*n + 20; len(st.SharedData) != want {
		t.Fatalf("shared execution has %d shared values, want %d", len(st.SharedData), want)
	}
	if want := len(names) * n; len(st.LoadedContext) != want {
		t.Fatalf("shared execution has %d context loads, want %d", len(st.LoadedContext), want)
	}
	if l := must[[]Summary](t)(s.List(ctx)); len(l) != len(names)*n+1 {
		t.Fatalf("List has %d executions, want %d", len(l), len(names)*n+1)
	}
}

// TestKilledMidStep kills (SIGKILL) a process in the middle of the second
// step of a chain: the first step, and every write the child saw committed,
// must survive, and the second step must show as interrupted and resume.
func TestKilledMidStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	path := storage.WorkspacePath(root)
	c := startChild(t, "killed", "CHILD_DB="+path, "CHILD_STALE=250ms")
	cmd, out, stderr := c.cmd, c.out, c.stderr

	var id string
	committed := -1
	for out.Scan() {
		line := out.Text()
		if v, ok := strings.CutPrefix(line, "session "); ok {
			id = v
		}
		if v, ok := strings.CutPrefix(line, "committed "); ok {
			committed = must[int](t)(strconv.Atoi(v))
			if committed == 30 {
				break
			}
		}
	}
	if id == "" || committed < 30 {
		t.Fatalf("child stopped early: %v\n%s", out.Err(), stderr)
	}
	check(t, cmd.Process.Signal(syscall.SIGKILL))
	// Lines the child printed before it died: their writes were committed.
	for out.Scan() {
		if v, ok := strings.CutPrefix(out.Text(), "committed "); ok {
			committed = must[int](t)(strconv.Atoi(v))
		}
	}
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v", err)
	}

	db, err := storage.Open(ctx, path)
	check(t, err)
	t.Cleanup(func() { db.Close() })
	integrityCheck(t, db)
	s := newStore(t, db, Options{HeartbeatInterval: 50 * time.Millisecond})

	var st *ExecutionState
	waitFor(t, "the killed process to go stale", func() bool {
		st = must[*ExecutionState](t)(s.Get(ctx, id))
		return st.State == StateInterrupted
	})
	if len(st.CommandHistory) != 2 {
		t.Fatalf("%d commands recorded, want 2", len(st.CommandHistory))
	}
	first, second := st.CommandHistory[0], st.CommandHistory[1]
	if first.Command != "brainstorm" || first.Status != StatusSuccess || string(first.Outputs["ideas"]) != `["oauth","password"]` ||
		string(first.Inputs["input"]) != `"add login"` || first.ContextLoaded[0] != "commands:brainstorm_patterns" {
		t.Fatalf("completed step: %+v", first)
	}
	if second.Command != "implement" || second.Status != StatusInterrupted {
		t.Fatalf("killed step: %+v", second)
	}
	for i := 0; i <= committed; i++ {
		v, ok := st.SharedData[fmt.Sprintf("k%d", i)]
		if !ok || string(v) != `"`+strings.Repeat("v", i%512)+`"` {
			t.Fatalf("committed write %d of %d lost", i, committed)
		}
	}
	if st.LoadedContext["commands:brainstorm_patterns"] != "# patterns" {
		t.Fatal("loaded context lost")
	}

	rp := must[*ResumePoint](t)(s.ResumePoint(ctx, id))
	if rp.Next != 1 || rp.Input != "add login" || rp.Steps[1].Status != StatusInterrupted {
		t.Fatalf("resume point: %+v", rp)
	}
	run := must[*Run](t)(s.StartRun(ctx, id, RunKindResume))
	for _, step := range rp.Steps[rp.Next:] {
		ce := must[*CommandExecution](t)(s.StartCommand(ctx, id, step.Command, nil))
		if step.Command == "implement" && ce.Attempts != 2 {
			t.Fatalf("resumed implement is attempt %d, want 2", ce.Attempts)
		}
		must[*CommandExecution](t)(s.CompleteCommand(ctx, id, step.Command, StatusSuccess, nil))
	}
	check(t, s.FinishRun(ctx, run.RunID))
	if st := must[*ExecutionState](t)(s.Get(ctx, id)); st.State != StateCompleted || len(st.CommandHistory) != 3 {
		t.Fatalf("after resume: state %s, %d commands", st.State, len(st.CommandHistory))
	}
	var runs []string
	rows, err := db.SQL().Query(`SELECT kind || ':' || status FROM runs WHERE session_id = ? ORDER BY started_at, kind DESC`, id)
	check(t, err)
	for rows.Next() {
		var r string
		check(t, rows.Scan(&r))
		runs = append(runs, r)
	}
	rows.Close()
	if strings.Join(runs, ",") != "run:interrupted,resume:finished" {
		t.Fatalf("runs = %v", runs)
	}
	checkCounters(t, db)
}
