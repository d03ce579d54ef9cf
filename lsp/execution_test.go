package lsp

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/ops"
)

// TestExecutionCommandItems records memoryUpdated and skillsInvoked through
// startCommand, recordMemoryLoad and completeCommand, and reads them back
// with getPreviousCommand and get.
func TestExecutionCommandItems(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	var ex ops.ExecutionResponse
	c.mustCall("ctxls/execution/create", map[string]any{"projectName": "shop"}, &ex)
	id := ex.SessionID

	var started ops.CommandResponse
	c.mustCall("ctxls/execution/startCommand", map[string]any{"sessionId": id, "command": "implement",
		"skillsInvoked": []string{"tdd"}}, &started)
	if started.CommandExecution == nil || !slices.Equal(started.SkillsInvoked, []string{"tdd"}) {
		t.Fatalf("startCommand: %+v", started)
	}
	c.mustCall("ctxls/execution/recordMemoryLoad", map[string]any{"sessionId": id, "layer": "project", "key": "stack", "content": "fastapi"}, nil)
	var done ops.CommandResponse
	c.mustCall("ctxls/execution/completeCommand", map[string]any{"sessionId": id, "command": "implement", "status": "success",
		"memoryUpdated": []string{"project:decisions"}, "skillsInvoked": []string{"code-review", "tdd"}}, &done)

	var prev ops.CommandResponse
	c.mustCall("ctxls/execution/getPreviousCommand", map[string]any{"sessionId": id}, &prev)
	var got ops.ExecutionResponse
	c.mustCall("ctxls/execution/get", map[string]any{"sessionId": id}, &got)
	if got.ExecutionState == nil || len(got.CommandHistory) != 1 || done.CommandExecution == nil || prev.CommandExecution == nil {
		t.Fatalf("get: %+v, completeCommand: %+v, getPreviousCommand: %+v", got, done, prev)
	}
	wantMemory, wantSkills := []string{"project:stack", "project:decisions"}, []string{"tdd", "code-review"}
	for name, ce := range map[string]ops.CommandExecution{"completeCommand": *done.CommandExecution, "getPreviousCommand": *prev.CommandExecution, "get": got.CommandHistory[0]} {
		if ce.Command != "implement" || !slices.Equal(ce.MemoryUpdated, wantMemory) || !slices.Equal(ce.SkillsInvoked, wantSkills) {
			t.Errorf("%s: %+v, want memoryUpdated %q and skillsInvoked %q", name, ce, wantMemory, wantSkills)
		}
	}

	for _, bad := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"memory entry without layer", map[string]any{"memoryUpdated": []string{"stack"}}, "want layer:key"},
		{"empty skill", map[string]any{"skillsInvoked": []string{""}}, "skillsInvoked entry is empty"},
		{"skills not a list", map[string]any{"skillsInvoked": "tdd"}, "skillsInvoked"},
	} {
		params := map[string]any{"sessionId": id, "command": "test"}
		for k, v := range bad.params {
			params[k] = v
		}
		if e := c.callErr("ctxls/execution/startCommand", params); e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, bad.want) {
			t.Errorf("%s: %v, want InvalidParams mentioning %q", bad.name, e, bad.want)
		}
	}
}
