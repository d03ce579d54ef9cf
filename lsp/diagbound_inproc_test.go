package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/library"
)

// TestInprocDiagnosticsBounded checks that a file with more problems than
// maxFileDiagnostics publishes that many, the most severe first, and one
// more that says how many there are; and that a file under the bound
// publishes all of its own.
func TestInprocDiagnosticsBounded(t *testing.T) {
	t.Parallel()
	dir := inprocCopyLibrary(t)
	c := inprocStart(t, dir, inprocOptions{})
	var b strings.Builder
	b.WriteString("# Many\n\n")
	n := maxFileDiagnostics + 300
	for i := range n {
		fmt.Fprintf(&b, "python:fastapi_patterns#Nope%d\n", i)
	}
	for i := range 5 {
		fmt.Fprintf(&b, "python:missing_%d\n", i)
	}
	u := c.open("commands/many.md", b.String())
	d := c.waitDiagnostics(u, func(d inprocDiagnostics) bool { return len(d.Diagnostics) > 0 })
	if len(d.Diagnostics) != maxFileDiagnostics+1 {
		t.Fatalf("%d diagnostics published, want %d and a note", len(d.Diagnostics), maxFileDiagnostics)
	}
	last := d.Diagnostics[len(d.Diagnostics)-1]
	if want := fmt.Sprintf("ctxls shows %d of the %d problems", maxFileDiagnostics, n+5); !strings.Contains(last.Message, want) {
		t.Errorf("last diagnostic %q; want a note containing %q", last.Message, want)
	}
	for i, dg := range d.Diagnostics[1:maxFileDiagnostics] {
		if dg.Severity < d.Diagnostics[i].Severity {
			t.Fatalf("diagnostic %d (severity %d) follows a less severe one (%d)", i+1, dg.Severity, d.Diagnostics[i].Severity)
		}
	}
	small := c.open("commands/few.md", "# Few\n\npython:missing_a python:missing_b\n")
	d = c.waitDiagnostics(small, func(d inprocDiagnostics) bool { return len(d.Diagnostics) > 0 })
	if len(d.Diagnostics) != 2 {
		t.Errorf("a file of 2 problems published %d diagnostics: %+v", len(d.Diagnostics), d.Diagnostics)
	}
}

// TestBoundDiagnostics checks which diagnostics of a file over the bound
// are kept: the most severe, in order of position within a severity.
func TestBoundDiagnostics(t *testing.T) {
	t.Parallel()
	var ds []library.Diagnostic
	for i := range maxFileDiagnostics + 10 {
		ds = append(ds, library.Diagnostic{Severity: library.SeverityHint, Message: fmt.Sprintf("hint %d", i)})
	}
	ds = append(ds, library.Diagnostic{Severity: library.SeverityWarning, Message: "warning"})
	ds = append(ds, library.Diagnostic{Severity: library.SeverityError, Message: "error"})
	got := boundDiagnostics(ds)
	if len(got) != maxFileDiagnostics {
		t.Fatalf("%d kept, want %d", len(got), maxFileDiagnostics)
	}
	if got[0].Message != "error" || got[1].Message != "warning" || got[2].Message != "hint 0" || got[len(got)-1].Message != fmt.Sprintf("hint %d", maxFileDiagnostics-3) {
		t.Errorf("kept %q, %q, %q ... %q; want the error, the warning, then the first hints", got[0].Message, got[1].Message, got[2].Message, got[len(got)-1].Message)
	}
	if ds[0].Message != "hint 0" {
		t.Error("boundDiagnostics reordered its argument")
	}
	few := ds[:3]
	if got := boundDiagnostics(few); len(got) != 3 || &got[0] != &few[0] {
		t.Error("diagnostics under the bound are not returned as they are")
	}
}
