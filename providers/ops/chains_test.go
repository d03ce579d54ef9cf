package ops_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestPreviewPromptBounded checks that a chain preview returns at most the
// first 256 KiB of a prompt of megabytes, cut on a character boundary and
// saying so in the text and in a warning, with the tokens of the whole
// prompt; and a short prompt whole.
func TestPreviewPromptBounded(t *testing.T) {
	t.Parallel()
	files := maps.Clone(tree)
	files["commands/huge.md"] = "# Huge\n\n" + strings.Repeat("é python:fastapi_patterns and more words\n", 40000)
	o, _ := load(t, files)
	t.Cleanup(func() { o.Close() })
	ctx := context.Background()
	res, err := o.PreviewChain(ctx, ops.ChainRequest{Commands: []string{"huge", "implement"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(res.Steps))
	}
	huge, small := res.Steps[0], res.Steps[1]
	if n := len(huge.Prompt); n > 256<<10+200 || n < 256<<10-8 {
		t.Errorf("huge prompt: %d bytes returned, want about 256 KiB", n)
	}
	if !utf8.ValidString(huge.Prompt) || !strings.Contains(huge.Prompt, "the preview stops here") {
		t.Errorf("huge prompt: cut inside a character or without saying so: %q", huge.Prompt[max(0, len(huge.Prompt)-120):])
	}
	if huge.PromptTokens < 200000 {
		t.Errorf("huge prompt: %d tokens, want those of the whole prompt", huge.PromptTokens)
	}
	clipped := 0
	for _, w := range res.Warnings {
		if w.Code == "prompt-clipped" {
			clipped++
			if !strings.Contains(w.Message, "step 1 (huge)") {
				t.Errorf("clip warning %q does not name the step", w.Message)
			}
		}
	}
	if clipped != 1 {
		t.Errorf("%d clip warnings, want 1: %+v", clipped, res.Warnings)
	}
	if strings.Contains(small.Prompt, "the preview stops here") || !strings.Contains(small.Prompt, "Implement") {
		t.Errorf("a short prompt is not returned whole: %q", small.Prompt)
	}
	whole, err := o.PreviewChain(ctx, ops.ChainRequest{Commands: []string{"huge"}, WholePrompts: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := whole.Steps[0].Prompt; len(p) < 40000*40 || strings.Contains(p, "the preview stops here") {
		t.Errorf("a preview asked for whole prompts returned %d bytes", len(p))
	}
}
