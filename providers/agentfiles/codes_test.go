package agentfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// Each folder of testdata/codes is a workspace named after a code; its
// want.txt lists every diagnostic the workspace must produce, one
// "file:line code" a line, and nothing else may be produced.
func TestCodeFixtures(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir("testdata/codes")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range dirs {
		code := d.Name()
		have[code] = true
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			if code == diag.HookScriptNotExecutable && runtime.GOOS == "windows" {
				t.Skip("Windows has no executable bit")
			}
			dir := filepath.Join("testdata/codes", code)
			data, err := os.ReadFile(filepath.Join(dir, "want.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(strings.ReplaceAll(string(data), " ", "|"))
			got := diagnosticLines(t, dir)
			if !slices.Equal(got, want) {
				t.Errorf("diagnostics:\n got  %v\n want %v", got, want)
			}
			if !slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, "|"+code) }) {
				t.Errorf("the fixture does not produce %s", code)
			}
		})
	}
	for _, code := range agentCodes() {
		if !have[code] {
			t.Errorf("no fixture in testdata/codes for %s", code)
		}
	}
}

// agentCodes are the codes this package emits, besides file-skipped.
func agentCodes() []string {
	var out []string
	started := false
	for _, r := range diag.All() {
		if r.Code == diag.FrontmatterMissing {
			started = true
		}
		if started || r.Code == diag.FrontmatterParse {
			out = append(out, r.Code)
		}
	}
	return out
}

// diagnosticLines checks the workspace dir and returns its diagnostics as
// sorted "file:line|code" strings.
func diagnosticLines(t *testing.T, dir string) []string {
	t.Helper()
	s := mustLoad(t, dir, nil)
	var got []string
	for p, ds := range s.Check(context.Background()) {
		f, _ := s.File(p)
		for _, d := range ds {
			if d.Span.Start > d.Span.End || d.Span.End > len(f.Text) {
				t.Errorf("%s: %s has span %v outside the text", f.Rel, d.Code, d.Span)
			}
			if r, ok := diag.Lookup(d.Code); !ok || r.Severity != d.Severity {
				t.Errorf("%s: %s has severity %v, not the table's", f.Rel, d.Code, d.Severity)
			}
			got = append(got, fmt.Sprintf("%s:%d|%s", f.Rel, f.Lines.LineOf(d.Span.Start)+1, d.Code))
			t.Logf("%s:%d %s %s", f.Rel, f.Lines.LineOf(d.Span.Start)+1, d.Code, d.Message)
		}
	}
	slices.Sort(got)
	return got
}
