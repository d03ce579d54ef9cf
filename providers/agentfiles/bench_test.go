package agentfiles

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
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
		testtree.WriteAt(tb, d, "SKILL.md", content)
		testtree.WriteAt(tb, d, "references/guide.md", "# Guide\n")
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

// writeRulesRepo writes a repository of files files, as empty files in
// nested packages, and rules Cursor rules and Copilot instructions, half
// and half, whose globs are of the usual shapes; one in four matches no
// file.
func writeRulesRepo(tb testing.TB, dir string, files, rules int) {
	tb.Helper()
	exts := []string{"ts", "tsx", "go", "py", "md", "json"}
	for i := range files {
		rel := fmt.Sprintf("packages/pkg%03d/src/mod%02d/file%05d.%s", i%200, i%30, i, exts[i%len(exts)])
		testtree.WriteAt(tb, dir, rel, "")
	}
	for i := range rules {
		var pat string
		switch i % 4 {
		case 0:
			pat = fmt.Sprintf("packages/pkg%03d/**/*.ts", i%200)
		case 1:
			pat = fmt.Sprintf("src/mod%02d/**", i%30)
		case 2:
			pat = "**/*.{" + exts[i%len(exts)] + ",mjs}"
		default:
			pat = fmt.Sprintf("**/generated%03d/**/*.rs", i) // matches nothing
		}
		if i%2 == 0 {
			testtree.WriteAt(tb, dir, fmt.Sprintf(".cursor/rules/r%03d.mdc", i), fmt.Sprintf("---\ndescription: Rule %d\nglobs: %s\n---\nRule.\n", i, pat))
		} else {
			testtree.WriteAt(tb, dir, fmt.Sprintf(".github/instructions/i%03d.instructions.md", i), fmt.Sprintf("---\napplyTo: %q\n---\nRule.\n", pat))
		}
	}
}

// BenchmarkCheck500Rules measures what ctxls check does for agent files
// in a repository of 28,000 files with 500 Cursor and Copilot rules:
// discover, read and check them, matching every glob against the files.
func BenchmarkCheck500Rules(b *testing.B) {
	dir := b.TempDir()
	writeRulesRepo(b, dir, 28_000, 500)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		s, err := Load(ctx, dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		ds := s.Check(ctx)
		if len(s.Files) != 500 || len(ds) != 125 {
			b.Fatalf("%d files, %d with diagnostics; want 500 and 125", len(s.Files), len(ds))
		}
	}
}
