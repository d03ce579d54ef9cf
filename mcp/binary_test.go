package mcp

import (
	"encoding/json"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/context/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// TestBinaryOverCommandTransport starts the built ctxls binary as an
// agent does and talks to it through the SDK's client.
func TestBinaryOverCommandTransport(t *testing.T) {
	t.Parallel()
	bin := buildCtxls(t)
	dir := libtest.WriteTree(t, fixture())
	cmd := exec.Command(bin, "mcp", "--dir", dir)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "test"}, nil).
		Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to ctxls mcp: %v", err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "ctxls" {
		t.Errorf("server name %q", got)
	}

	var out ops.LoadContextResult
	text, isErr := call(t, cs, "load_context", map[string]any{"refs": []string{"web:api#Routing"}, "budgetTokens": 1000}, &out)
	if isErr || len(out.Loaded) != 1 || !strings.Contains(out.Text, "routing detail") || out.Tokens > 1000 {
		t.Errorf("load_context: error=%v %q %+v", isErr, text, out)
	}
	text, isErr = call(t, cs, "load_context", map[string]any{"refs": []string{"../../etc/passwd.md"}}, nil)
	if !isErr || !strings.Contains(text, "outside the workspace") {
		t.Errorf("load_context outside the root: error=%v %q", isErr, text)
	}
	res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctxls://topics/ops/deploy"})
	if err != nil || !strings.Contains(res.Contents[0].Text, "rollback detail") {
		t.Errorf("read ops/deploy: %v", err)
	}

	// session_cost answers what ctxls cost --format json prints.
	cost, err := exec.Command(bin, "cost", "--dir", dir, "--agent", "claude", "--format", "json").Output()
	if err != nil {
		t.Fatalf("ctxls cost: %v", err)
	}
	var fromCLI, fromTool any
	if err := json.Unmarshal(cost, &fromCLI); err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, cs, "session_cost", map[string]any{"agent": "claude"}, &fromTool); isErr {
		t.Fatalf("session_cost: %s", text)
	}
	if !reflect.DeepEqual(fromCLI, fromTool) {
		t.Errorf("session_cost %v\nctxls cost --format json %v", fromTool, fromCLI)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Errorf("ctxls mcp still running after the client closed")
	} else if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("ctxls mcp exited with %d", code)
	}
}
