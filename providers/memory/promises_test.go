package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
)

// promiseCodes are the codes of what memory files promise.
var promiseCodes = []string{diag.MemoryCommandUndefined, diag.MemoryPathMissing, diag.MemoryDuplicate}

// promiseLines checks the workspace dir and returns its diagnostics of
// promiseCodes as sorted "file:line:column severity code" strings.
func promiseLines(t *testing.T, dir string, cfg *config.Config) []string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := agentfiles.Load(context.Background(), abs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, ds := range Check(context.Background(), set, cfg, nil, nil).Diagnostics {
		f, ok := FileOf(set, p, nil)
		if !ok {
			t.Fatalf("%s: cannot be read back", p)
		}
		for _, d := range ds {
			if !slices.Contains(promiseCodes, d.Code) {
				continue
			}
			pos := f.Lines.Position(d.Span.Start, 0)
			rel, _ := filepath.Rel(abs, p)
			got = append(got, fmt.Sprintf("%s:%d:%d %s %s", filepath.ToSlash(rel), pos.Line+1, pos.Character+1, d.Severity, d.Code))
			t.Logf("%s:%d %s %s", rel, pos.Line+1, d.Code, d.Message)
		}
	}
	slices.Sort(got)
	return got
}

// TestPromises checks a project whose memory files name scripts, targets,
// recipes and paths that exist and some that do not, and repeat a
// paragraph: each mistake is reported where it is, and nothing else.
func TestPromises(t *testing.T) {
	t.Parallel()
	want := []string{
		".claude/rules/style.md:3:1 warning memory-duplicate-paragraph",
		"CLAUDE.md:11:9 warning memory-command-undefined",  // npm run nope, in a bash block
		"CLAUDE.md:12:12 warning memory-command-undefined", // $ pnpm run lint:fix
		"CLAUDE.md:15:31 hint memory-path-missing",         // src/old.go: nothing says where it went
		"CLAUDE.md:15:68 warning memory-path-missing",      // src/util/helpers.go: moved to pkg/
		"CLAUDE.md:3:33 warning memory-command-undefined",  // npm run typecheck
		"CLAUDE.md:4:19 warning memory-command-undefined",  // pnpm test:e2e
		"CLAUDE.md:5:19 warning memory-command-undefined",  // yarn fix:all
		"CLAUDE.md:5:49 warning memory-command-undefined",  // make deploy
		"CLAUDE.md:6:65 warning memory-command-undefined",  // just release
		"docs/guide.md:3:1 warning memory-duplicate-paragraph",
		"sub/AGENTS.md:3:39 warning memory-command-undefined", // npm run sub-only
	}
	if got := promiseLines(t, "testdata/promises", nil); !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// TestPromisesKept checks that the project of the other tests, whose
// memory files keep their promises, gets none of these diagnostics, and
// that disabled codes are not reported.
func TestPromisesKept(t *testing.T) {
	t.Parallel()
	if got := promiseLines(t, "testdata/project", nil); len(got) != 0 {
		t.Errorf("diagnostics of a project that keeps its promises: %v", got)
	}
	cfg := config.Default()
	cfg.Disable = promiseCodes
	if got := promiseLines(t, "testdata/promises", cfg); len(got) != 0 {
		t.Errorf("disabled codes reported: %v", got)
	}
}

func TestRecipes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, name string
		rule       bool
	}{
		{"test-node *args=\"\": build", "test-node", true},
		{"@fmt:", "fmt", true},
		{"build target=\"x:y\":", "build", true},
		{"x := \"1\"", "", false},
		{"set shell := [\"bash\"]", "", false},
	} {
		m := justRuleRE.FindStringSubmatch(tc.line)
		if (m != nil) != tc.rule || (m != nil && m[1] != tc.name) {
			t.Errorf("justfile line %q: %v, want %q", tc.line, m, tc.name)
		}
	}
	for _, tc := range []struct {
		line, targets string
	}{
		{"check:", "check"},
		{"fmt lint: deps", "fmt lint"},
		{"VAR := x", ""},
		{"VAR ::= x", ""},
		{"a.o: a.c", "a.o"},
		{"# note: x", ""},
	} {
		got := ""
		if m := makeRuleRE.FindStringSubmatch(tc.line); m != nil {
			got = strings.Join(strings.Fields(m[1]), " ")
		}
		if got != tc.targets {
			t.Errorf("Makefile line %q: targets %q, want %q", tc.line, got, tc.targets)
		}
	}
}

// BenchmarkPromises measures Check on the promises project with the
// promise codes and without them: the ratio is what they cost.
func BenchmarkPromises(b *testing.B) {
	abs, err := filepath.Abs("testdata/promises")
	if err != nil {
		b.Fatal(err)
	}
	set, err := agentfiles.Load(context.Background(), abs, nil)
	if err != nil {
		b.Fatal(err)
	}
	off := config.Default()
	off.Disable = promiseCodes
	for _, bc := range []struct {
		name string
		cfg  *config.Config
	}{{"with", config.Default()}, {"without", off}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Check(context.Background(), set, bc.cfg, nil, nil)
			}
		})
	}
}

// TestPromisesOfLinkedFiles checks repositories whose CLAUDE.md and
// GEMINI.md are symbolic links to AGENTS.md, or AGENTS.md one to
// CLAUDE.md, as real repositories keep them: a path that names nothing is
// reported once, on the file that holds the text, not again on each link.
func TestPromisesOfLinkedFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		real  string
		links []string
	}{
		{"CLAUDE.md links to AGENTS.md", "AGENTS.md", []string{"CLAUDE.md"}},
		{"AGENTS.md links to CLAUDE.md", "CLAUDE.md", []string{"AGENTS.md"}},
		{"a package's CLAUDE.md and GEMINI.md link to its AGENTS.md", "pkg/AGENTS.md", []string{"pkg/CLAUDE.md", "pkg/GEMINI.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			testtree.WriteAt(t, dir, "src/index.ts", "export {}\n")
			testtree.WriteAt(t, dir, "pkg/src/index.ts", "export {}\n")
			testtree.WriteAt(t, dir, tc.real, "# Guide\n\nThe entry point is `src/missing-entry.ts`.\n")
			for _, l := range tc.links {
				if err := os.Symlink(filepath.Base(tc.real), filepath.Join(dir, filepath.FromSlash(l))); err != nil {
					t.Skipf("no symbolic links here: %v", err)
				}
			}
			want := []string{tc.real + ":3:21 hint memory-path-missing"}
			if got := promiseLines(t, dir, nil); !slices.Equal(got, want) {
				t.Errorf("diagnostics:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
			}
		})
	}
}

// TestPathMissingGitIgnored checks that a missing path git ignores (by the
// root's or a nested .gitignore) is left alone as build output, and that
// one a negation brings back, or no pattern names, is reported.
func TestPathMissingGitIgnored(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path string
		reported   bool
	}{
		{"folder pattern", "out-web/app.js", false},
		{"name pattern", "src/api.gen.ts", false},
		{"nested gitignore", "src/cache/index.json", false},
		{"negation brings it back", "out-keep/notes.txt", true},
		{"named by no pattern", "src/gone.ts", true},
		{"pattern of another folder", "docs/cache/x.json", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := testtree.New(t, map[string]string{
				".gitignore":     "out-*/\n!out-keep/\n*.gen.ts\n",
				"src/.gitignore": "cache/\n",
				"src/main.ts":    "",
				"docs/guide.txt": "",
				"out-keep/a.txt": "",
				"out-web/old.js": "",
				"CLAUDE.md":      "# Project\n\nSee `" + tt.path + "` for it.\n",
			})
			got := promiseLines(t, dir, nil)
			if reported := slices.Contains(got, "CLAUDE.md:3:6 hint memory-path-missing"); reported != tt.reported {
				t.Errorf("%s reported: %v, want %v (got %v)", tt.path, reported, tt.reported, got)
			}
		})
	}
}
