package agentfiles

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
)

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
