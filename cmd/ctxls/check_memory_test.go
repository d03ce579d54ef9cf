package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestCheckMemory runs check on a Claude Code project whose memory file
// holds one import of each kind the agent does not load, next to imports
// in a code span, a fence and an e-mail address that are not imports.
func TestCheckMemory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "providers", "imports", "testdata", "project")
	out := runExit(t, 1, "check", dir, "--format", "json") // a missing import is an error
	var got []string
	for _, r := range decodeRecords(t, out) {
		got = append(got, strings.Join([]string{r.File, strconv.Itoa(r.Line), strconv.Itoa(r.Column), strconv.Itoa(r.EndColumn), r.Severity, r.Code}, " "))
	}
	want := []string{
		"CLAUDE.md 4 20 38 warning import-trailing-punctuation",
		"CLAUDE.md 12 3 19 error import-missing",
		"CLAUDE.md 13 3 25 info import-outside-project",
		"chain/four.md 1 6 14 warning import-too-deep",
		"docs/guide.md 1 22 35 warning import-cycle",
	}
	if !slices.Equal(got, want) {
		t.Errorf("records\n got %q\nwant %q", got, want)
	}
}

func TestCheckMemoryFix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	libtest.CopyTree(t, claudeProject, dir)
	runExit(t, 1, "check", dir, "--fix") // the missing import is left
	b, err := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "The workflow is in @docs/workflow.md : read it first.") {
		t.Errorf("the fix did not move the colon off the import:\n%s", b)
	}
	out, _, _ := runCLI(t, "check", dir, "--format", "json")
	for _, r := range decodeRecords(t, out) {
		if r.Code == "import-trailing-punctuation" {
			t.Errorf("still reported after the fix: %+v", r)
		}
	}
	out, _, err = runCLI(t, "cost", dir, "--format", "json")
	if err != nil || !strings.Contains(out, `"file":"docs/workflow.md"`) {
		t.Errorf("after the fix the session does not load docs/workflow.md: %v\n%s", err, out)
	}
}
