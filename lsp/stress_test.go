package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// stressResidentLimit is the most resident memory the server may reach
// under the flood of TestStdioFloodBoundedMemory. The server peaks near
// 110 MB when the client reads the answers as they come, and up to 190 MB
// when it reads them slowly (a test binary built with -race), since
// answers wait in memory to be written; with every request let through
// at once (the heavy requests' semaphore disabled), above 300 MB.
const stressResidentLimit = 250 << 20

// stressPeakResident returns the peak resident memory of a process, from
// VmHWM in /proc/PID/status.
func stressPeakResident(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmHWM %q: %w", rest, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// stressDenseReferences is how many references the dense document of
// TestStdioFloodBoundedMemory holds: more references to its topic than
// maxReferences, more distinct paths than a chain preview resolves and
// more links than maxDocumentLinks, so every bound is reached.
const stressDenseReferences = 50_000

// TestStdioFloodBoundedMemory opens a reference-dense document and floods
// the server with pipelined requests of every custom method: forty
// reference requests, twenty of each other request that prices or walks
// the whole document, ten of most others, and four chain previews (twice
// the heavy requests the server runs at once, enough to queue them; each
// costs as much as several of the others). The server must answer them
// all, stay alive, and keep its resident peak under stressResidentLimit.
// A server that ran the forty reference requests at once, each holding
// its walk of the whole document, would peak above it.
func TestStdioFloodBoundedMemory(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads the resident peak from /proc")
	}
	heavy := 20
	if s := os.Getenv("CTXLS_STRESS_HEAVY"); s != "" {
		// Another flood, for measuring servers that do not bound memory.
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("CTXLS_STRESS_HEAVY=%q: %v", s, err)
		}
		heavy = n
	}
	// The server runs with the memory settings ctxls serve chooses, not
	// with those of the environment the tests run in:
	// CTXLS_STRESS_GOMEMLIMIT (for instance "off") measures it under
	// another soft limit.
	env := []string{"GOGC=", "GOMEMLIMIT=" + os.Getenv("CTXLS_STRESS_GOMEMLIMIT")}
	root := stdioWorkspace(t)
	testtree.WriteFiles(t, root, map[string]string{"context/python/a.md": libtest.DenseTopic})
	dense := filepath.Join(root, "commands", "dense.md")
	text := libtest.DenseCommand(stressDenseReferences)
	if len(text) >= 8<<20 {
		t.Fatalf("dense document is %d bytes, over the file limit", len(text))
	}
	testtree.Write(t, dense, text)
	c := startClientEnv(t, root, env, stdioBinaryPath(t), "serve", "--stdio")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	uri := stdioFileURI(dense)
	if err := c.DidOpen(uri, text); err != nil {
		t.Fatalf("didOpen: %v", err)
	}

	doc := map[string]any{"uri": uri}
	onRef := stdioPos(uri, 5, 2)["position"] // in the first python:a
	type call struct {
		method string
		params map[string]any
		n      int
	}
	calls := []call{
		{"ctxls/commands", map[string]any{}, heavy},
		{"ctxls/documentCost", map[string]any{"uri": uri}, heavy},
		{"ctxls/catalog", map[string]any{}, 10},
		{"ctxls/domainIndex", map[string]any{"domain": "python"}, 10},
		{"ctxls/loadingProtocol", map[string]any{}, 10},
		{"ctxls/search", map[string]any{"query": "fastapi"}, 10},
		{"ctxls/alwaysLoadFiles", map[string]any{}, 10},
		{"ctxls/detectProjectType", map[string]any{}, 10},
		{"ctxls/conditionalContext", map[string]any{}, 10},
		{"ctxls/crossDomainContext", map[string]any{"domain": "python"}, 10},
		{"ctxls/reference", map[string]any{"domain": "python", "topic": "fastapi_patterns"}, 10},
		{"ctxls/materialize", map[string]any{"domain": "python", "topic": "fastapi_patterns"}, 10},
		{"ctxls/materializeSections", map[string]any{"domain": "python", "topic": "fastapi_patterns"}, 10},
		{"ctxls/invalidate", map[string]any{}, 2},
		{"ctxls/execution/create", map[string]any{"projectName": "flood"}, 2},
		{"ctxls/execution/getOrCreate", map[string]any{"projectName": "flood"}, 2},
		{"ctxls/execution/startCommand", map[string]any{}, 10},
		{"ctxls/execution/completeCommand", map[string]any{}, 10},
		{"ctxls/execution/recordContextLoad", map[string]any{}, 10},
		{"ctxls/execution/getCachedContext", map[string]any{}, 10},
		{"ctxls/execution/recordMemoryLoad", map[string]any{}, 10},
		{"ctxls/execution/getCachedMemory", map[string]any{}, 10},
		{"ctxls/execution/setSharedData", map[string]any{}, 10},
		{"ctxls/execution/getSharedData", map[string]any{}, 10},
		{"ctxls/execution/getPreviousCommand", map[string]any{}, 10},
		{"ctxls/execution/list", map[string]any{}, 10},
		{"ctxls/execution/get", map[string]any{}, 10},
		{"ctxls/execution/setCurrent", map[string]any{}, 10},
		{"ctxls/execution/delete", map[string]any{}, 10},
		{"ctxls/chain/list", map[string]any{}, 10},
		{"ctxls/chain/preview", map[string]any{"commands": []string{"dense", "implement"}}, 4},
		{"ctxls/chain/run", map[string]any{}, 10},
		{"ctxls/chain/resume", map[string]any{}, 10},
		{"ctxls/chain/cancel", map[string]any{}, 10},
		{"ctxls/history/append", map[string]any{}, 10},
		{"ctxls/history/list", map[string]any{}, 10},
		{"ctxls/history/conversations", map[string]any{}, 10},
		{"ctxls/history/buildContext", map[string]any{}, 10},
		{"ctxls/history/delete", map[string]any{}, 10},
		{"ctxls/sessionCost", map[string]any{}, 10},
		{"textDocument/inlayHint", map[string]any{"textDocument": doc, "range": map[string]any{"start": stdioPos(uri, 0, 0)["position"], "end": stdioPos(uri, 60000, 0)["position"]}}, heavy},
		{"textDocument/codeLens", map[string]any{"textDocument": doc}, 10},
		{"textDocument/documentLink", map[string]any{"textDocument": doc}, 10},
		{"textDocument/documentSymbol", map[string]any{"textDocument": doc}, 10},
		{"textDocument/references", map[string]any{"textDocument": doc, "position": onRef, "context": map[string]any{"includeDeclaration": true}}, 2 * heavy},
		{"textDocument/prepareRename", map[string]any{"textDocument": doc, "position": onRef}, 10},
		{"textDocument/hover", map[string]any{"textDocument": doc, "position": onRef}, 10},
		{"workspace/symbol", map[string]any{"query": "a"}, 10},
	}
	type sent struct {
		method string
		resp   <-chan stdioMessage
	}
	var pending []sent
	most := 0
	for _, cl := range calls {
		most = max(most, cl.n)
	}
	// Round by round, one request of each method that has some left.
	for i := range most {
		for _, cl := range calls {
			if i >= cl.n {
				continue
			}
			_, ch, err := c.Send(cl.method, cl.params)
			if err != nil {
				t.Fatalf("send %s: %v\nstderr: %s", cl.method, err, stdioTail(c.Stderr(), 2000))
			}
			pending = append(pending, sent{cl.method, ch})
		}
	}
	answered := map[string]int{}
	for _, p := range pending {
		select {
		case msg, ok := <-p.resp:
			if !ok {
				t.Fatalf("%s: connection closed before the response: the server died\nstderr: %s", p.method, stdioTail(c.Stderr(), 2000))
			}
			if msg.Error == nil {
				answered[p.method]++
			}
		case <-ctx.Done():
			t.Fatalf("%s: no response after %d requests: %v", p.method, len(pending), ctx.Err())
		}
	}
	for _, m := range []string{"ctxls/commands", "ctxls/documentCost", "ctxls/catalog", "ctxls/chain/preview",
		"textDocument/inlayHint", "textDocument/references", "textDocument/documentLink", "workspace/symbol"} {
		if answered[m] == 0 {
			t.Errorf("%s: no request answered without an error", m)
		}
	}
	var total struct {
		Total      int `json:"total"`
		References int `json:"references"`
	}
	if err := c.Call(ctx, "ctxls/documentCost", map[string]any{"uri": uri}, &total); err != nil {
		t.Fatalf("documentCost after the flood: %v", err)
	}
	if total.Total == 0 {
		t.Errorf("documentCost after the flood: total 0, want the cost of the topics the dense document loads")
	}
	// The dense command's distinct links are more than a preview resolves:
	// it says how many it skipped.
	var pv struct {
		Steps []struct {
			Warnings []string `json:"warnings"`
		} `json:"steps"`
	}
	if err := c.Call(ctx, "ctxls/chain/preview", map[string]any{"commands": []string{"dense"}}, &pv); err != nil {
		t.Fatalf("chain/preview after the flood: %v", err)
	}
	if len(pv.Steps) != 1 || !slices.ContainsFunc(pv.Steps[0].Warnings, func(w string) bool { return strings.Contains(w, "distinct paths skipped") }) {
		t.Errorf("chain/preview of the dense command: %+v, want a warning of the path references it skipped", pv.Steps)
	}
	bounded := []struct {
		method string
		params map[string]any
		most   int
	}{
		{"textDocument/references", map[string]any{"textDocument": doc, "position": onRef, "context": map[string]any{"includeDeclaration": false}}, maxReferences},
		{"textDocument/inlayHint", map[string]any{"textDocument": doc, "range": map[string]any{"start": stdioPos(uri, 0, 0)["position"], "end": stdioPos(uri, 60000, 0)["position"]}}, maxInlayHints},
		{"textDocument/documentLink", map[string]any{"textDocument": doc}, maxDocumentLinks},
	}
	for _, b := range bounded {
		var items []json.RawMessage
		if err := c.Call(ctx, b.method, b.params, &items); err != nil {
			t.Fatalf("%s after the flood: %v", b.method, err)
		}
		size := 1 // the JSON array's brackets and commas
		for _, it := range items {
			size += len(it) + 1
		}
		switch {
		case b.method != "textDocument/inlayHint":
			// Bounded by their size too: locations in long paths.
			if len(items) == 0 || len(items) > b.most || size > maxReplyBytes {
				t.Errorf("%s of the dense document: %d items, %d bytes; want some, at most %d and %d bytes", b.method, len(items), size, b.most, maxReplyBytes)
			}
		case len(items) != b.most:
			t.Errorf("%s of the dense document: %d items, want the bound of %d", b.method, len(items), b.most)
		}
	}
	peak, err := stressPeakResident(c.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Largest(); n > 1<<20 {
		t.Errorf("the largest message of the server is %d bytes, over 1 MiB", n)
	}
	t.Logf("%d requests (%d of each heavy one) answered; server resident peak (VmHWM) %d MB with GOMEMLIMIT=%q; largest message %d KiB",
		len(pending), heavy, peak>>20, os.Getenv("CTXLS_STRESS_GOMEMLIMIT"), c.Largest()>>10)
	if peak > stressResidentLimit {
		t.Errorf("server resident peak %d MB, want under %d MB", peak>>20, stressResidentLimit>>20)
	}
}
