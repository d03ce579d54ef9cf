package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// Every published diagnostic links its code to the rule's page, in the
// library's files and in agent files alike.
func TestInprocDiagnosticCodesLinkTheirPages(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	c.mustCall("ctxls/commands", map[string]any{}, nil) // the index is ready
	for _, rel := range []string{"commands/implement.md", ".claude/skills/release-notes/SKILL.md"} {
		u := c.open(rel)
		raw := c.waitNote("textDocument/publishDiagnostics", func(raw json.RawMessage) bool {
			return strings.Contains(string(raw), u) && strings.Contains(string(raw), `"code"`)
		})
		var p struct {
			Diagnostics []struct {
				Code            string `json:"code"`
				CodeDescription struct {
					Href string `json:"href"`
				} `json:"codeDescription"`
			} `json:"diagnostics"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Diagnostics {
			want := diag.Repository + "/blob/main/docs/rules/" + d.Code + ".md"
			if d.CodeDescription.Href != want {
				t.Errorf("%s: %s links %q, want %q", rel, d.Code, d.CodeDescription.Href, want)
			}
		}
		if len(p.Diagnostics) == 0 {
			t.Errorf("%s: no diagnostics", rel)
		}
	}
}
