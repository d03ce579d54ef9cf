package agentfiles

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

func TestCap(t *testing.T) {
	t.Parallel()
	var ds []diag.Diagnostic
	for i := range 10 {
		sev := diag.Hint
		if i%3 == 0 {
			sev = diag.Error
		}
		ds = append(ds, diag.Diagnostic{Span: document.Span{Start: i}, Severity: sev, Code: fmt.Sprint(i)})
	}
	ds = append(ds, LeftOut("f", 7, 10))
	for _, tc := range []struct {
		limit   int
		codes   string
		leftOut int
	}{
		{limit: 10, codes: "0 1 2 3 4 5 6 7 8 9 " + diag.DiagnosticsLeftOut, leftOut: 7},
		{limit: 5, codes: "0 1 3 6 9 " + diag.DiagnosticsLeftOut, leftOut: 12},
		{limit: 2, codes: "0 3 " + diag.DiagnosticsLeftOut, leftOut: 15},
	} {
		got := Cap("f", ds, tc.limit)
		var codes []string
		for _, d := range got {
			codes = append(codes, d.Code)
		}
		if strings.Join(codes, " ") != tc.codes || got[len(got)-1].LeftOut != tc.leftOut {
			t.Errorf("Cap(%d) = %v, left out %d; want %s, %d", tc.limit, codes, got[len(got)-1].LeftOut, tc.codes, tc.leftOut)
		}
	}
}

// TestCheckLeftOut checks that a skill of more broken links than
// limits.fileDiagnostics keeps that many and counts the others.
func TestCheckLeftOut(t *testing.T) {
	t.Parallel()
	const links = 2500
	dir := t.TempDir()
	p := testtree.WriteAt(t, dir, ".claude/skills/big/SKILL.md", "---\nname: big\ndescription: Big. Use when asked.\n---\n# Big\n"+strings.Repeat("[x](gone.md)\n", links))
	s := mustLoad(t, dir, nil)
	var kept, leftOut, summaries int
	for _, d := range s.Check(context.Background())[p] {
		if d.Code == diag.DiagnosticsLeftOut {
			leftOut += d.LeftOut
			summaries++
		} else {
			kept++
		}
	}
	// The links and the body's length.
	if kept != 1000 || leftOut != links+1-1000 || summaries != 1 {
		t.Errorf("%d kept and %d left out in %d summaries; want 1000 and %d in one", kept, leftOut, summaries, links+1-1000)
	}
}
