//go:build unix

package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// Chains cancelled and servers killed: the tests wait for the agent's
// processes to end, which they check the Unix way.

// TestChainCancelOverStdio cancels a running chain in each of the three
// ways a client can: $/cancelRequest, the progress's cancel and
// ctxls/chain/cancel. The agent dies and its step is left interrupted.
func TestChainCancelOverStdio(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"cancelRequest", "progress", "serverProgress", "chain/cancel"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			dir, log := chainWorkspace(t, "5m", "-hangonce", "implement", "-hangchild", "-pidfile", pidFile)
			c := chainStart(t, dir)
			params := map[string]any{"commands": []string{"brainstorm", "implement", "test"}, "workDoneToken": "chain-progress"}
			if how == "serverProgress" {
				// No token: the server creates one and offers a cancel.
				delete(params, "workDoneToken")
			}
			id, ch := c.send("ctxls/chain/run", params)
			pids := chaintest.WaitFile(t, pidFile)
			switch how {
			case "cancelRequest":
				c.notify("$/cancelRequest", map[string]any{"id": id})
			case "progress":
				c.notify("window/workDoneProgress/cancel", map[string]any{"token": "chain-progress"})
			case "serverProgress":
				tok, ok := c.chainBeginToken()
				if !ok {
					t.Fatal("no cancellable progress began for the chain")
				}
				c.notify("window/workDoneProgress/cancel", map[string]any{"token": tok})
			default:
				var r struct {
					Cancelled []string `json:"cancelled"`
				}
				c.must("ctxls/chain/cancel", map[string]any{}, &r)
				if len(r.Cancelled) != 1 {
					t.Fatalf("chain/cancel: %+v", r)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var res ops.ChainResponse
			err := c.await(ctx, ch, &res)
			var re *chainRPCError
			if err != nil && !(errors.As(err, &re) && re.Code == -32800) {
				t.Fatalf("cancelled run: %v", err)
			}
			chaintest.WaitGone(t, pids)
			var list ops.ExecutionListResponse
			c.must("ctxls/execution/list", map[string]any{}, &list)
			if len(list.Items) != 1 || list.Items[0].State != "interrupted" {
				t.Fatalf("after cancel: %+v", list.Items)
			}
			var ex ops.ExecutionState
			c.must("ctxls/execution/get", map[string]any{"sessionId": list.Items[0].SessionID}, &ex)
			if len(ex.CommandHistory) != 2 || ex.CommandHistory[1].Status != "interrupted" {
				t.Fatalf("steps after cancel: %+v", ex.CommandHistory)
			}
			c.must("ctxls/chain/resume", map[string]any{"sessionId": ex.SessionID}, &res)
			if res.State != "completed" || !res.Steps[0].Skipped || res.Steps[1].Attempts != 2 {
				t.Fatalf("resume: %s %+v", res.State, res.Steps)
			}
			if got := chainAgentRuns(t, log); got != "brainstorm#1 implement#1 implement#2 test#1" {
				t.Fatalf("agent runs: %s", got)
			}
		})
	}
}

// TestChainKilledServer kills the server (SIGKILL) in the middle of a step:
// the agent and the child it started die with it; after a restart the
// execution is interrupted, the completed step and its shared data
// survived, and resume finishes the chain without running the completed
// step again.
func TestChainKilledServer(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	dir, log := chainWorkspace(t, "5m", "-hangonce", "implement", "-hangchild", "-pidfile", pidFile)
	c := chainStart(t, dir)
	c.send("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm", "implement", "test"}, "input": "add sorting"})
	pids := chaintest.WaitFile(t, pidFile)
	if len(strings.Fields(pids)) != 2 {
		t.Fatalf("pid file %q: want the agent's and its child's", pids)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	libtest.Receive(t, c.exited, "the killed server's output to end (its agent may hold it)")
	// The agent and its child die with the server.
	chaintest.WaitGone(t, pids)

	c2 := chainStart(t, dir)
	var list ops.ExecutionListResponse
	c2.must("ctxls/execution/list", map[string]any{}, &list)
	if len(list.Items) != 1 || list.Items[0].State != "interrupted" {
		t.Fatalf("after SIGKILL: %+v", list.Items)
	}
	id := list.Items[0].SessionID
	var ex ops.ExecutionState
	c2.must("ctxls/execution/get", map[string]any{"sessionId": id}, &ex)
	if len(ex.CommandHistory) != 2 || ex.CommandHistory[0].Status != "success" || ex.CommandHistory[1].Status != "interrupted" ||
		ex.SharedData["brainstorm"] == nil || len(ex.CommandHistory[0].ContextLoaded) == 0 {
		t.Fatalf("execution after SIGKILL: %+v", ex)
	}
	var res ops.ChainResponse
	c2.must("ctxls/chain/resume", map[string]any{"sessionId": id}, &res)
	if res.State != "completed" || chainStatuses(res) != "brainstorm:success implement:success test:success" || !res.Steps[0].Skipped {
		t.Fatalf("resume: %s %s", res.State, chainStatuses(res))
	}
	if got := chainAgentRuns(t, log); got != "brainstorm#1 implement#1 implement#2 test#1" {
		t.Fatalf("agent runs: %s", got)
	}
	chainIntegrity(t, dir)
}
