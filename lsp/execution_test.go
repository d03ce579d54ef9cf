package lsp

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// executionCommand is a CommandExecution as the protocol sends it.
type executionCommand struct {
	Command       string   `json:"command"`
	Status        string   `json:"status"`
	Attempts      int      `json:"attempts"`
	MemoryUpdated []string `json:"memoryUpdated"`
	SkillsInvoked []string `json:"skillsInvoked"`
}

// TestExecutionCommandItems records memoryUpdated and skillsInvoked through
// startCommand, recordMemoryLoad and completeCommand, and reads them back
// with getPreviousCommand and get.
func TestExecutionCommandItems(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	var ex struct {
		SessionID string `json:"sessionId"`
	}
	c.mustCall("ctxls/execution/create", map[string]any{"projectName": "shop"}, &ex)
	id := ex.SessionID

	var started executionCommand
	c.mustCall("ctxls/execution/startCommand", map[string]any{"sessionId": id, "command": "implement",
		"skillsInvoked": []string{"tdd"}}, &started)
	if !slices.Equal(started.SkillsInvoked, []string{"tdd"}) {
		t.Fatalf("startCommand: %+v", started)
	}
	c.mustCall("ctxls/execution/recordMemoryLoad", map[string]any{"sessionId": id, "layer": "project", "key": "stack", "content": "fastapi"}, nil)
	var done executionCommand
	c.mustCall("ctxls/execution/completeCommand", map[string]any{"sessionId": id, "command": "implement", "status": "success",
		"memoryUpdated": []string{"project:decisions"}, "skillsInvoked": []string{"code-review", "tdd"}}, &done)

	var prev executionCommand
	c.mustCall("ctxls/execution/getPreviousCommand", map[string]any{"sessionId": id}, &prev)
	var got struct {
		CommandHistory []executionCommand `json:"commandHistory"`
	}
	c.mustCall("ctxls/execution/get", map[string]any{"sessionId": id}, &got)
	if len(got.CommandHistory) != 1 {
		t.Fatalf("get: %+v", got)
	}
	wantMemory, wantSkills := []string{"project:stack", "project:decisions"}, []string{"tdd", "code-review"}
	for name, ce := range map[string]executionCommand{"completeCommand": done, "getPreviousCommand": prev, "get": got.CommandHistory[0]} {
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
		err := c.call("ctxls/execution/startCommand", params, nil)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, bad.want) {
			t.Errorf("%s: %v, want InvalidParams mentioning %q", bad.name, err, bad.want)
		}
	}
}
