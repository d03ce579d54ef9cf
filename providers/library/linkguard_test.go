package library

import (
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// TestLinkOutOfWorkspaceNotRead checks a plain markdown link whose path a
// symbolic link leads out of the workspace: the file there is not read
// for its headings, and the link is not judged.
func TestLinkOutOfWorkspaceNotRead(t *testing.T) {
	t.Parallel()
	secret := fsguardtest.Outside(t, "secret.md", "# Secret heading\n\nkey material\n")
	dir := testtree.New(t, map[string]string{
		"docs/guide.md": "# Guide\n\nSee [the key](../keys/secret.md#nope) and [the heading](../keys/secret.md#secret-headin).\n",
	})
	fsguardtest.Link(t, filepath.Dir(secret), filepath.Join(dir, "keys"))
	l := load(t, dir, nil)
	// A diagnostic on either fragment would tell what the file's
	// headings are.
	for _, d := range l.Snapshot().Diagnose(filepath.Join(dir, "docs", "guide.md")) {
		t.Errorf("a diagnostic judges the link out of the workspace: %s %s", d.Code, d.Message)
	}
}
