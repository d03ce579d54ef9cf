package ops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/tokens"
)

// The tokenizer setting applies to the next chain step without making
// the stores again: the messages a run records are measured with the
// tokenizer of the library in effect when it runs.
func TestChainFollowsTokenizer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := libtest.WriteTree(t, tree)
	exact, err := library.Load(ctx, dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ctxls.yaml"), []byte("tokenizer: estimate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	estimated, err := library.Load(ctx, dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if exact.Snapshot().Counter().Name() == estimated.Snapshot().Counter().Name() {
		t.Fatalf("both libraries measure with %s", exact.Snapshot().Counter().Name())
	}
	var current atomic.Pointer[library.Snapshot]
	current.Store(exact.Snapshot())
	o := ops.New(ops.Options{Snapshot: func() ops.Snapshot { return ops.Static(current.Load())() }})
	t.Cleanup(func() { o.Close() })

	input := "Add a login endpoint with OAuth2 and write down what the tokenizer should count here."
	first, err := o.RunChain(ctx, ops.ChainRequest{Commands: []string{"implement"}, Input: input})
	if err != nil {
		t.Fatal(err)
	}
	current.Store(estimated.Snapshot())
	if _, err := o.RunChain(ctx, ops.ChainRequest{Commands: []string{"implement"}, Input: input, SessionID: first.SessionID}); err != nil {
		t.Fatal(err)
	}
	exec, err := o.Execution(ctx, ops.SessionRequest{SessionID: first.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	page, err := o.History(ctx, ops.HistoryListRequest{ConversationID: exec.ConversationID})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]tokens.Counter{}
	for _, m := range page.Items {
		c, seen := runs[m.RunID]
		if !seen {
			c = exact.Snapshot().Counter()
			if len(runs) == 1 {
				c = estimated.Snapshot().Counter()
			}
			runs[m.RunID] = c
		}
		if want := c.Count(m.Content); m.Tokens != want {
			t.Errorf("message %d of run %s: %d tokens, want %d (%s)", m.ID, m.RunID, m.Tokens, want, c.Name())
		}
	}
	if len(runs) != 2 {
		t.Fatalf("messages of %d runs, want 2: %+v", len(runs), page.Items)
	}
}

func TestExecutionOperations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o, _ := load(t, tree)
	t.Cleanup(func() { o.Close() })
	changed := 0
	o2 := ops.New(ops.Options{Snapshot: ops.Static(o.Library()), ExecutionsChanged: func() { changed++ }})
	t.Cleanup(func() { o2.Close() })

	es, err := o2.CreateExecution(ctx, ops.CreateExecutionRequest{ProjectName: "p"})
	if err != nil || es.SessionID == "" || !es.IsCurrent {
		t.Fatalf("CreateExecution = %+v, %v", es, err)
	}
	if changed == 0 {
		t.Error("creating an execution did not report a change")
	}
	list, err := o2.Executions(ctx, ops.ExecutionListRequest{})
	if err != nil || len(list.Items) != 1 || list.Current != es.SessionID {
		t.Fatalf("Executions = %+v, %v", list, err)
	}
	if _, err := o2.Executions(ctx, ops.ExecutionListRequest{Cursor: "not a cursor"}); !errors.Is(err, ops.ErrInvalid) {
		t.Errorf("Executions with a bad cursor: %v; want ErrInvalid", err)
	}
	if _, err := o2.StartCommand(ctx, ops.CommandRequest{SessionID: es.SessionID}); !errors.Is(err, ops.ErrInvalid) {
		t.Errorf("StartCommand without command: %v; want ErrInvalid", err)
	}
	if _, err := o2.Execution(ctx, ops.SessionRequest{SessionID: "nope"}); !errors.Is(err, ops.ErrNotFound) {
		t.Errorf("Execution(nope): %v; want ErrNotFound", err)
	}
	keep := false
	other, err := o2.CreateExecution(ctx, ops.CreateExecutionRequest{ProjectName: "q", MakeCurrent: &keep})
	if err != nil || other.IsCurrent {
		t.Fatalf("CreateExecution(makeCurrent false) = %+v, %v", other, err)
	}
	if _, err := o2.DeleteExecution(ctx, ops.DeleteExecutionRequest{SessionID: es.SessionID}); !errors.Is(err, ops.ErrInvalid) {
		t.Errorf("DeleteExecution(current): %v; want ErrInvalid", err)
	}
	del, err := o2.DeleteExecution(ctx, ops.DeleteExecutionRequest{SessionID: other.SessionID})
	if err != nil || del.ConfirmToken == "" || del.Deleted {
		t.Fatalf("DeleteExecution = %+v, %v; want a token", del, err)
	}
	del, err = o2.DeleteExecution(ctx, ops.DeleteExecutionRequest{SessionID: other.SessionID, ConfirmToken: del.ConfirmToken})
	if err != nil || !del.Deleted {
		t.Fatalf("DeleteExecution(confirm) = %+v, %v", del, err)
	}
	if err := o2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := o2.Executions(ctx, ops.ExecutionListRequest{}); !errors.Is(err, ops.ErrUnavailable) {
		t.Errorf("Executions after Close: %v; want ErrUnavailable", err)
	}
}

// ResumePoint looks at the current execution when none is named, and says
// so when there is none; a new execution has no chain to resume.
func TestResumePoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o, _ := load(t, tree)
	t.Cleanup(func() { o.Close() })
	if _, err := o.ResumePoint(ctx, ops.SessionRequest{}); !errors.Is(err, ops.ErrInvalid) {
		t.Errorf("ResumePoint without a current execution: %v; want ErrInvalid", err)
	}
	es, err := o.CreateExecution(ctx, ops.CreateExecutionRequest{ProjectName: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.ResumePoint(ctx, ops.SessionRequest{}); err == nil || !strings.Contains(err.Error(), es.SessionID) || !strings.Contains(err.Error(), "no chain plan") {
		t.Errorf("ResumePoint of a new current execution: %v; want an error that it has no chain plan", err)
	}
	if _, err := o.ResumePoint(ctx, ops.SessionRequest{SessionID: "nope"}); !errors.Is(err, ops.ErrNotFound) {
		t.Errorf("ResumePoint(nope): %v; want ErrNotFound", err)
	}
}

func TestDeleteUnknownConversation(t *testing.T) {
	t.Parallel()
	o, _ := load(t, tree)
	t.Cleanup(func() { o.Close() })
	res, err := o.DeleteConversation(t.Context(), ops.DeleteConversationRequest{ConversationID: "nope"})
	if err != nil || res.Deleted || res.ConfirmToken != "" || res.Message != "nothing to delete" || len(res.Warnings) != 1 {
		t.Errorf("DeleteConversation(unknown) = %+v, %v; want nothing to delete and a warning", res, err)
	}
	if _, err := o.DeleteConversation(t.Context(), ops.DeleteConversationRequest{ConversationID: "nope", ConfirmToken: "forged"}); !errors.Is(err, ops.ErrInvalid) {
		t.Errorf("DeleteConversation(unknown, forged token): %v; want ErrInvalid", err)
	}
}
