package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/tokens"
)

// loadProject loads the agent files of testdata/project and returns its
// absolute path with them.
func loadProject(t *testing.T) (string, *agentfiles.Set) {
	t.Helper()
	dir, err := filepath.Abs("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	set, err := agentfiles.Load(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, set
}

func TestCheck(t *testing.T) {
	t.Parallel()
	dir, set := loadProject(t)
	counter, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	type found struct{ file, at, code string }
	collect := func(cfg *config.Config) []found {
		var out []found
		all := Check(context.Background(), set, cfg, counter, nil).Diagnostics
		var paths []string
		for p := range all {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for _, p := range paths {
			for _, d := range all[p] {
				f, _ := filepath.Rel(dir, p)
				text := ""
				if af, ok := set.File(p); ok {
					text = string(af.Text[d.Span.Start:d.Span.End])
				} else {
					text = "@" // a file that is not an agent file: only imports
				}
				out = append(out, found{filepath.ToSlash(f), text, d.Code})
				if d.Severity != diag.Default(d.Code) || d.Message == "" {
					t.Errorf("%+v: severity %v, message %q", d, d.Severity, d.Message)
				}
			}
		}
		return out
	}
	want := []found{
		{".claude/rules/bad.md", `"src/**/*.{ts"`, diag.RulePathsInvalid},
		{".claude/rules/bad.md", `42`, diag.RulePathsInvalid},
		{".claude/rules/bad.md", `"nomatch/**"`, diag.RulePathsInvalid},
		{".claude/rules/map.md", `a: b`, diag.RulePathsInvalid},
		{"CLAUDE.local.md", `@docs/b.md,`, diag.ImportTrailingPunctuation},
		// Reached from CLAUDE.md and CLAUDE.local.md, reported once.
		{"docs/a.md", `@`, diag.ImportMissing},
	}
	got := collect(nil)
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics\n got %v\nwant %v", got, want)
	}
	cfg := config.Default()
	cfg.Disable = []string{diag.RulePathsInvalid}
	if got := collect(cfg); len(got) != 2 {
		t.Errorf("with %s disabled: %v", diag.RulePathsInvalid, got)
	}
}

func TestRuleFiles(t *testing.T) {
	t.Parallel()
	files := []string{"main.go", "pkg/a.go", "pkg/sub/b.ts", "other/c.go"}
	tests := []struct {
		rel  string
		want []string
	}{
		{".claude/rules/x.md", files},
		{"pkg/.claude/rules/x.md", []string{"a.go", "sub/b.ts"}},
	}
	for _, tt := range tests {
		if got := ruleFiles(tt.rel, files); !slices.Equal(got, tt.want) {
			t.Errorf("ruleFiles(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

// Check reads files through the reader it is given (an editor's text),
// and reports every file of the trees.
func TestCheckReader(t *testing.T) {
	t.Parallel()
	dir, set := loadProject(t)
	claude := filepath.Join(dir, "CLAUDE.md")
	read := func(p string) ([]byte, error) {
		if p == claude {
			return []byte("# Memory\n\n@docs/b.md and @docs/nope.md\n"), nil
		}
		return os.ReadFile(p)
	}
	r := Check(context.Background(), set, nil, nil, read)
	ds := r.Diagnostics[claude]
	if len(ds) != 1 || ds[0].Code != diag.ImportMissing {
		t.Errorf("CLAUDE.md as read: %+v, want one %s", ds, diag.ImportMissing)
	}
	for _, rel := range []string{"CLAUDE.md", "CLAUDE.local.md", "docs/a.md", "docs/b.md", ".claude/rules/ok.md"} {
		if !r.Files[filepath.Join(dir, rel)] {
			t.Errorf("Files lacks %s", rel)
		}
	}
	if r.Files[filepath.Join(dir, "main.go")] {
		t.Error("Files holds main.go, which no tree loads")
	}
	f, ok := FileOf(set, claude, read)
	if !ok || string(f.Text) != "# Memory\n\n@docs/b.md and @docs/nope.md\n" || f.Kind != agentfiles.KindMemory {
		t.Errorf("FileOf = %+v, %v", f, ok)
	}
}

// A glob that matches nothing does not stop the rule loading by another.
func TestRulePathsMessages(t *testing.T) {
	t.Parallel()
	files := []string{"src/a.go"}
	tests := []struct {
		globs string
		want  []string
	}{
		{"[\"src/**\", \"tests/**\"]", []string{"loads by its other globs only"}},
		{"[\"tests/**\", \"docs/**\"]", []string{"never loads", "never loads"}},
		{"[\"src/**\"]", nil},
	}
	for _, tt := range tests {
		doc := document.Parse("r.md", []byte("---\npaths: "+tt.globs+"\n---\nRule.\n"))
		ds := rulePaths("r.md", doc, files)
		if len(ds) != len(tt.want) {
			t.Errorf("%s: %d diagnostics %+v, want %d", tt.globs, len(ds), ds, len(tt.want))
			continue
		}
		for i, d := range ds {
			if !strings.Contains(d.Message, tt.want[i]) {
				t.Errorf("%s: message %q, want it to hold %q", tt.globs, d.Message, tt.want[i])
			}
		}
	}
}
