package agentfiles

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// A key given twice names both lines, points at the first, which the
// agent drops, and names the agent that reads the file.
func TestJSONDuplicateKeyNamesBoth(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, "testdata/codes/json-duplicate-key", nil)
	want := map[string]struct{ msg, first string }{
		".claude/settings.json": {`"hooks" is given twice in this object, on lines 3 and 9: Claude Code keeps only the last, so the value on line 3 is dropped`, `"hooks"`},
		".vscode/mcp.json":      {`on lines 3 and 6: VS Code keeps`, `"servers"`},
		".gemini/settings.json": {`"args" is given twice in this object, both on line 3: Gemini CLI keeps`, `"args"`},
		"opencode.json":         {`OpenCode keeps`, `"instructions"`},
	}
	for p, ds := range s.Check(context.Background()) {
		f, _ := s.File(p)
		rel := filepath.ToSlash(f.Rel)
		w, ok := want[rel]
		if !ok {
			continue
		}
		delete(want, rel)
		for _, d := range ds {
			if d.Code != diag.JSONDuplicateKey {
				continue
			}
			if !strings.Contains(d.Message, w.msg) {
				t.Errorf("%s: message %q, want it to hold %q", rel, d.Message, w.msg)
			}
			if len(d.Related) != 1 || d.Related[0].Path != f.Path {
				t.Fatalf("%s: related %+v, want the first key of this file", rel, d.Related)
			}
			r := d.Related[0].Span
			if got := string(f.Text[r.Start:r.End]); got != w.first {
				t.Errorf("%s: related points at %q, want %q", rel, got, w.first)
			}
			if r.Start >= d.Span.Start {
				t.Errorf("%s: related at %d, not before the diagnostic at %d", rel, r.Start, d.Span.Start)
			}
		}
	}
	for rel := range want {
		t.Errorf("%s: no json-duplicate-key", rel)
	}
}
