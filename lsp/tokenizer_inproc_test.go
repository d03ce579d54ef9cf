package lsp

import (
	"testing"

	"github.com/ctxls/ctxls/providers/context/tokens"
	"github.com/ctxls/ctxls/providers/ops"
)

// The tokenizer setting applies to the next chain step without a
// restart: the messages a run records after the change are measured with
// the new tokenizer, by the same history store.
func TestInprocTokenizerSettingAppliesToNextStep(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	input := "Add a login endpoint with OAuth2; the two tokenizers count this sentence differently."
	var first ops.ChainResponse
	c.mustCall("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": input}, &first)
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"tokenizer": tokens.Estimate}}})
	var second ops.ChainResponse
	c.mustCall("ctxls/chain/run", map[string]any{"commands": []string{"brainstorm"}, "input": input, "sessionId": first.SessionID}, &second)

	var exec ops.ExecutionResponse
	c.mustCall("ctxls/execution/get", map[string]any{"sessionId": first.SessionID}, &exec)
	var page ops.HistoryListResponse
	c.mustCall("ctxls/history/list", map[string]any{"conversationId": exec.ConversationID}, &page)
	exact, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	estimate, err := tokens.New(tokens.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	counted := map[string]tokens.Counter{first.RunID: exact, second.RunID: estimate}
	seen := 0
	for _, m := range page.Items {
		c, ok := counted[m.RunID]
		if !ok {
			continue
		}
		seen++
		if want := c.Count(m.Content); m.Tokens != want {
			t.Errorf("message %d of run %s: %d tokens, want %d (%s)", m.ID, m.RunID, m.Tokens, want, c.Name())
		}
	}
	if seen != 2 || first.RunID == second.RunID {
		t.Fatalf("%d messages of runs %q and %q; want the prompt of each: %+v", seen, first.RunID, second.RunID, page.Items)
	}
}
