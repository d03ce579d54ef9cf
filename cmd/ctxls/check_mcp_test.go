package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/ops"
)

// The MCP check tool of ctxls mcp, over stdio, reports the same
// diagnostics as ctxls check --format json: library, agent files, memory
// imports and configuration alike.
func TestCheckAgreesWithMCP(t *testing.T) {
	t.Parallel()
	dir := agentWorkspace(t, map[string]string{
		"CLAUDE.md":   "# Project\n\nSee @docs/missing.md for more.\n",
		".ctxls.yaml": "tokenizer: nope\n",
	})
	out := runExit(t, 1, "check", dir, "--format", "json")
	cli := decodeRecords(t, out)
	codes := codesOf(cli)
	for _, code := range []string{"frontmatter-parse-error", "skill-name-mismatch", "plugin-field-invalid", "import-missing", "config"} {
		if _, ok := codes[code]; !ok {
			t.Errorf("the fixture gives no %s diagnostic: %v", code, codes)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	var serverErr bytes.Buffer
	go func() {
		err := run(ctx, []string{"mcp", "--dir", dir}, serverIn, serverOut, &serverErr)
		serverOut.Close()
		done <- err
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "test"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect to ctxls mcp: %v (stderr %q)", err, serverErr.String())
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "check", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("check tool: %v", err)
	}
	if res.IsError {
		t.Fatalf("check tool failed: %+v", res.Content)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var viaMCP struct {
		Items []ops.Diagnostic `json:"items"`
	}
	if err := json.Unmarshal(b, &viaMCP); err != nil {
		t.Fatalf("check tool result %s: %v", b, err)
	}
	cs.Close()
	clientOut.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ctxls mcp: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("ctxls mcp did not end when the client closed the session")
	}
	if !reflect.DeepEqual(viaMCP.Items, cli) {
		t.Errorf("MCP check and ctxls check --format json differ:\nmcp: %+v\ncli: %+v", viaMCP.Items, cli)
	}
}
