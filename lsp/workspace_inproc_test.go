package lsp

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/tokens"
)

// mentions reports whether any diagnostic message contains s.
func mentions(d inprocDiagnostics, s string) bool {
	for _, x := range d.Diagnostics {
		if strings.Contains(x.Message, s) {
			return true
		}
	}
	return false
}

// TestInprocDiskChanges checks that the server's own watcher sees a
// topic deleted on disk, with no event from the client: the references to
// it in a file nobody has open are published again. The same after the
// client's event is the fixture testdata/requests/library/topic-removed.txtar.
func TestInprocDiskChanges(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{watch: true})
	implement := c.uri("commands/implement.md")
	c.waitDiagnostics(implement, nil) // the initial publication
	c.remove("context/python/sqlalchemy_patterns.md")
	c.waitDiagnostics(implement, func(d inprocDiagnostics) bool { return mentions(d, "sqlalchemy_patterns") })
}

func TestInprocLogAndProgress(t *testing.T) {
	t.Parallel()
	dir, _ := inprocSynthetic(t, 3, 10, 10)
	testtree.WriteFiles(t, dir, map[string]string{".ctxls.yaml": "tokenizer: o200k_base\nbudgets: 3\n"})
	c := inprocStart(t, dir, inprocOptions{})
	c.mustCall("ctxls/commands", map[string]any{}, nil)
	c.waitNote("window/logMessage", noteContains("budgets"))
	yaml := c.waitDiagnostics(c.uri(".ctxls.yaml"), nil)
	if len(yaml.Diagnostics) != 1 || yaml.Diagnostics[0].Range.Start.Line != 1 {
		t.Errorf(".ctxls.yaml diagnostics: %+v", yaml)
	}
	begin := c.waitNote("$/progress", noteContains(`"begin"`))
	if !strings.Contains(string(begin), "Indexing") {
		t.Errorf("progress begin: %s", begin)
	}
	c.waitNote("$/progress", noteContains(`"end"`))
	if !slices.Contains(c.ServerRequests(), "window/workDoneProgress/create") {
		t.Errorf("no progress token was created: %v", c.ServerRequests())
	}
}

func TestInprocDocumentsOpenedDuringIndex(t *testing.T) {
	t.Parallel()
	dir, _ := inprocSynthetic(t, 6, 10, 10)
	gate := make(chan struct{})
	c := inprocStart(t, dir, inprocOptions{indexGate: gate})
	// The index is held back: these are queued.
	text := "see dom03:topic_0007 here, not dom05:nope\n"
	u := c.open("commands/early.md", text)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 0, "character": 4}, "end": map[string]any{"line": 0, "character": 9}}, "text": "dom05"}}})
	close(gate)
	var h struct {
		Contents struct{ Value string } `json:"contents"`
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 0, "character": 8}}, &h)
	if !strings.Contains(h.Contents.Value, "Topic 7 of dom05") {
		t.Errorf("hover after an early change: %q", h.Contents.Value)
	}
	// A document opened during the index may be diagnosed at once from the
	// preview, at version 1; what counts is the publication of version 2.
	d := c.waitDiagnostics(u, diagVersion(2))
	if len(d.Diagnostics) != 1 || !strings.Contains(d.Diagnostics[0].Message, "nope") {
		t.Errorf("diagnostics of version 2 of a document opened during the index: %+v", d.Diagnostics)
	}
}

func TestInprocSettingsDuringIndex(t *testing.T) {
	t.Parallel()
	dir, _ := inprocSynthetic(t, 3, 10, 10)
	// The gate holds the index back until the settings and the document
	// are in, however fast the machine indexes.
	gate := make(chan struct{})
	c := inprocStart(t, dir, inprocOptions{indexGate: gate})
	// Sent while the index is built, as the extension does right after start.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"driftThreshold": 100}}})
	u := c.open("context/dom02/topic_0003.md")
	close(gate)
	var actions []struct{ Title string }
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u},
		"range":   map[string]any{"start": map[string]any{"line": 5, "character": 0}, "end": map[string]any{"line": 5, "character": 20}},
		"context": map[string]any{"diagnostics": []any{}, "only": []string{"quickfix"}}}, &actions)
	// The synthetic topics drift beyond the default 25 %, not beyond 10,000 %.
	if len(actions) != 0 {
		t.Errorf("with a 10,000 %% drift threshold set during the index: actions %+v", actions)
	}
}

// The server tells the client when its views are stale: executions after
// a change through the server, the library after a change on disk, of the
// settings or a save, not after each edit of an open document.
func TestInprocChangeNotifications(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	c.mustCall("ctxls/commands", map[string]any{}, nil) // the index is ready

	since := c.noteCount()
	c.mustCall("ctxls/execution/create", map[string]any{"projectName": "p"}, nil)
	c.waitNoteSince(since, string(ops.NotifyExecutionsChanged), nil)

	since = c.noteCount()
	testtree.WriteFiles(t, dir, map[string]string{"context/python/new_topic.md": "# New topic\n\nText.\n"})
	u := c.uri("context/python/new_topic.md")
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": u, "type": 1}}})
	c.waitNoteSince(since, string(ops.NotifyLibraryChanged), nil)

	since = c.noteCount()
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"tokenizer": "estimate"}}})
	c.waitNoteSince(since, string(ops.NotifyLibraryChanged), nil)

	doc := c.open("commands/implement.md")
	c.waitDiagnostics(doc, nil)
	since = c.noteCount()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": doc, "version": 2},
		"contentChanges": []any{map[string]any{"text": "# Implement\n\npython:fastapi_patterns\n"}}})
	c.waitDiagnosticsSince(since, doc, nil)
	c.mu.Lock()
	for _, n := range c.notifications[since:] {
		if n.Method == string(ops.NotifyLibraryChanged) {
			t.Errorf("an edit of an open document sent %s", n.Method)
		}
	}
	c.mu.Unlock()
	since = c.noteCount()
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": doc}})
	c.waitNoteSince(since, string(ops.NotifyLibraryChanged), nil)
}

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
