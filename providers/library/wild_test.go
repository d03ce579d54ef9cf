package library

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWildShapes loads trees shaped like the real repositories where a
// folder's name or plain markdown once gave false findings
// (testdata/wild/*), and compares every diagnostic with the tree's
// want.txt: one line per diagnostic, "file:line code severity text".
func TestWildShapes(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("testdata", "wild", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(abs, "want.txt"))
			if err != nil {
				t.Fatal(err)
			}
			snap := load(t, abs, nil).Snapshot()
			var got []string
			for p, ds := range snap.DiagnoseAll(t.Context()) {
				f, _ := snap.File(p)
				for _, d := range ds {
					text := string(f.Doc.Slice(d.Span))
					got = append(got, fmt.Sprintf("%s:%d %s %s %s", f.Rel, f.Doc.Lines.LineOf(d.Span.Start)+1, d.Code, d.Severity, text))
				}
			}
			slices.Sort(got)
			wantLines := strings.FieldsFunc(string(want), func(r rune) bool { return r == '\n' })
			slices.Sort(wantLines)
			if !slices.Equal(got, wantLines) {
				t.Errorf("diagnostics:\n got  %q\n want %q", got, wantLines)
			}
		})
	}
}
