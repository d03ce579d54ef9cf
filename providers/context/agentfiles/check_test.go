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
	if len(s.Files) == 0 {
		t.Fatal("no agent files found in testdata/valid")
	}
	for p, ds := range s.Check(context.Background()) {
		for _, d := range ds {
			f, _ := s.File(p)
			t.Errorf("%s:%d: %s %s", f.Rel, f.Lines.LineOf(d.Span.Start)+1, d.Code, d.Message)
		}
	}
}
