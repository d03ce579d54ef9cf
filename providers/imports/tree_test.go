package imports

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/tokens"
)

func project(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestBuildProject(t *testing.T) {
	t.Parallel()
	root := project(t)
	counter, err := tokens.New("")
	if err != nil {
		t.Fatal(err)
	}
	tree := mustBuild(t, filepath.Join(root, "CLAUDE.md"), Options{Root: root, Home: "/home/u", Counter: counter})
	var loaded []string
	for _, f := range tree.Files {
		loaded = append(loaded, show(root, f.Path)+"@"+string(rune('0'+f.Hop)))
	}
	want := []string{"CLAUDE.md@0", "docs/guide.md@1", "chain/one.md@1", "chain/two.md@2", "chain/three.md@3", "chain/four.md@4"}
	if !slices.Equal(loaded, want) {
		t.Errorf("loaded %v, want %v", loaded, want)
	}
	// Tokens are the real tokenizer's count of each file, summed once.
	sum := 0
	for _, f := range tree.Files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if n := counter.Count(string(b)); f.Tokens != n || n == 0 {
			t.Errorf("%s: %d tokens, counted %d", f.Path, f.Tokens, n)
		}
		sum += f.Tokens
	}
	if tree.Tokens != sum {
		t.Errorf("tree tokens %d, want the sum %d", tree.Tokens, sum)
	}
	one := filepath.Join(root, "chain/one.md")
	if got, want := tree.Subtree(one), sum-tree.File(filepath.Join(root, "CLAUDE.md")).Tokens-tree.File(filepath.Join(root, "docs/guide.md")).Tokens; got != want {
		t.Errorf("subtree of chain/one.md = %d, want %d", got, want)
	}

	type problem struct{ file, at, code string }
	var got []problem
	for _, p := range tree.Problems(root) {
		b, err := os.ReadFile(p.Path)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, problem{show(root, p.Path), string(b[p.Span.Start:p.Span.End]), p.Code})
		if p.Message == "" {
			t.Errorf("%v: no message", p)
		}
	}
	wantProblems := []problem{
		{"CLAUDE.md", "@docs/workflow.md:", diag.ImportTrailingPunctuation},
		{"CLAUDE.md", "@docs/missing.md", diag.ImportMissing},
		{"CLAUDE.md", "@~/.claude/personal.md", diag.ImportOutsideProject},
		{"docs/guide.md", "@../CLAUDE.md", diag.ImportCycle},
		{"chain/four.md", "@five.md", diag.ImportTooDeep},
	}
	if !slices.Equal(got, wantProblems) {
		t.Errorf("problems\n got %v\nwant %v", got, wantProblems)
	}
}

func TestBuildFixAndMessages(t *testing.T) {
	t.Parallel()
	root := project(t)
	tree := mustBuild(t, filepath.Join(root, "CLAUDE.md"), Options{Root: root})
	text, err := os.ReadFile(filepath.Join(root, "CLAUDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tree.Problems(root) {
		switch p.Code {
		case diag.ImportTrailingPunctuation:
			if len(p.Fixes) == 0 {
				t.Fatal("trailing punctuation without a fix")
			}
			fixed := string(text[:p.Fixes[0].Edits[0].Span.Start]) + p.Fixes[0].Edits[0].NewText + string(text[p.Fixes[0].Edits[0].Span.End:])
			if !strings.Contains(fixed, "@docs/workflow.md : read") {
				t.Errorf("fix gives %q", fixed)
			}
		case diag.ImportCycle:
			if !strings.Contains(p.Message, "CLAUDE.md → docs/guide.md → CLAUDE.md") {
				t.Errorf("cycle message %q does not show the cycle", p.Message)
			}
		case diag.ImportTooDeep:
			if !strings.Contains(p.Message, "5 hops") || !strings.Contains(p.Message, "limit of 4") {
				t.Errorf("too-deep message %q", p.Message)
			}
		default:
			if len(p.Fixes) > 0 {
				t.Errorf("%s has a fix", p.Code)
			}
		}
	}
}

func TestBuildDepthSetting(t *testing.T) {
	t.Parallel()
	root := project(t)
	tree := mustBuild(t, filepath.Join(root, "CLAUDE.md"), Options{Root: root, MaxHops: 5})
	if tree.File(filepath.Join(root, "chain/five.md")) == nil {
		t.Error("with 5 hops allowed, chain/five.md does not load")
	}
	for _, p := range tree.Problems(root) {
		if p.Code == diag.ImportTooDeep {
			t.Errorf("unexpected %s: %s", p.Code, p.Message)
		}
	}
}

func TestBuildEdgeCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) { testtree.WriteAt(t, dir, name, text) }
	write("proj/CLAUDE.md", "@self.md @a.md @a.md @b.md @folder @../outside.md @big.md @huge.md @CLAUDE.md @a.md.\n"+
		"Ask @alice, install @types/node and @v2.1; not @folder/none nor @gone.md\n"+
		"See @README and @LICENSE and @Makefile\nRead @README.\n")
	write("proj/README.md", "readme\n")
	write("proj/self.md", "@self.md\n")
	write("proj/a.md", "a\n")
	write("proj/b.md", "@a.md\n")
	write("proj/folder/x.md", "x\n")
	write("outside.md", "o\n")
	write("proj/big.md", strings.Repeat("é", defaultMaxChars+1))
	huge, err := os.Create(filepath.Join(dir, "proj/huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	huge.Close()
	root := filepath.Join(dir, "proj")
	tree := mustBuild(t, filepath.Join(root, "CLAUDE.md"), Options{Root: root})
	statuses := importStatuses(tree)
	want := []string{"self.md=loaded", "a.md=loaded", "a.md=already loaded", "b.md=loaded", "folder=missing",
		"../outside.md=outside the project", "big.md=loaded", "huge.md=too large", "CLAUDE.md=cycle", "a.md.=missing",
		"alice,=not a file", "types/node=not a file", "v2.1;=not a file", "folder/none=missing", "gone.md=missing",
		"README=missing", "LICENSE=missing", "Makefile=missing", "README.=missing"}
	if !slices.Equal(statuses, want) {
		t.Errorf("statuses\n got %v\nwant %v", statuses, want)
	}
	codes := map[string]int{}
	for _, p := range tree.Problems(root) {
		codes[p.Code]++
		if p.Code == diag.ImportMissing && strings.Contains(p.Message, "a.md.") && !strings.Contains(p.Message, `final "."`) {
			t.Errorf("the message of a path ending in a period does not say why: %s", p.Message)
		}
		if p.Code == diag.ImportMissing && strings.HasPrefix(p.Message, "@README ") && !strings.Contains(p.Message, "did you mean README.md?") {
			t.Errorf("no did-you-mean for @README: %s", p.Message)
		}
		if want := `@README. is not loaded: there is no file README. (the agent reads the final "." as part of the name; did you mean @README.md?)`; strings.HasPrefix(p.Message, "@README. ") && p.Message != want {
			t.Errorf("@README.: %s\nwant %s", p.Message, want)
		}
		if _, ok := diag.Lookup(p.Code); !ok {
			t.Errorf("code %q is not in the rules table", p.Code)
		}
	}
	// self.md imports itself, CLAUDE.md imports itself; b.md's import of
	// a.md is no problem; big.md is flagged for size, huge.md for being
	// skipped.
	wantCodes := map[string]int{diag.ImportCycle: 2, diag.ImportMissing: 8, diag.ImportOutsideProject: 1, diag.MemoryTooLarge: 2}
	if !maps.Equal(codes, wantCodes) {
		t.Errorf("codes %v, want %v", codes, wantCodes)
	}
	if _, err := Build(context.Background(), filepath.Join(root, "nope.md"), Options{Root: root}); err == nil {
		t.Error("Build of a missing memory file did not fail")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, filepath.Join(root, "CLAUDE.md"), Options{Root: root}); err == nil {
		t.Error("Build with a cancelled context did not fail")
	}
}

func TestRootTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "CLAUDE.md")
	if err := os.WriteFile(p, []byte("# Big\n"+strings.Repeat("word ", defaultMaxChars/5+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := mustBuild(t, p, Options{Root: dir})
	ps := tree.Problems(dir)
	if len(ps) != 1 || ps[0].Code != diag.MemoryTooLarge || ps[0].Span.Start != 0 || ps[0].Span.End != len("# Big") {
		t.Errorf("problems %+v, want one %s on the first line", ps, diag.MemoryTooLarge)
	}
}

// A dotted name in prose is a decorator or a method, not a file the
// writer meant to import, unless it ends as a file does.
func TestDottedNamesAreMentions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := "Route with @app.get, test with @pytest.mark.parametrize and @app.get.\n" +
		"Keep @notes.md, @settings.yaml and @lib/app.get in mind.\n"
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := mustBuild(t, filepath.Join(dir, "CLAUDE.md"), Options{Root: dir})
	got := importStatuses(tree)
	want := []string{"app.get,=not a file", "pytest.mark.parametrize=not a file", "app.get.=not a file",
		"notes.md,=trailing punctuation", "settings.yaml=missing", "lib/app.get=missing"}
	if !slices.Equal(got, want) {
		t.Errorf("statuses\n got %v\nwant %v", got, want)
	}
}

// mustBuild builds the import tree of the memory file at path, failing
// the test on an error.
func mustBuild(t testing.TB, path string, opt Options) *Tree {
	t.Helper()
	tree, err := Build(context.Background(), path, opt)
	if err != nil {
		t.Fatalf("Build(%s): %v", path, err)
	}
	return tree
}

// importStatuses returns the imports of the tree's root as path=status.
func importStatuses(tree *Tree) []string {
	var out []string
	for _, e := range tree.Root().Imports {
		out = append(out, e.Path+"="+e.Status.String())
	}
	return out
}

// TestBuildImportOfPipe checks that an import of a named pipe is not read
// and does not hold Build: with no writer, opening it for reading would
// block.
func TestBuildImportOfPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	claude := testtree.Write(t, filepath.Join(dir, "CLAUDE.md"), "@pipe.md @a.md\n")
	testtree.Write(t, filepath.Join(dir, "a.md"), "a\n")
	fsguardtest.Pipe(t, filepath.Join(dir, "pipe.md"))
	tree := fsguardtest.Call(t, "Build", func() (*Tree, error) { return Build(context.Background(), claude, Options{Root: dir}) })
	got := importStatuses(tree)
	if len(got) != 2 || got[0] == "pipe.md=loaded" || got[1] != "a.md=loaded" {
		t.Errorf("imports %v; want pipe.md not loaded and a.md loaded", got)
	}
}

// TestRootCheck builds the tree of a memory file whose imports lead out
// of the project through links, to a named pipe and to a loop of links:
// none is read, whichever reader the caller gives, and the problems do
// not say where the links lead.
func TestRootCheck(t *testing.T) {
	t.Parallel()
	secret := fsguardtest.Outside(t, "id_rsa", "key material")
	dir := testtree.New(t, map[string]string{
		"CLAUDE.md":    "@docs/notes.md @keys/id_rsa @docs/pipe.md @docs/a.md @docs/inside.md @docs/real.md\n",
		"docs/real.md": "# Real\n",
	})
	fsguardtest.Links(t, dir, map[string]string{
		"docs/notes.md":  secret,
		"keys":           filepath.Dir(secret),
		"docs/a.md":      "b.md",
		"docs/b.md":      "a.md",
		"docs/inside.md": "real.md",
	})
	fsguardtest.Pipe(t, filepath.Join(dir, "docs", "pipe.md"))
	var asked []string
	opt := Options{Root: dir, Read: func(p string) ([]byte, error) {
		// An editor's text, say: the reader never sees a refused file.
		asked = append(asked, show(dir, p))
		return os.ReadFile(p)
	}}
	var tree *Tree
	fsguardtest.Within(t, "Build", func() { tree, _ = Build(context.Background(), filepath.Join(dir, "CLAUDE.md"), opt) })
	if tree == nil {
		t.Fatal("Build failed")
	}
	got := importStatuses(tree)
	want := []string{"docs/notes.md=link out of the project", "keys/id_rsa=link out of the project",
		"docs/pipe.md=not a regular file", "docs/a.md=not a regular file", "docs/inside.md=loaded", "docs/real.md=loaded"}
	if !slices.Equal(got, want) {
		t.Errorf("statuses\n got %v\nwant %v", got, want)
	}
	if want := []string{"CLAUDE.md", "docs/inside.md", "docs/real.md"}; !slices.Equal(asked, want) {
		t.Errorf("the reader was asked for %v, want %v", asked, want)
	}
	codes := map[string]int{}
	for _, p := range tree.Problems(dir) {
		codes[p.Code]++
		if strings.Contains(p.Message, filepath.Dir(secret)) {
			t.Errorf("%s says where the link leads: %s", p.Code, p.Message)
		}
	}
	if codes[diag.ImportOutsideProject] != 2 || codes[diag.FileSkipped] != 2 || len(codes) != 2 {
		t.Errorf("problems by code %v; want two %s and two %s", codes, diag.ImportOutsideProject, diag.FileSkipped)
	}
}

// TestFinalPeriodBeforeLinkOut checks an import that ends a sentence
// with the file's path, where the file is a link out of the workspace:
// the hint to put a space before the period is given as for any file, and
// the message does not say where the link leads.
func TestFinalPeriodBeforeLinkOut(t *testing.T) {
	t.Parallel()
	secret := fsguardtest.Outside(t, "secret.md", "# Secret\n")
	dir := testtree.New(t, map[string]string{"CLAUDE.md": "See @notes.md.\n"})
	fsguardtest.Link(t, secret, filepath.Join(dir, "notes.md"))
	tree, err := Build(t.Context(), filepath.Join(dir, "CLAUDE.md"), Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	ps := tree.Problems(dir)
	if len(ps) != 1 || ps[0].Code != diag.ImportMissing || !strings.Contains(ps[0].Message, "put a space before it") {
		t.Fatalf("problems %+v; want one %s with the hint", ps, diag.ImportMissing)
	}
	if strings.Contains(ps[0].Message, filepath.Dir(secret)) {
		t.Errorf("the message says where the link leads: %s", ps[0].Message)
	}
}
