package gitignore_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/gitignore"
	"github.com/ctxls/ctxls/providers/listing"
)

// tree is a workspace whose ignore files hold the patterns git reads in
// ways easy to get wrong: negation, folder-only, anchored and "**"
// patterns, nested .gitignore files, the repository's exclude file and the
// global excludes file.
var tree = map[string]string{
	".gitignore": strings.Join([]string{
		"# a comment",
		"*.log",
		"!keep.log",
		"build/",
		"/top.txt",
		"docs/**/draft.md",
		"cache/**",
		"!cache/keep.md",
		"a**b.txt",
		"file[!0-9].md",
		"trail.md   ",
		"\\#hash.md",
		"\\!bang.md",
		"generated",
		"only/dir/",
		"sub/*.json",
		"!sub/keep.json",
	}, "\n") + "\n",
	"a.log":                 "",
	"keep.log":              "",
	"x/keep.log":            "",
	"x/y.log":               "",
	"x/.log":                "",
	"tools/build":           "", // a file: "build/" names folders only
	"build/out.md":          "",
	"src/build/out.md":      "",
	"src/build.md":          "",
	"top.txt":               "",
	"src/top.txt":           "",
	"docs/draft.md":         "",
	"docs/a/draft.md":       "",
	"docs/a/b/draft.md":     "",
	"docs/final.md":         "",
	"cache/x.md":            "",
	"cache/keep.md":         "",
	"cache/deep/keep.md":    "",
	"aXYZb.txt":             "",
	"ab.txt":                "",
	"fileA.md":              "",
	"file1.md":              "",
	"trail.md":              "",
	"#hash.md":              "",
	"!bang.md":              "",
	"generated/page.md":     "",
	"src/generated/page.md": "",
	"only/dir/x.md":         "",
	"only/dir.md":           "",
	"code.ts":               "",
	"src/code.ts":           "",
	"sub/a.json":            "",
	"sub/keep.json":         "",
	"sub/deeper/a.json":     "",
	"pkg/.gitignore":        "*.md\n!README.md\n/local.txt\n",
	"pkg/README.md":         "",
	"pkg/notes.md":          "",
	"pkg/local.txt":         "",
	"pkg/inner/local.txt":   "",
	"pkg/inner/README.md":   "",
	"pkg/inner/other.md":    "",
	"excluded.md":           "",
	"wl/.gitignore":         "*\n!*/\n!*.md\n!.gitignore\n",
	"wl/a.ts":               "",
	"wl/b.md":               "",
	"wl/sub/c.md":           "",
	"wl/sub/d.ts":           "",
	"global.md":             "",
	"dir.md/in.md":          "",
	"dirs/x.txt":            "",
}

// writeTree writes tree into a new git repository and returns its folder,
// with HOME and XDG_CONFIG_HOME set to a folder holding the global
// excludes file, for git and the matcher alike.
func writeTree(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL") // restored by Setenv's cleanup
	testtree.WriteAt(t, home, ".config/git/ignore", "global.md\n")
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	testtree.WriteFiles(t, dir, tree)
	testtree.WriteAt(t, dir, ".git/info/exclude", "excluded.md\n")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git %v: %v: %s", args, err, stderr.String())
		}
	}
	return out.String()
}

// walk lists the files of dir that m does not ignore, never entering a
// folder m ignores, as discovery does.
func walk(t *testing.T, dir string, m *gitignore.Matcher, lst *listing.Listings) []string {
	t.Helper()
	var files []string
	err := lst.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if rel != "." && m.Ignored(rel, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if !m.Ignored(rel, false) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// TestMatchesGit compares the files a pruning walk keeps with those git
// lists as untracked and not ignored, and each path's answer with git
// check-ignore's.
func TestMatchesGit(t *testing.T) {
	dir := writeTree(t)
	m := gitignore.New(dir, nil)
	want := lines(git(t, dir, "-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard"))
	if got := walk(t, dir, m, nil); !slices.Equal(got, want) {
		t.Errorf("files kept:\n got %q\nwant %q", got, want)
	}
	// The same through a walk's listings, which spare looking for a
	// .gitignore where the listing shows none.
	lst := listing.New()
	if got := walk(t, dir, gitignore.NewListed(dir, nil, lst), lst); !slices.Equal(got, want) {
		t.Errorf("files kept, walking through listings:\n got %q\nwant %q", got, want)
	}
	var paths []string
	for name := range tree {
		paths = append(paths, name)
	}
	slices.Sort(paths)
	ignored := map[string]bool{}
	for _, p := range lines(git(t, dir, append([]string{"-c", "core.quotePath=false", "check-ignore", "--"}, paths...)...)) {
		ignored[p] = true
	}
	for _, p := range paths {
		if got := m.Ignored(p, false); got != ignored[p] {
			t.Errorf("Ignored(%q) = %v, git check-ignore says %v", p, got, ignored[p])
		}
	}
	for _, d := range []string{"build", "src/build", "generated", "src/generated", "only/dir", "docs", "pkg", "sub"} {
		got := m.Ignored(d, true)
		want := git(t, dir, "check-ignore", "--", d) != ""
		if got != want {
			t.Errorf("Ignored(%q, dir) = %v, git check-ignore says %v", d, got, want)
		}
	}
}

// TestInclude checks that the workspace's include list reads paths back
// that git ignores, and the folders on the way to them.
func TestInclude(t *testing.T) {
	dir := writeTree(t)
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("generated/\ncache/\n*.log\nbuild/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := gitignore.New(dir, []string{"generated", "cache/**/*.md", "a.log"})
	for _, c := range []struct {
		rel   string
		dir   bool
		want  bool
		inGit bool
	}{
		{"generated", true, false, true},
		{"generated/page.md", false, false, true},
		{"cache", true, false, true},
		{"cache/x.md", false, false, true},
		{"a.log", false, false, true},
		{"x/y.log", false, true, true},
		{"build", true, true, true},
	} {
		if got := m.Ignored(c.rel, c.dir); got != c.want {
			t.Errorf("Ignored(%q) = %v, want %v", c.rel, got, c.want)
		}
		if got := m.GitIgnored(c.rel, c.dir); got != c.inGit {
			t.Errorf("GitIgnored(%q) = %v, want %v", c.rel, got, c.inGit)
		}
	}
}

// TestSubfolderWorkspace checks a workspace that is a folder of its
// repository: the .gitignore files above it apply, anchored at the top.
func TestSubfolderWorkspace(t *testing.T) {
	dir := writeTree(t)
	m := gitignore.New(filepath.Join(dir, "pkg"), nil)
	for rel, want := range map[string]bool{"README.md": false, "notes.md": true, "local.txt": true, "inner/local.txt": false, "inner/other.md": true, "x.log": true} {
		if got := m.Ignored(rel, false); got != want {
			t.Errorf("Ignored(%q) in pkg = %v, want %v", rel, got, want)
		}
	}
}

// TestCoreExcludesFile checks that core.excludesFile of the user's git
// configuration replaces the default global excludes file.
func TestCoreExcludesFile(t *testing.T) {
	dir := writeTree(t)
	home := os.Getenv("HOME")
	if err := os.WriteFile(filepath.Join(home, "my-ignore"), []byte("code.ts\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/my-ignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := gitignore.New(dir, nil)
	for rel, want := range map[string]bool{"code.ts": true, "global.md": false} {
		if got, git := m.Ignored(rel, false), git(t, dir, "check-ignore", rel) != ""; got != want || git != want {
			t.Errorf("Ignored(%q) = %v, git %v, want %v", rel, got, git, want)
		}
	}
}

// BenchmarkMonorepo asks a fresh matcher about the folders and files of a
// monorepo's packages, as a check's walk does, under the patterns such a
// repository ignores its build output with.
func BenchmarkMonorepo(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("generated/\ndist/\n*.log\nnode_modules\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	var dirs, files []string
	for i := range 2000 {
		p := fmt.Sprintf("packages/p%04d", i)
		dirs = append(dirs, p, p+"/src", p+"/src/lib")
		files = append(files, p+"/README.md", p+"/package.json", p+"/src/index.ts", p+"/src/lib/util.ts")
		if err := os.MkdirAll(filepath.Join(dir, p, "src", "lib"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	// The walk's listings, which tell the folders that hold no .gitignore.
	lst := listing.New()
	if err := lst.WalkDir(dir, func(string, fs.DirEntry, error) error { return nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m := gitignore.NewListed(dir, nil, lst)
		m.Ignored("packages", true)
		for _, d := range dirs {
			m.Ignored(d, true)
		}
		for _, f := range files {
			m.Ignored(f, false)
		}
	}
}
