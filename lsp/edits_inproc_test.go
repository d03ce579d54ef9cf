package lsp

import "testing"

// TestInprocChangeVersionAndData checks that an incremental change with a
// UTF-16 range that fixes a reference clears its diagnostic at the
// change's version, and that a diagnostic's data names its code only, so
// that its fix is recomputed from the text. The diagnostics and their
// fixes are the fixture testdata/requests/library/fixes.txtar.
func TestInprocChangeVersionAndData(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	text := "# Notes\n\n😀 中文 see python:django here\n"
	u := c.open("commands/notes.md", text)
	d := c.waitDiagnostics(u, diagCodes("unresolved-reference"))
	if data := string(d.Diagnostics[0].Data); data != `{"code":"unresolved-reference"}` {
		t.Errorf("diagnostic data = %s, want the code only", data)
	}
	end := inprocPos(t, text, "django here", len("django"), false)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": end, "end": end}, "text": "_patterns"}}})
	d = c.waitDiagnostics(u, diagCodes())
	if d.Version == nil || *d.Version != 2 {
		t.Errorf("cleared diagnostics carry version %v, want 2", d.Version)
	}
	// The drift's fix too is recomputed: the data holds no number.
	d = c.waitDiagnostics(c.open("context/python/django_patterns.md"), diagHas("token-drift"))
	for _, x := range d.Diagnostics {
		if x.Code == "token-drift" && string(x.Data) != `{"code":"token-drift"}` {
			t.Errorf("token-drift data = %s, want the code only", x.Data)
		}
	}
}
