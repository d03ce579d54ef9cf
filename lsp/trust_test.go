package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// trustExecutor is the executor of chain/list and ctxls/trust.
type trustExecutor struct {
	Kind         string   `json:"kind"`
	Command      []string `json:"command"`
	Source       string   `json:"source"`
	NeedsConsent bool     `json:"needsConsent"`
}

// waitExecutor waits until chain/list reports the executor want says.
func (c *chainClient) waitExecutor(want func(trustExecutor) bool) trustExecutor {
	c.t.Helper()
	var list struct {
		Executor trustExecutor `json:"executor"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c.must("ctxls/chain/list", map[string]any{}, &list)
		if want(list.Executor) {
			return list.Executor
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("chain/list still reports the executor %+v", list.Executor)
		}
	}
}

// TestChainConsentStdio drives `ctxls serve` over stdio on a workspace
// whose .ctxls.yaml names an exec executor nobody agreed to: ctxls/chain/run
// and ctxls/chain/resume refuse it whatever executorCommand the request
// carries, until ctxls/trust/grant agrees to that very argv; a changed
// argv is refused again; a command line from the client's settings runs
// without an agreement.
func TestChainConsentStdio(t *testing.T) {
	t.Parallel()
	dir := libtest.CopyExample(t)
	log := filepath.Join(t.TempDir(), "agent.log")
	argv := []string{chainAgent(t), "-log", log, "-failonce", "brainstorm"}
	command, _ := json.Marshal(argv)
	cfgPath := chaintest.EditConfig(t, dir, "executor:\n  kind: preview\n", fmt.Sprintf("executor:\n  kind: exec\n  command: %s\n  timeout: 30s\n", command))
	c := chainStart(t, dir)

	ex := c.waitExecutor(func(e trustExecutor) bool { return e.Kind == "exec" })
	if !ex.NeedsConsent || ex.Source != "workspace" || !slices.Equal(ex.Command, argv) {
		t.Fatalf("chain/list executor = %+v; want the workspace's, needing consent", ex)
	}
	refused := func(what string, e *chainRPCError, runs string) {
		t.Helper()
		if e.Code != int(ops.CodeConsent) || !strings.Contains(e.Message, "ctxls trust grant --dir") {
			t.Fatalf("%s: %v; want a consent refusal (%d) naming ctxls trust grant", what, e, ops.CodeConsent)
		}
		if got := chainAgentRuns(t, log); got != runs {
			t.Fatalf("%s ran the agent: %q", what, got)
		}
	}
	// An editor that sends no executorCommand, and one that pins the
	// argv, are refused alike: the pin is no consent.
	for _, pin := range []any{nil, argv} {
		params := map[string]any{"commands": []string{"brainstorm"}, "input": "x"}
		if pin != nil {
			params["executorCommand"] = pin
		}
		refused(fmt.Sprintf("run pinned to %v", pin), c.rpcErr("ctxls/chain/run", params), "")
	}
	if e := c.rpcErr("ctxls/trust/grant", map[string]any{"command": []string{argv[0]}}); e.Code != -32602 {
		t.Fatalf("grant of another argv: %v; want invalid params", e)
	}
	var granted ops.TrustResponse
	c.must("ctxls/trust/grant", map[string]any{"command": argv}, &granted)
	if granted.Executor.NeedsConsent || !slices.Equal(granted.Granted, argv) {
		t.Fatalf("trust/grant = %+v", granted)
	}
	var res ops.ChainResponse
	c.must("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": "x"}, &res)
	if res.State != "failed" || chainAgentRuns(t, log) != "brainstorm#1" {
		t.Fatalf("run once agreed: %s, agent runs %q", res.State, chainAgentRuns(t, log))
	}

	// .ctxls.yaml names another argv: resume is refused, with the new
	// argv pinned or not.
	other := slices.Concat(argv[:3], []string{"-sleep", "0s"})
	repl, _ := json.Marshal(other)
	chaintest.EditConfig(t, dir, string(command), string(repl))
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": "file://" + cfgPath, "type": 2}}})
	ex = c.waitExecutor(func(e trustExecutor) bool { return slices.Equal(e.Command, other) })
	if !ex.NeedsConsent {
		t.Fatalf("chain/list after the argv changed = %+v; want it to need consent again", ex)
	}
	var st ops.TrustResponse
	c.must("ctxls/trust", map[string]any{}, &st)
	if st.Changed != "the command line" || !slices.Equal(st.Granted, argv) {
		t.Fatalf("ctxls/trust after the argv changed = %+v", st)
	}
	for _, pin := range []any{nil, other} {
		params := map[string]any{"sessionId": res.SessionID}
		if pin != nil {
			params["executorCommand"] = pin
		}
		refused(fmt.Sprintf("resume pinned to %v", pin), c.rpcErr("ctxls/chain/resume", params), "brainstorm#1")
	}

	// The client's settings name the command line: the user's own, it
	// runs without an agreement.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{
		"executor": map[string]any{"kind": "exec", "command": other}}}})
	ex = c.waitExecutor(func(e trustExecutor) bool { return e.Source == "settings" })
	if ex.NeedsConsent {
		t.Fatalf("chain/list with the settings' executor = %+v; want no consent needed", ex)
	}
	c.must("ctxls/chain/resume", map[string]any{"sessionId": res.SessionID}, &res)
	if res.State != "completed" || chainAgentRuns(t, log) != "brainstorm#1 brainstorm#2" {
		t.Fatalf("resume with the settings' executor: %s, agent runs %q", res.State, chainAgentRuns(t, log))
	}
}
