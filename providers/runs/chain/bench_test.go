//go:build unix

package chain

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/runs/execution"
)

// BenchmarkStepSixTopics measures the server's own work for one chain step
// that loads six topics, without an agent (the preview executor runs
// nothing): planning the budget, reading the cache, materializing the six
// topics, starting the command with its context loads (one commit),
// reading shared data and history, assembling and measuring the prompt,
// recording the prompt in the history (one commit) and completing the step
// (one commit). Each step runs in a fresh execution, so nothing is cached;
// creating the execution and its run is outside the timing.
func BenchmarkStepSixTopics(b *testing.B) {
	e := newEnv(b, "executor:\n  kind: preview\n")
	ctx := context.Background()
	cmds, err := commandsOf(e.lib.Snapshot(), []string{"implement"})
	if err != nil {
		b.Fatal(err)
	}
	exe := previewExecutor{}
	var (
		st  Step
		cpu time.Duration
	)
	budget, err := modelBudget(e.lib.Snapshot().Config(), "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		ex, err := e.store.Create(ctx, "bench", "")
		if err != nil {
			b.Fatal(err)
		}
		run, err := e.store.StartRun(ctx, ex.SessionID, execution.RunKindRun)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := processCPU()
		st, err = e.runner.step(ctx, ctx, stepJob{lib: e.lib.Snapshot(), exe: exe, budget: budget, sessionID: ex.SessionID, runID: run.RunID,
			index: 0, total: 1, cmd: cmds[0], input: "add sorting"})
		cpu += processCPU() - c0
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := e.store.FinishRun(ctx, run.RunID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	// CPU time does not depend on how busy the machine is, unlike the
	// wall time (it includes the heartbeat's, which is small).
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if n := len(st.Context); n != 6 || st.Status != "success" || st.CacheHits != 0 {
		b.Fatalf("step loaded %d topics (%d cached), status %s", n, st.CacheHits, st.Status)
	}
}

// BenchmarkChainThreeSteps is a whole three-step chain without an agent,
// in a new execution: creating it, the run, the plan and the three steps
// (later steps reuse cached topics and carry a growing history).
func BenchmarkChainThreeSteps(b *testing.B) {
	e := newEnv(b, "executor:\n  kind: preview\n")
	ctx := context.Background()
	for b.Loop() {
		res, err := e.runner.Run(ctx, Request{Commands: feature, Input: "add sorting"})
		if err != nil || res.State != "completed" {
			b.Fatal(err, res.State)
		}
	}
}

// processCPU returns the CPU time (user and system) this process used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
