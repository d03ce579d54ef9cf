package agentfiles

import (
	"context"
	"testing"
)

// TestValidFilesAreClean checks that the valid fixtures, which use every
// documented field and form, produce no diagnostic at all.
func TestValidFilesAreClean(t *testing.T) {
	t.Parallel()
	s, err := Load(context.Background(), "testdata/valid", nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Kind]int{}
	for _, f := range s.Files {
		seen[f.Kind]++
	}
	for k := KindSkill; k <= KindCopilotPrompt; k++ {
		if seen[k] == 0 && k != KindMemory && k != KindRule {
			t.Errorf("testdata/valid has no file of kind %v", k)
		}
	}
	for p, ds := range s.Check(context.Background()) {
		for _, d := range ds {
			f, _ := s.File(p)
			t.Errorf("%s:%d: %s %s", f.Rel, f.Lines.LineOf(d.Span.Start)+1, d.Code, d.Message)
		}
	}
}
