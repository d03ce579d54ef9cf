//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library/libgen"
)

// TestCheckMonorepoHonoursGitignore checks a generated monorepo whose
// generated/ folder .gitignore excludes: the skill's broken link is
// reported, the summary says what was skipped, and nothing in the ignored
// folder is opened (a named pipe there would warn or block), by the
// check or by the report cache's fingerprint. Including the folder back
// in .ctxls.yaml makes the check read it.
func TestCheckMonorepoHonoursGitignore(t *testing.T) {
	t.Setenv("CTXLS_CACHE_DIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no global excludes file
	dir := t.TempDir()
	st, err := libgen.Monorepo(dir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	fsguardtest.Pipe(t, filepath.Join(dir, "generated", "pipe.md"))
	if err := os.WriteFile(filepath.Join(dir, "generated", "api", "broken.md"), []byte("[x](nowhere.md)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the second is answered by the report cache
		out, errOut, err := runCLI(t, "check", "--show", "hint", dir)
		if exitCode(err) != 1 {
			t.Fatalf("round %d: exit %v\n%s%s", round, err, out, errOut)
		}
		if !strings.Contains(out, st.Skill) || !strings.Contains(out, "skipped as git ignores them: 1 folder") {
			t.Errorf("round %d: want the skill's broken link and the skipped folder:\n%s", round, out)
		}
		if strings.Contains(out+errOut, "generated/") {
			t.Errorf("round %d: the ignored folder was read:\n%s%s", round, out, errOut)
		}
	}
	os.Remove(filepath.Join(dir, "generated", "pipe.md"))
	if err := os.WriteFile(filepath.Join(dir, ".ctxls.yaml"), []byte("include:\n  - generated/api/broken.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A broken link under a folder named generated is a hint.
	out, errOut, _ := runCLI(t, "check", "--show", "hint", dir)
	if !strings.Contains(out, "generated/api/broken.md") {
		t.Errorf("an included file is not checked:\n%s%s", out, errOut)
	}
}
