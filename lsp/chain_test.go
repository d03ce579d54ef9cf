package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
	"github.com/ctxls/ctxls/providers/runs/storage"
)

// The tests in this file drive `ctxls serve` over stdio with the test
// client (client_test.go), and run chains with a stand-in agent program
// (providers/runs/chain/testdata/agent).

// chainAgent builds the stand-in agent next to the ctxls binary, once.
func chainAgent(t testing.TB) string { return stdioBuilt(t, chainBuildAgent) }

var chainBuildAgent = sync.OnceValues(func() (string, error) { return chaintest.BuildAgent(stdioTempDir) })

// chainWorkspace copies the example library and sets its executor to the
// agent with flags (none: the preview executor). The agent logs its runs to
// the returned file.
func chainWorkspace(t testing.TB, timeout string, flags ...string) (dir, log string) {
	t.Helper()
	dir = libtest.CopyExample(t)
	log = filepath.Join(t.TempDir(), "agent.log")
	if flags != nil {
		chaintest.UseExecutor(t, dir, append([]string{chainAgent(t), "-log", log}, flags...), timeout)
	}
	return dir, log
}

// chainAgentRuns returns the agent's runs as command#attempt.
func chainAgentRuns(t testing.TB, log string) string {
	t.Helper()
	return strings.Join(chaintest.Runs(t, log), " ")
}

// chainRPCError is a JSON-RPC error response.
type chainRPCError = ClientRPCError

// chainClient is the test client over `ctxls serve`, with the calls the
// chain tests make.
type chainClient struct {
	*Client
}

// chainStart starts `ctxls serve` in dir and initializes it.
func chainStart(t testing.TB, dir string) *chainClient {
	t.Helper()
	c := &chainClient{StartClient(t, dir, stdioBinaryPath(t), "serve")}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	caps := map[string]any{"window": map[string]any{"workDoneProgress": true}}
	if _, err := c.Initialize(ctx, dir, caps, nil); err != nil {
		t.Fatalf("initialize: %v\n%s", err, c.Stderr())
	}
	return c
}

func (c *chainClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.Notify(method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// send sends a request and returns its id and the channel its response
// arrives on.
func (c *chainClient) send(method string, params any) (json.RawMessage, <-chan stdioMessage) {
	c.t.Helper()
	id, ch, err := c.Send(method, params)
	if err != nil {
		c.t.Fatal(err)
	}
	return id, ch
}

// await waits for a response and decodes its result into out.
func (c *chainClient) await(ctx context.Context, ch <-chan stdioMessage, out any) error {
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("server exited: %s", c.Stderr())
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *chainClient) call(ctx context.Context, method string, params, out any) error {
	return c.Call(ctx, method, params, out)
}

// must calls a method and fails the test on error.
func (c *chainClient) must(method string, params, out any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.call(ctx, method, params, out); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// rpcErr calls a method that must fail and returns the error.
func (c *chainClient) rpcErr(method string, params any) *chainRPCError {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := c.call(ctx, method, params, nil)
	var re *chainRPCError
	if !errors.As(err, &re) {
		c.t.Fatalf("%s %v: want an error response, got %v", method, params, err)
	}
	return re
}

func (c *chainClient) progressValues() []map[string]any {
	var out []map[string]any
	for _, n := range c.Notifications("$/progress") {
		var v struct {
			Token any            `json:"token"`
			Value map[string]any `json:"value"`
		}
		if json.Unmarshal(n.Params, &v) == nil && fmt.Sprint(v.Token) == "chain-progress" {
			out = append(out, v.Value)
		}
	}
	return out
}

// chainBeginToken returns the token of a cancellable progress whose title
// names a chain.
func (c *chainClient) chainBeginToken() (json.RawMessage, bool) {
	for _, p := range c.Progress() {
		if p.Value.Kind == "begin" && p.Value.Cancellable && strings.HasPrefix(p.Value.Title, "Chain ") {
			return p.Token, true
		}
	}
	return nil, false
}

func chainStatuses(r ops.ChainResponse) string {
	var s []string
	for _, st := range r.Steps {
		s = append(s, st.Command+":"+st.Status)
	}
	return strings.Join(s, " ")
}

// TestChainExecutionMethods walks the ExecutionContext of the seed
// interface and the execution management methods over stdio.
func TestChainExecutionMethods(t *testing.T) {
	t.Parallel()
	dir, _ := chainWorkspace(t, "")
	c := chainStart(t, dir)

	var ex ops.ExecutionResponse
	c.must("ctxls/execution/create", map[string]any{"projectName": "shop", "projectType": "python"}, &ex)
	if ex.SessionID == "" || !ex.IsCurrent || ex.State != "new" || ex.ProjectType != "python" || ex.Warnings == nil {
		t.Fatalf("create: %+v", ex)
	}
	id := ex.SessionID
	var again ops.ExecutionState
	c.must("ctxls/execution/getOrCreate", map[string]any{"projectName": "shop"}, &again)
	if again.SessionID != id {
		t.Fatalf("getOrCreate gave %s, want the current %s", again.SessionID, id)
	}

	var cmd ops.CommandExecution
	c.must("ctxls/execution/startCommand", map[string]any{"sessionId": id, "command": "implement", "inputs": map[string]any{"task": "sort"}}, &cmd)
	if cmd.Status != "running" || cmd.Attempts != 1 || string(cmd.Inputs["task"]) != `"sort"` {
		t.Fatalf("startCommand: %+v", cmd)
	}
	var rec struct {
		Recorded bool `json:"recorded"`
		Bytes    int  `json:"bytes"`
	}
	c.must("ctxls/execution/recordContextLoad", map[string]any{"sessionId": id, "domain": "python", "topic": "fastapi_patterns"}, &rec)
	if !rec.Recorded || rec.Bytes < 1000 {
		t.Fatalf("recordContextLoad without content: %+v", rec)
	}
	c.must("ctxls/execution/recordContextLoad", map[string]any{"sessionId": id, "domain": "notes", "topic": "mine", "content": "my notes"}, &rec)
	var cached struct {
		Cached  bool    `json:"cached"`
		Content *string `json:"content"`
	}
	c.must("ctxls/execution/getCachedContext", map[string]any{"sessionId": id, "domain": "python", "topic": "fastapi_patterns"}, &cached)
	if !cached.Cached || cached.Content == nil || !strings.Contains(*cached.Content, "FastAPI") {
		t.Fatalf("getCachedContext hit: %+v", cached)
	}
	c.must("ctxls/execution/getCachedContext", map[string]any{"sessionId": id, "domain": "python", "topic": "django_patterns"}, &cached)
	if cached.Cached || cached.Content != nil {
		t.Fatalf("getCachedContext miss: %+v", cached)
	}
	c.must("ctxls/execution/recordMemoryLoad", map[string]any{"sessionId": id, "layer": "project", "key": "stack", "content": "fastapi"}, &rec)
	c.must("ctxls/execution/getCachedMemory", map[string]any{"sessionId": id, "layer": "project", "key": "stack"}, &cached)
	if !cached.Cached || *cached.Content != "fastapi" {
		t.Fatalf("getCachedMemory: %+v", cached)
	}
	c.must("ctxls/execution/setSharedData", map[string]any{"sessionId": id, "key": "plan", "value": map[string]any{"steps": []int{1, 2}}}, nil)
	var shared struct {
		Found bool            `json:"found"`
		Value json.RawMessage `json:"value"`
	}
	c.must("ctxls/execution/getSharedData", map[string]any{"sessionId": id, "key": "plan"}, &shared)
	if !shared.Found || string(shared.Value) != `{"steps":[1,2]}` {
		t.Fatalf("getSharedData: %+v %s", shared, shared.Value)
	}
	c.must("ctxls/execution/getSharedData", map[string]any{"sessionId": id, "key": "nothing"}, &shared)
	if shared.Found || string(shared.Value) != "null" {
		t.Fatalf("getSharedData of a missing key: %+v", shared)
	}
	var prev *ops.CommandExecution
	c.must("ctxls/execution/getPreviousCommand", map[string]any{"sessionId": id}, &prev)
	if prev != nil {
		t.Fatalf("previous command while the only one runs: %+v", prev)
	}
	c.must("ctxls/execution/completeCommand", map[string]any{"sessionId": id, "command": "implement", "status": "success", "outputs": map[string]any{"files": 2}}, &cmd)
	if cmd.Status != "success" || cmd.CompletedAt == nil || len(cmd.ContextLoaded) != 2 || cmd.ContextLoaded[0] != "python:fastapi_patterns" {
		t.Fatalf("completeCommand: %+v", cmd)
	}
	c.must("ctxls/execution/getPreviousCommand", map[string]any{"sessionId": id, "command": "implement"}, &prev)
	if prev == nil || prev.Command != "implement" || string(prev.Outputs["files"]) != "2" {
		t.Fatalf("getPreviousCommand: %+v", prev)
	}

	// Management.
	var other ops.ExecutionState
	c.must("ctxls/execution/create", map[string]any{"projectName": "other"}, &other)
	var list ops.ExecutionListResponse
	c.must("ctxls/execution/list", map[string]any{}, &list)
	if len(list.Items) != 2 || list.Current != other.SessionID || !list.Items[0].IsCurrent || list.Items[0].SessionID != other.SessionID {
		t.Fatalf("list: %+v", list)
	}
	first := list.Items[1]
	if first.ProjectName != "shop" || first.State != "completed" || first.Created.IsZero() || first.IsCurrent ||
		first.Summary.CurrentCommand != "implement" || first.Summary.CommandsCompleted != 1 {
		t.Fatalf("list item: %+v", first)
	}
	var got ops.ExecutionState
	c.must("ctxls/execution/get", map[string]any{}, &got)
	if got.SessionID != other.SessionID {
		t.Fatalf("get without sessionId gave %s, want the current %s", got.SessionID, other.SessionID)
	}
	c.must("ctxls/execution/get", map[string]any{"sessionId": id}, &got)
	if got.LoadedMemory["project:stack"] != "fastapi" || len(got.CommandHistory) != 1 || string(got.SharedData["plan"]) != `{"steps":[1,2]}` {
		t.Fatalf("get: %+v", got)
	}

	// The current execution cannot be deleted.
	if e := c.rpcErr("ctxls/execution/delete", map[string]any{"sessionId": other.SessionID}); !strings.Contains(e.Message, "current execution cannot be deleted") {
		t.Fatalf("delete current: %v", e)
	}
	var del ops.DeleteExecutionResponse
	c.must("ctxls/execution/delete", map[string]any{"sessionId": id}, &del)
	if len(del.ConfirmToken) < 20 || del.Deleted || del.ExpiresAt == nil {
		t.Fatalf("delete request: %+v", del)
	}
	token := del.ConfirmToken
	// A token of another execution, or a made-up one, deletes nothing.
	if e := c.rpcErr("ctxls/execution/delete", map[string]any{"sessionId": other.SessionID, "confirmToken": token}); e.Code != -32602 {
		t.Fatalf("token of another execution: %v", e)
	}
	c.must("ctxls/execution/delete", map[string]any{"sessionId": id}, &del) // a fresh token
	if e := c.rpcErr("ctxls/execution/delete", map[string]any{"sessionId": id, "confirmToken": "AAAAAAAAAAAAAAAAAAAAAAAAAA"}); !strings.Contains(e.Message, "invalid delete confirmation token") {
		t.Fatalf("made-up token: %v", e)
	}
	c.must("ctxls/execution/delete", map[string]any{"sessionId": id}, &del)
	c.must("ctxls/execution/delete", map[string]any{"sessionId": id, "confirmToken": del.ConfirmToken}, &del)
	if !del.Deleted {
		t.Fatalf("confirm: %+v", del)
	}
	c.must("ctxls/execution/list", map[string]any{}, &list)
	if len(list.Items) != 1 {
		t.Fatalf("%d executions after delete", len(list.Items))
	}
	c.must("ctxls/execution/setCurrent", map[string]any{"sessionId": other.SessionID}, nil)

	// Bad input gets clear errors.
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{"ctxls/execution/startCommand", map[string]any{"command": "x"}, "sessionId is required"},
		{"ctxls/execution/startCommand", map[string]any{"sessionId": "nope", "command": "x"}, `execution "nope": not found`},
		{"ctxls/execution/startCommand", map[string]any{"sessionId": 5}, "sessionId must be a string, not a number"},
		{"ctxls/execution/completeCommand", map[string]any{"sessionId": other.SessionID, "command": "x", "status": "great"}, "want success, partial or failed"},
		{"ctxls/execution/completeCommand", map[string]any{"sessionId": other.SessionID, "command": "x"}, "no running command"},
		{"ctxls/execution/create", map[string]any{}, "projectName is required"},
		{"ctxls/execution/setSharedData", map[string]any{"sessionId": other.SessionID, "key": "k"}, "value is required"},
		{"ctxls/execution/get", map[string]any{"sessionId": "gone"}, "not found"},
		{"ctxls/execution/setCurrent", map[string]any{"sessionId": "gone"}, "not found"},
	} {
		e := c.rpcErr(tc.method, tc.params)
		if e.Code != -32602 || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s %v: %v, want InvalidParams with %q", tc.method, tc.params, e, tc.want)
		}
	}
}

// TestExecutionCommandItems records memoryUpdated and skillsInvoked through
// startCommand, recordMemoryLoad and completeCommand, and reads them back
// with getPreviousCommand and get, on the in-process server.
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
		if e := c.callErr("ctxls/execution/startCommand", params); e.Code != -32602 || !strings.Contains(e.Message, bad.want) {
			t.Errorf("%s: %v, want InvalidParams mentioning %q", bad.name, e, bad.want)
		}
	}
}

// TestChainRunOverStdio lists, previews and runs a chain with the agent,
// with $/progress on the request's token.
func TestChainRunOverStdio(t *testing.T) {
	t.Parallel()
	dir, log := chainWorkspace(t, "30s")
	c := chainStart(t, dir)

	var chains struct {
		Items []struct {
			Name     string   `json:"name"`
			Commands []string `json:"commands"`
		} `json:"items"`
		Warnings []any `json:"warnings"`
	}
	c.must("ctxls/chain/list", map[string]any{}, &chains)
	if len(chains.Items) != 2 || chains.Items[0].Name != "feature" || strings.Join(chains.Items[0].Commands, ",") != "brainstorm,implement,test" {
		t.Fatalf("chain/list: %+v", chains)
	}
	var pv ops.ChainResponse
	c.must("ctxls/chain/preview", map[string]any{"commands": []string{"brainstorm", "implement", "test"}, "input": "add sorting"}, &pv)
	if len(pv.Steps) != 3 || pv.Steps[1].CacheHits == 0 || pv.TotalTokens < 3000 || pv.SessionID != "" {
		t.Fatalf("preview: %+v", pv)
	}
	var hit bool
	for _, it := range pv.Steps[1].Context {
		hit = hit || it.Reference == "python:common_issues" && it.Cached
	}
	if !hit {
		t.Fatalf("preview does not mark python:common_issues cached in implement: %+v", pv.Steps[1].Context)
	}
	if e := c.rpcErr("ctxls/chain/preview", map[string]any{"commands": []string{"brainstrom"}}); !strings.Contains(e.Message, "available commands: brainstorm, implement, review, ship, test") {
		t.Fatalf("unknown command: %v", e)
	}
	if e := c.rpcErr("ctxls/chain/run", map[string]any{"commands": []string{}}); e.Code != -32602 {
		t.Fatalf("empty chain: %v", e)
	}
	if chainAgentRuns(t, log) != "" {
		t.Fatal("a preview ran the agent")
	}

	// The preview executor is the default of the example library.
	var res ops.ChainResponse
	c.must("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm", "implement", "test"}, "input": "add sorting",
		"projectName": "shop", "workDoneToken": "chain-progress"}, &res)
	if res.State != "completed" || chainStatuses(res) != "brainstorm:success implement:success test:success" {
		t.Fatalf("run: %s %s", res.State, chainStatuses(res))
	}
	var kinds []string
	for _, v := range c.progressValues() {
		kinds = append(kinds, fmt.Sprint(v["kind"]))
	}
	if got := strings.Join(kinds, ","); got != "begin,report,report,report,report,report,report,end" {
		t.Fatalf("progress: %s", got)
	}
	if c.progressValues()[0]["cancellable"] != true {
		t.Fatalf("progress begin is not cancellable: %v", c.progressValues()[0])
	}
	var ex ops.ExecutionState
	c.must("ctxls/execution/get", map[string]any{"sessionId": res.SessionID}, &ex)
	if ex.ProjectName != "shop" || !ex.IsCurrent || len(ex.CommandHistory) != 3 || ex.State != "completed" {
		t.Fatalf("execution after run: %+v", ex)
	}
}

// TestChainNamedOverStdio previews and runs a chain by the name
// .ctxls.yaml gives it; a command of the same name would win.
func TestChainNamedOverStdio(t *testing.T) {
	t.Parallel()
	dir, _ := chainWorkspace(t, "30s")
	c := chainStart(t, dir)
	for _, method := range []string{"ctxls/chain/preview", "ctxls/chain/run"} {
		var res ops.ChainResponse
		c.must(method, map[string]any{"commands": []string{"feature"}, "input": "add sorting"}, &res)
		var cmds []string
		for _, st := range res.Steps {
			cmds = append(cmds, st.Command)
		}
		if got := strings.Join(cmds, " "); got != "brainstorm implement test" {
			t.Fatalf("%s feature: steps %q", method, got)
		}
		if method == "ctxls/chain/run" && res.State != "completed" {
			t.Fatalf("run feature: %s %s", res.State, chainStatuses(res))
		}
	}
	// review is both a command and a chain: the command runs.
	var res ops.ChainResponse
	c.must("ctxls/chain/run", map[string]any{"commands": []string{"review"}}, &res)
	if chainStatuses(res) != "review:success" {
		t.Fatalf("run review: %s", chainStatuses(res))
	}
}

// TestChainModelOverStdio: previews, runs and resumes fit their prompts to
// the window of the model they name, the default model without one.
func TestChainModelOverStdio(t *testing.T) {
	t.Parallel()
	dir, _ := chainWorkspace(t, "30s")
	chaintest.EditConfig(t, dir, "contextWindow: 8192", "contextWindow: 3000", "defaultModel: large", "defaultModel: small")
	c := chainStart(t, dir)
	feature := []string{"brainstorm", "implement", "test"}
	for _, tc := range []struct {
		model    string
		window   int
		wantCuts bool
	}{
		{"", 3000, true},
		{"small", 3000, true},
		{"large", 200000, false},
	} {
		var pv ops.ChainResponse
		c.must("ctxls/chain/preview", map[string]any{"commands": feature, "input": "add sorting", "model": tc.model}, &pv)
		cut, largest := false, 0
		for _, st := range pv.Steps {
			cut = cut || len(st.Cuts) > 0
			largest = max(largest, st.PromptTokens)
		}
		if pv.Model.Window != tc.window || cut != tc.wantCuts || largest > tc.window || !tc.wantCuts && largest <= 3000 {
			t.Errorf("preview with model %q: window %d, cuts %v, largest prompt %d", tc.model, pv.Model.Window, cut, largest)
		}
	}
	if e := c.rpcErr("ctxls/chain/run", map[string]any{"commands": feature, "model": "huge"}); e.Code != -32602 || !strings.Contains(e.Message, `unknown model "huge" (models: large, small)`) {
		t.Fatalf("unknown model: %v", e)
	}
	var res ops.ChainResponse
	c.must("ctxls/chain/run", map[string]any{"commands": feature, "input": "add sorting"}, &res)
	if res.State != "completed" || res.Model.Model != "small" || len(res.Steps[2].Cuts) == 0 {
		t.Fatalf("run: %s, model %+v, last step cuts %v", res.State, res.Model, res.Steps[2].Cuts)
	}
	if e := c.rpcErr("ctxls/chain/resume", map[string]any{"sessionId": res.SessionID, "model": "huge"}); e.Code != -32602 {
		t.Fatalf("resume with an unknown model: %v", e)
	}
	c.must("ctxls/chain/resume", map[string]any{"sessionId": res.SessionID, "model": "large"}, &res)
	if res.State != "completed" || res.Model.Model != "large" {
		t.Fatalf("resume: %s, model %+v", res.State, res.Model)
	}
}

// chainIntegrity checks the workspace database's integrity and foreign keys.
func chainIntegrity(t testing.TB, dir string) {
	t.Helper()
	db, err := storage.OpenWorkspace(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %s %v", res, err)
	}
	rows, err := db.SQL().Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Fatal("foreign_key_check reports problems")
	}
}

// TestChainTwoServers runs chains from two server processes on one
// workspace at once; every step of every chain is recorded, and a chain one
// server runs cannot be resumed by the other meanwhile.
func TestChainTwoServers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts two servers")
	}
	dir, _ := chainWorkspace(t, "30s", "-hang", "review")
	a, b := chainStart(t, dir), chainStart(t, dir)
	const n = 6
	var wg sync.WaitGroup
	results := make([][]ops.ChainResponse, 2)
	for i, c := range []*chainClient{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range n {
				var res ops.ChainResponse
				ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
				err := c.call(ctx, "ctxls/chain/run", map[string]any{"commands": []string{"brainstorm", "implement", "test"},
					"input": fmt.Sprintf("task %d of server %d", j, i), "projectName": fmt.Sprintf("server-%d", i)}, &res)
				cancel()
				if err != nil {
					t.Errorf("server %d run %d: %v", i, j, err)
					return
				}
				results[i] = append(results[i], res)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var list ops.ExecutionListResponse
	a.must("ctxls/execution/list", map[string]any{}, &list)
	if len(list.Items) != 2*n {
		t.Fatalf("%d executions listed, want %d", len(list.Items), 2*n)
	}
	for i, rs := range results {
		for _, r := range rs {
			var ex ops.ExecutionState
			b.must("ctxls/execution/get", map[string]any{"sessionId": r.SessionID}, &ex)
			if r.State != "completed" || ex.State != "completed" || len(ex.CommandHistory) != 3 || len(ex.SharedData) != 3 ||
				ex.ProjectName != fmt.Sprintf("server-%d", i) {
				t.Fatalf("execution %s of server %d: %s, %d commands, shared %v", r.SessionID, i, ex.State, len(ex.CommandHistory), ex.SharedData)
			}
		}
	}

	// A chain running in a cannot be resumed by b.
	var ex ops.ExecutionState
	a.must("ctxls/execution/create", map[string]any{"projectName": "conflict"}, &ex)
	_, ch := a.send("ctxls/chain/run", map[string]any{"commands": []string{"review"}, "sessionId": ex.SessionID})
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got ops.ExecutionState
		b.must("ctxls/execution/get", map[string]any{"sessionId": ex.SessionID}, &got)
		if got.State == "running" && len(got.CommandHistory) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the review chain did not start: %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if e := b.rpcErr("ctxls/chain/resume", map[string]any{"sessionId": ex.SessionID}); e.Code != -32001 || !strings.Contains(e.Message, "running in another process") {
		t.Fatalf("resume from the other server: %v", e)
	}
	if e := a.rpcErr("ctxls/execution/startCommand", map[string]any{"sessionId": ex.SessionID, "command": "review"}); e.Code != -32001 {
		t.Fatalf("startCommand by hand during the chain: %v", e)
	}
	if e := a.rpcErr("ctxls/chain/run", map[string]any{"commands": []string{"test"}, "sessionId": ex.SessionID}); e.Code != -32001 || !strings.Contains(e.Message, "a chain is already running in execution "+ex.SessionID+" in this process") {
		t.Fatalf("second run in the same server: %v", e)
	}
	a.must("ctxls/chain/cancel", map[string]any{"sessionId": ex.SessionID}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res ops.ChainResponse
	if err := a.await(ctx, ch, &res); err != nil || res.State != "interrupted" {
		t.Fatalf("cancelled review: %v %+v", err, res)
	}
	chainIntegrity(t, dir)
}

// TestChainExecutorConfirmation lists the exec executor that .ctxls.yaml
// configures, with its command line, and runs a chain only while that
// command line is the one the client confirmed: after .ctxls.yaml names
// another program, a run or resume with the old one is refused and runs
// nothing.
func TestChainExecutorConfirmation(t *testing.T) {
	t.Parallel()
	dir, log := chainWorkspace(t, "30s", "-sleep", "0s")
	c := chainStart(t, dir)

	var list struct {
		Executor struct {
			Kind    string   `json:"kind"`
			Command []string `json:"command"`
		} `json:"executor"`
	}
	c.must("ctxls/chain/list", map[string]any{}, &list)
	argv := list.Executor.Command
	if list.Executor.Kind != "exec" || len(argv) < 3 || argv[0] != chainAgent(t) || argv[1] != "-log" {
		t.Fatalf("chain/list executor = %+v, want the agent's command line", list.Executor)
	}

	// Confirmed nothing, or something else: refused, nothing runs.
	for _, confirmed := range [][]string{{}, {"something", "else"}} {
		e := c.rpcErr("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": "x", "executorCommand": confirmed})
		if e.Code != -32602 || !strings.Contains(e.Message, "confirm it again") || !strings.Contains(e.Message, argv[0]) {
			t.Fatalf("run with executorCommand %q: %v", confirmed, e)
		}
	}
	if got := chainAgentRuns(t, log); got != "" {
		t.Fatalf("a refused run ran the agent: %s", got)
	}

	// The confirmed command line runs.
	var res ops.ChainResponse
	c.must("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": "x", "executorCommand": argv}, &res)
	if res.State != "completed" || chainAgentRuns(t, log) == "" {
		t.Fatalf("confirmed run: %s, agent runs %q", res.State, chainAgentRuns(t, log))
	}

	// .ctxls.yaml now names another program: what was confirmed no longer
	// holds, for resume as for run.
	old, _ := json.Marshal(argv)
	other := slices.Concat(argv, []string{"-extra"})
	repl, _ := json.Marshal(other)
	cfgPath := chaintest.EditConfig(t, dir, string(old), string(repl))
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": "file://" + cfgPath, "type": 2}}})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c.must("ctxls/chain/list", map[string]any{}, &list)
		if slices.Equal(list.Executor.Command, other) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chain/list still lists %q after .ctxls.yaml changed", list.Executor.Command)
		}
	}
	runs := chainAgentRuns(t, log)
	e := c.rpcErr("ctxls/chain/resume", map[string]any{"sessionId": res.SessionID, "executorCommand": argv})
	if e.Code != -32602 || !strings.Contains(e.Message, "-extra") {
		t.Fatalf("resume with the old command line: %v", e)
	}
	if got := chainAgentRuns(t, log); got != runs {
		t.Fatalf("a refused resume ran the agent: %s", got)
	}
}
