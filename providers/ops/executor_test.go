package ops_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/ops"
)

// TestChainsExecutor checks that the chain list reports the executor in
// effect with an exec executor's argv, and that a run or resume given
// another command line than that argv is refused before anything runs.
func TestChainsExecutor(t *testing.T) {
	t.Parallel()
	files := maps.Clone(tree)
	files[".ctxls.yaml"] = "executor:\n  kind: exec\n  command: [\"my-agent\", \"--print\"]\n"
	o, _ := load(t, files)
	ctx := context.Background()
	list, err := o.Chains(ctx, ops.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"my-agent", "--print"}
	if list.Executor.Kind != "exec" || !slices.Equal(list.Executor.Command, argv) {
		t.Fatalf("Chains executor = %+v; want exec %q", list.Executor, argv)
	}
	tests := []struct {
		name   string
		resume bool
		agreed []string
	}{
		{"run, agreed to no exec executor", false, []string{}},
		{"run, agreed to another", false, []string{"my-agent"}},
		{"resume, agreed to another", true, []string{"other", "--print"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := ops.ChainRequest{Commands: []string{"implement"}, Input: "x", ExecutorCommand: tt.agreed}
			run := o.RunChain
			if tt.resume {
				req = ops.ChainRequest{SessionID: "s1", ExecutorCommand: tt.agreed}
				run = o.ResumeChain
			}
			_, err := run(ctx, req)
			if !errors.Is(err, ops.ErrInvalid) || !strings.Contains(err.Error(), "confirm it again") {
				t.Fatalf("err = %v; want an invalid-params refusal", err)
			}
		})
	}

	def, _ := load(t, tree)
	list, err = def.Chains(ctx, ops.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if list.Executor.Kind != "preview" || list.Executor.Command == nil || len(list.Executor.Command) != 0 {
		t.Fatalf("Chains executor without configuration = %+v; want preview with an empty command", list.Executor)
	}
}
