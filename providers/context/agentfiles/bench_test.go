package agentfiles

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// writeSkills writes n skills into dir, each with frontmatter, a body of
// a few sections, a link to a reference file and the reference itself;
// one in ten has a problem.
func writeSkills(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := range n {
		name := fmt.Sprintf("skill-%04d", i)
		d := filepath.Join(dir, ".claude", "skills", name)
		fmName := name
		if i%10 == 0 {
			fmName = name + "-old"
		}
		body := strings.Repeat(fmt.Sprintf("## Step\n\nRun the %d tool, then read [the guide](references/guide.md).\n\n", i), 8)
		content := fmt.Sprintf("---\nname: %s\ndescription: Does task %d. Use when the user asks for task %d.\nallowed-tools: Read Grep\nmetadata:\n  version: \"1.0\"\n---\n\n# %s\n\n%s", fmName, i, i, name, body)
		writeFile(tb, d, "SKILL.md", content)
		writeFile(tb, d, "references/guide.md", "# Guide\n")
	}
}

// BenchmarkCheck1000Skills measures what ctxls check does for agent
// files: discover, read and check 1,000 skills.
func BenchmarkCheck1000Skills(b *testing.B) {
	dir := b.TempDir()
	writeSkills(b, dir, 1000)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		s, err := Load(ctx, dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		ds := s.Check(ctx)
		if len(s.Files) != 1000 || len(ds) != 100 {
			b.Fatalf("%d files, %d with diagnostics; want 1000 and 100", len(s.Files), len(ds))
		}
	}
}
