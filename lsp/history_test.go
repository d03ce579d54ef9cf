package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// The history methods, driven through the real binary over stdio with the
// client of chain_test.go.

// historyWorkspace makes a workspace whose configuration names a small
// model with a 10 % history share.
func historyWorkspace(t *testing.T) string {
	t.Helper()
	return libtest.WriteTree(t, map[string]string{
		"context/go/errors.md": "---\ntitle: Errors\n---\n# Errors\n\nWrap errors with context.\n",
		".ctxls.yaml":          "models:\n  small:\n    contextWindow: 8192\n    historyShare: 0.1\n  large:\n    contextWindow: 200000\ndefaultModel: small\n",
	})
}

func historyAppendAll(c *chainClient, conv string, n int, runID string) []ops.MessageResponse {
	var out []ops.MessageResponse
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		var m ops.MessageResponse
		c.must("ctxls/history/append", map[string]any{"conversationId": conv, "role": role, "mode": "run",
			"runId": runID, "command": "implement",
			"content": fmt.Sprintf("message %d of %s\n%s", i, runID, strings.Repeat("a line of the step's output\n", 1+i%30))}, &m)
		out = append(out, m)
	}
	return out
}

func TestHistoryMethodsOverStdio(t *testing.T) {
	t.Parallel()
	dir := historyWorkspace(t)
	c := chainStart(t, dir)

	first := historyAppendAll(c, "conv-1", 40, "r1")
	second := historyAppendAll(c, "conv-1", 10, "r2")
	historyAppendAll(c, "conv-2", 3, "r3")
	if first[0].ID == 0 || first[0].Tokens == 0 || first[0].CreatedAt.IsZero() || first[0].Mode != "run" || first[0].Command != "implement" {
		t.Fatalf("appended message: %+v", first[0])
	}

	var l ops.HistoryListResponse
	c.must("ctxls/history/list", map[string]any{"conversationId": "conv-1"}, &l)
	if len(l.Items) != 50 || l.Items[0].ID != first[0].ID || l.Items[49].ID != second[9].ID || l.More {
		t.Fatalf("list: %d items, first %d, more %v", len(l.Items), l.Items[0].ID, l.More)
	}
	if l.Items[0].Content != first[0].Content || l.Items[0].Tokens != first[0].Tokens {
		t.Errorf("listed %+v, appended %+v", l.Items[0], first[0])
	}
	c.must("ctxls/history/list", map[string]any{"conversationId": "conv-1", "runId": "r2"}, &l)
	if len(l.Items) != 10 || l.Items[0].RunID != "r2" {
		t.Fatalf("list run r2: %d items", len(l.Items))
	}
	c.must("ctxls/history/list", map[string]any{"conversationId": "conv-1", "limit": 5, "before": fmt.Sprint(second[0].ID)}, &l)
	if len(l.Items) != 5 || l.Items[4].ID != first[39].ID || !l.More {
		t.Fatalf("list page: %d items, more %v", len(l.Items), l.More)
	}
	c.must("ctxls/history/list", map[string]any{"conversationId": "nope"}, &l)
	if l.Items == nil || len(l.Items) != 0 || len(l.Warnings) != 1 || l.Warnings[0].Code != "unknownConversation" {
		t.Fatalf("unknown conversation: %+v", l)
	}

	var convs ops.ConversationsResponse
	c.must("ctxls/history/conversations", map[string]any{}, &convs)
	if len(convs.Items) != 2 {
		t.Fatalf("conversations: %+v", convs)
	}
	for _, cv := range convs.Items {
		if cv.ConversationID == "conv-1" && (cv.Messages != 50 || cv.Tokens == 0 || cv.LastActivity.IsZero()) {
			t.Errorf("conv-1 summary: %+v", cv)
		}
	}

	// The default model's budget: 10 % of 8192.
	var hc ops.BuildHistoryResponse
	c.must("ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "tokenBudget"}}, &hc)
	if hc.Budget != 819 || hc.Model.Model != "small" || hc.Model.Window != 8192 {
		t.Fatalf("budget %d of model %+v, want 819 of small", hc.Budget, hc.Model)
	}
	if hc.Tokens > hc.Budget || hc.Selected == 0 || hc.Selected+hc.Omitted != 50 || hc.Omitted == 0 {
		t.Fatalf("context: %d tokens, %d selected, %d omitted", hc.Tokens, hc.Selected, hc.Omitted)
	}
	if !strings.HasSuffix(hc.Text, "message 9 of r2\n"+strings.Repeat("a line of the step's output\n", 10)) {
		t.Errorf("newest message not last:\n%s", hc.Text[max(0, len(hc.Text)-300):])
	}
	budgetCtx := hc
	// Another model, another budget.
	var big ops.BuildHistoryResponse
	c.must("ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "tokenBudget"}, "model": "large"}, &big)
	if big.Budget != 50000 || big.Selected != 50 || big.Omitted != 0 {
		t.Fatalf("large model: budget %d, %d selected", big.Budget, big.Selected)
	}
	c.must("ctxls/history/buildContext", map[string]any{"conversationId": "conv-1",
		"strategy":  map[string]any{"kind": "recent", "maxMessages": 3},
		"formatter": map[string]any{"maxOutputLines": 4, "headLines": 2, "tailLines": 2}}, &hc)
	if hc.Selected != 3 || hc.Omitted != 47 || !strings.Contains(hc.Text, "lines omitted) ...") {
		t.Fatalf("recent 3 with a small formatter: %+v", hc)
	}
	c.must("ctxls/history/buildContext", map[string]any{"conversationId": "nope", "strategy": map[string]any{"kind": "recent", "maxMessages": 3}}, &hc)
	if hc.Text != "" || hc.Selected != 0 || len(hc.Warnings) == 0 {
		t.Fatalf("unknown conversation: %+v", hc)
	}

	// Bad input: clear InvalidParams errors, and nothing stored.
	for _, bad := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"ctxls/history/append", map[string]any{"role": "user", "content": "x"}, "conversationId"},
		{"ctxls/history/append", map[string]any{"conversationId": "conv-1", "role": "robot", "content": "x"}, "role"},
		{"ctxls/history/append", map[string]any{"conversationId": "conv-1", "role": "user", "content": "bin\u0000ary"}, "binary"},
		{"ctxls/history/append", map[string]any{"conversationId": "conv-1", "role": "user", "content": strings.Repeat("x", 5<<20)}, "too large"},
		{"ctxls/history/append", map[string]any{"conversationId": "conv-1", "role": "user", "content": 42}, "content"},
		{"ctxls/history/list", map[string]any{"conversationId": "conv-1", "limit": -1}, "limit"},
		{"ctxls/history/list", map[string]any{"conversationId": "conv-1", "before": "abc"}, "message id"},
		{"ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "oldest"}}, "oldest"},
		{"ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "tokenBudget", "tokenBudget": 0}}, "above 0"},
		{"ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "tokenBudget", "tokenBudget": -10}}, "above 0"},
		{"ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "recent"}}, "maxMessages"},
		{"ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "recent", "maxMessages": 2},
			"formatter": map[string]any{"maxOutputLines": 10, "headLines": 8, "tailLines": 8}}, "exceed maxOutputLines"},
		{"ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "model": "gpt-9"}, "unknown model"},
		{"ctxls/history/delete", map[string]any{"conversationId": "conv-2", "confirmToken": "forged"}, "token"},
	} {
		e := c.rpcErr(bad.method, bad.params)
		if e.Code != -32602 || !strings.Contains(e.Message, bad.want) {
			t.Errorf("%s %.100v: error %d %q, want InvalidParams mentioning %q", bad.method, bad.params, e.Code, e.Message, bad.want)
		}
	}
	c.must("ctxls/history/list", map[string]any{"conversationId": "conv-1"}, &l)
	if len(l.Items) != 50 {
		t.Fatalf("%d messages after refused appends, want 50", len(l.Items))
	}

	// Delete takes two steps.
	var del ops.DeleteConversationResponse
	c.must("ctxls/history/delete", map[string]any{"conversationId": "conv-2"}, &del)
	if del.ConfirmToken == "" || del.Deleted {
		t.Fatalf("first delete call: %+v", del)
	}
	if e := c.rpcErr("ctxls/history/delete", map[string]any{"conversationId": "conv-1", "confirmToken": del.ConfirmToken}); e.Code != -32602 {
		t.Errorf("token of conv-2 used on conv-1: %+v", e)
	}
	c.must("ctxls/history/list", map[string]any{"conversationId": "conv-1"}, &l)
	if len(l.Items) != 50 {
		t.Fatal("conv-1 lost messages to a refused delete")
	}
	c.must("ctxls/history/delete", map[string]any{"conversationId": "conv-2"}, &del)
	tok := del.ConfirmToken
	c.must("ctxls/history/delete", map[string]any{"conversationId": "conv-2", "confirmToken": tok}, &del)
	if !del.Deleted {
		t.Fatalf("second delete call: %+v", del)
	}
	c.must("ctxls/history/list", map[string]any{"conversationId": "conv-2"}, &l)
	if len(l.Items) != 0 || len(l.Warnings) == 0 {
		t.Fatalf("deleted conversation listed: %+v", l)
	}
	del.ConfirmToken, del.Warnings = "", nil
	c.must("ctxls/history/delete", map[string]any{"conversationId": "conv-2"}, &del)
	if del.ConfirmToken != "" || len(del.Warnings) == 0 {
		t.Fatalf("delete of a deleted conversation: %+v", del)
	}
	c.must("shutdown", nil, nil)
	c.notify("exit", nil)

	// A new server reads the same history.
	c2 := chainStart(t, dir)
	c2.must("ctxls/history/list", map[string]any{"conversationId": "conv-1"}, &l)
	if len(l.Items) != 50 || l.Items[49].Content != second[9].Content {
		t.Fatalf("after restart: %d items", len(l.Items))
	}
	var again ops.BuildHistoryResponse
	c2.must("ctxls/history/buildContext", map[string]any{"conversationId": "conv-1", "strategy": map[string]any{"kind": "tokenBudget"}}, &again)
	if again.Text != budgetCtx.Text || again.Tokens != budgetCtx.Tokens || again.Selected != budgetCtx.Selected {
		t.Errorf("build after restart: %d tokens, %d selected; before: %d, %d", again.Tokens, again.Selected, budgetCtx.Tokens, budgetCtx.Selected)
	}
}
