package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The server binary over stdio publishes a skill's YAML error without the
// file being opened, and its quick fix quotes the description.
func TestStdioAgentFileDiagnosticsAndFix(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	rel := filepath.Join(".claude", "skills", "deploy", "SKILL.md")
	text := "---\nname: deploy\ndescription: Use when: shipping a release\n---\n\nDeploy it.\n"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := stdioStart(t, root)
	ctx := stdioCtx(t)
	if _, err := c.Initialize(ctx, root, nil, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	uri := stdioFileURI(filepath.Join(root, rel))
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "frontmatter-parse-error", 2, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	var actions []struct {
		Title string              `json:"title"`
		Edit  *stdioWorkspaceEdit `json:"edit"`
	}
	if err := c.Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        ds[0].Range,
		"context":      map[string]any{"diagnostics": ds, "only": []string{"quickfix"}},
	}, &actions); err != nil {
		t.Fatalf("codeAction: %v", err)
	}
	if len(actions) != 1 || actions[0].Edit == nil {
		t.Fatalf("actions: %+v", actions)
	}
	var edits []ClientTextEdit
	for u, es := range actions[0].Edit.Changes {
		if stdioSameURI(u, uri) {
			edits = append(edits, es...)
		}
	}
	if after := stdioApplyEdits(t, text, edits); !strings.Contains(after, "\ndescription: \"Use when: shipping a release\"\n") {
		t.Errorf("%q gives:\n%s", actions[0].Title, after)
	}
}
