package lsp

import (
	"path/filepath"
	"testing"
)

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
	c.waitNoteSince(since, notifyExecutionsChanged, nil)

	since = c.noteCount()
	inprocWrite(t, dir, map[string]string{"context/python/new_topic.md": "# New topic\n\nText.\n"})
	u := string(uriOf(filepath.Join(dir, "context/python/new_topic.md")))
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": u, "type": 1}}})
	c.waitNoteSince(since, notifyLibraryChanged, nil)

	since = c.noteCount()
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": map[string]any{"tokenizer": "estimate"}}})
	c.waitNoteSince(since, notifyLibraryChanged, nil)

	doc := c.open("commands/implement.md")
	c.waitDiagnostics(doc, nil)
	since = c.noteCount()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": doc, "version": 2},
		"contentChanges": []any{map[string]any{"text": "# Implement\n\npython:fastapi_patterns\n"}}})
	c.waitDiagnosticsSince(since, doc, nil)
	c.mu.Lock()
	for _, n := range c.notifications[since:] {
		if n.Method == notifyLibraryChanged {
			t.Errorf("an edit of an open document sent %s", n.Method)
		}
	}
	c.mu.Unlock()
	since = c.noteCount()
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": doc}})
	c.waitNoteSince(since, notifyLibraryChanged, nil)
}
