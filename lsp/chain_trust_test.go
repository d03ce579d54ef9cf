package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestChainExecutorConfirmation lists the exec executor that .ctxls.yaml
// configures, with its command line, and runs a chain only while that
// command line is the one the client confirmed: after .ctxls.yaml names
// another program, a run or resume with the old one is refused and runs
// nothing.
func TestChainExecutorConfirmation(t *testing.T) {
	t.Parallel()
	dir, log := chainWorkspace(t, "30s", "-sleep", "0s")
	c := chainStart(t, dir)

	var list struct {
		Executor struct {
			Kind    string   `json:"kind"`
			Command []string `json:"command"`
		} `json:"executor"`
	}
	c.must("ctxls/chain/list", map[string]any{}, &list)
	argv := list.Executor.Command
	if list.Executor.Kind != "exec" || len(argv) < 3 || argv[0] != chainAgent(t) || argv[1] != "-log" {
		t.Fatalf("chain/list executor = %+v, want the agent's command line", list.Executor)
	}

	// Confirmed nothing, or something else: refused, nothing runs.
	for _, confirmed := range [][]string{{}, {"something", "else"}} {
		e := c.rpcErr("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": "x", "executorCommand": confirmed})
		if e.Code != -32602 || !strings.Contains(e.Message, "confirm it again") || !strings.Contains(e.Message, argv[0]) {
			t.Fatalf("run with executorCommand %q: %v", confirmed, e)
		}
	}
	if got := chainAgentRuns(t, log); got != "" {
		t.Fatalf("a refused run ran the agent: %s", got)
	}

	// The confirmed command line runs.
	var res chainRunResult
	c.must("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": "x", "executorCommand": argv}, &res)
	if res.State != "completed" || chainAgentRuns(t, log) == "" {
		t.Fatalf("confirmed run: %s, agent runs %q", res.State, chainAgentRuns(t, log))
	}

	// .ctxls.yaml now names another program: what was confirmed no longer
	// holds, for resume as for run.
	cfgPath := filepath.Join(dir, ".ctxls.yaml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := json.Marshal(argv)
	other := slices.Concat(argv, []string{"-extra"})
	repl, _ := json.Marshal(other)
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), string(old), string(repl), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": "file://" + cfgPath, "type": 2}}})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c.must("ctxls/chain/list", map[string]any{}, &list)
		if slices.Equal(list.Executor.Command, other) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chain/list still lists %q after .ctxls.yaml changed", list.Executor.Command)
		}
	}
	runs := chainAgentRuns(t, log)
	e := c.rpcErr("ctxls/chain/resume", map[string]any{"sessionId": res.SessionID, "executorCommand": argv})
	if e.Code != -32602 || !strings.Contains(e.Message, "-extra") {
		t.Fatalf("resume with the old command line: %v", e)
	}
	if got := chainAgentRuns(t, log); got != runs {
		t.Fatalf("a refused resume ran the agent: %s", got)
	}
}
