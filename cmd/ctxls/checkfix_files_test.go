//go:build unix

package main

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/atomicfile"
)

// entry is one file of a test tree: its content and mode, or the target
// of a symbolic link, or the file of the tree it is a hard link to.
type entry struct {
	text string
	mode fs.FileMode
	link string
	hard string
}

// buildTree writes files under dir.
func buildTree(t *testing.T, dir string, files map[string]entry) {
	t.Helper()
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		e := files[rel]
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if e.link != "" {
			if err := os.Symlink(e.link, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if e.hard != "" {
			continue // made once every file is written
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, []byte(e.text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		if to := files[rel].hard; to != "" {
			if err := os.Link(filepath.Join(dir, filepath.FromSlash(to)), filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// readTree reads every file and link under dir but .git, by its relative
// path.
func readTree(t *testing.T, dir string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			to, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = entry{link: to}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			out[rel] = entry{text: string(data), mode: fi.Mode().Perm()}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTrees fails the test where trees a and b differ.
func sameTrees(t *testing.T, what string, a, b map[string]entry) {
	t.Helper()
	for _, rel := range slices.Sorted(maps.Keys(a)) {
		if got, ok := b[rel]; !ok {
			t.Errorf("%s: %s is missing", what, rel)
		} else if got != a[rel] {
			t.Errorf("%s: %s differs:\n%+v\nwant\n%+v", what, rel, got, a[rel])
		}
	}
	for rel := range b {
		if _, ok := a[rel]; !ok {
			t.Errorf("%s: %s is extra", what, rel)
		}
	}
}

func withoutModes(tree map[string]entry) map[string]entry {
	out := map[string]entry{}
	for rel, e := range tree {
		e.mode = 0
		out[rel] = e
	}
	return out
}

// fixCases is a workspace with several fixes per file, files with CRLF
// line breaks, a byte order mark or no final newline, modes 0600 and
// 0755, a topic linked into two domains, and a skill whose second fix
// shows only once the first is applied.
var fixCases = map[string]entry{
	".ctxls.yaml": {text: "contextRoots: [context]\n"},
	"context/alpha/lf.md": {text: "---\nid: wrong/lf\ndomain: wrong\nestimatedTokens: 900\n---\n# LF\n\nSome body text here for tokens.\n",
		mode: 0o600},
	"context/alpha/crlf.md": {text: "---\r\nid: wrong/crlf\r\ndomain: alpha\r\nestimatedTokens: 900\r\n---\r\n# CRLF\r\n\r\nBody of the file.\r\n",
		mode: 0o755},
	"context/alpha/bom.md":      {text: "\xef\xbb\xbf---\nid: alpha/bom\ndomain: wrong\nestimatedTokens: 1\n---\n# BOM\n\nNo final newline, and a byte order mark."},
	"context/alpha/shared.md":   {text: "---\nid: alpha/shared\ndomain: alpha\nestimatedTokens: 3\n---\n# Shared\n\nShared text.\n"},
	"context/beta/shared.md":    {link: "../alpha/shared.md"},
	"context/beta/b.md":         {text: "---\nid: beta/b\ndomain: beta\nestimatedTokens: 2\n---\n# B\n\nbeta.\n"},
	".agents/skills/q/SKILL.md": {text: "---\nname: q: it\ndescription: Use when: shipping\n---\nBody.\n"},
	"CLAUDE.md":                 {text: "Read @docs/x.md: first, then @docs/y.md, too.\r\nMore.\r\n"},
	"docs/x.md":                 {text: "# X\n"},
	"docs/y.md":                 {text: "# Y\n"},
}

// TestFixDryRunIsWhatFixWrites applies the diff --fix --dry-run prints
// with git apply to one copy of a workspace and runs --fix on another:
// both must hold the same bytes, and a second --fix must change nothing.
func TestFixDryRunIsWhatFixWrites(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	before := t.TempDir()
	buildTree(t, before, fixCases)
	orig := readTree(t, before)

	applied := t.TempDir()
	buildTree(t, applied, fixCases)
	diff, errOut, err := runCLI(t, "check", applied, "--no-cache", "--fix", "--dry-run")
	if code := exitCode(err); code != 1 {
		t.Fatalf("dry run: exit %d (%v), want 1\n%s", code, err, errOut)
	}
	sameTrees(t, "after --dry-run", orig, readTree(t, applied))
	for _, want := range []string{"+id: alpha/lf\n", "+id: alpha/crlf\r\n", "+domain: alpha\n", "+name: q\n", "@docs/x.md : first"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "shared.md") {
		t.Errorf("the topic linked into two domains is fixed:\n%s", diff)
	}
	cmd := exec.Command(git, "apply", "--whitespace=nowarn", "-")
	cmd.Dir = applied
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\ndiff:\n%s", err, out, diff)
	}

	fixed := t.TempDir()
	buildTree(t, fixed, fixCases)
	_, errOut, err = runCLI(t, "check", fixed, "--no-cache", "--fix")
	if code := exitCode(err); code > 1 {
		t.Fatalf("fix: exit %d (%v)\n%s", code, err, errOut)
	}
	after := readTree(t, fixed)
	// git apply writes a file of mode 0644 or 0755; --fix keeps the mode.
	sameTrees(t, "git apply of the dry run against --fix", withoutModes(after), withoutModes(readTree(t, applied)))
	for rel, e := range after {
		if e.mode != orig[rel].mode {
			t.Errorf("--fix made %s mode %s, was %s", rel, e.mode, orig[rel].mode)
		}
	}
	if e := after["context/beta/shared.md"]; e.link != "../alpha/shared.md" {
		t.Errorf("the link is now %+v", e)
	}
	if got := after["context/alpha/bom.md"].text; !strings.HasPrefix(got, "\xef\xbb\xbf") || strings.HasSuffix(got, "\n") {
		t.Errorf("bom.md lost its byte order mark or gained a final newline: %q", got)
	}
	if got := after["context/alpha/crlf.md"].text; strings.Count(got, "\n") != strings.Count(got, "\r\n") {
		t.Errorf("crlf.md holds a bare line feed: %q", got)
	}

	_, errOut, err = runCLI(t, "check", fixed, "--no-cache", "--fix")
	if code := exitCode(err); code > 1 || strings.Contains(errOut, "fixed") {
		t.Errorf("second --fix: exit %d, stderr %q", code, errOut)
	}
	sameTrees(t, "second --fix", after, readTree(t, fixed))
	if out, _, err := runCLI(t, "check", fixed, "--no-cache", "--dry-run"); exitCode(err) != 0 || out != "" {
		t.Errorf("dry run after --fix: exit %d\n%s", exitCode(err), out)
	}
}

// TestFixLeavesWhatItCannotWrite: a read-only file, a file in a
// read-only folder, and the other files fixed; --fix and its dry run say
// which file is left and why, and exit 2. Root too leaves them.
func TestFixLeavesWhatItCannotWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rel    string
		chmod  string // the path made read-only
		reason string
	}{
		{"read-only file", "context/alpha/lf.md", "context/alpha/lf.md", "read-only"},
		{"read-only folder", "context/alpha/crlf.md", "context/alpha", "folder is read-only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			buildTree(t, dir, fixCases)
			ro := filepath.Join(dir, filepath.FromSlash(tc.chmod))
			fi, err := os.Stat(ro)
			if err != nil {
				t.Fatal(err)
			}
			mode := fs.FileMode(0o444)
			if fi.IsDir() {
				mode = 0o555
			}
			if err := os.Chmod(ro, mode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(ro, 0o755) })
			orig := readTree(t, dir)

			diff, errOut, err := runCLI(t, "check", dir, "--no-cache", "--dry-run")
			if code := exitCode(err); code != 2 {
				t.Errorf("dry run: exit %d (%v), want 2", code, err)
			}
			if !strings.Contains(errOut, tc.rel) || !strings.Contains(errOut, tc.reason) {
				t.Errorf("dry run stderr %q does not say %s is left for %q", errOut, tc.rel, tc.reason)
			}
			if strings.Contains(diff, tc.rel) {
				t.Errorf("the dry run shows a change --fix would not write:\n%s", diff)
			}

			_, errOut, err = runCLI(t, "check", dir, "--no-cache", "--fix")
			if code := exitCode(err); code != 2 {
				t.Errorf("fix: exit %d (%v), want 2", code, err)
			}
			if !strings.Contains(errOut, tc.rel+" left as it was") || !strings.Contains(errOut, tc.reason) {
				t.Errorf("stderr %q does not say %s is left for %q", errOut, tc.rel, tc.reason)
			}
			after := readTree(t, dir)
			if after[tc.rel] != orig[tc.rel] {
				t.Errorf("%s changed: %+v", tc.rel, after[tc.rel])
			}
			if after[".agents/skills/q/SKILL.md"] == orig[".agents/skills/q/SKILL.md"] {
				t.Errorf("the writable files were not fixed")
			}
			for rel := range after {
				if atomicfile.IsTemp(filepath.Base(rel)) {
					t.Errorf("stray temporary file %s", rel)
				}
			}
		})
	}
}

// TestFixFullDisk runs --fix on a workspace on a full tmpfs: the file
// the fix grows keeps its content, and the command says why and exits 2.
func TestFixFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	rel := "context/alpha/big.md"
	body := strings.Repeat("A line of the topic's body, long enough to count.\n", 4000) // 200 kB
	buildTree(t, dir, map[string]entry{
		".ctxls.yaml": {text: "contextRoots: [context]\n"},
		rel:           {text: "---\nid: wrong/big\ndomain: alpha\n---\n# Big\n\n" + body},
	})
	orig := readTree(t, dir)
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := fill.Write(chunk); err != nil {
			break
		}
	}
	fill.Close()
	_, errOut, err := runCLI(t, "check", dir, "--no-cache", "--fix")
	if code := exitCode(err); code != 2 {
		t.Errorf("exit %d (%v), want 2\n%s", code, err, errOut)
	}
	if !strings.Contains(errOut, rel+" left as it was") || !strings.Contains(errOut, "no space left on device") {
		t.Errorf("stderr %q does not say why %s is left", errOut, rel)
	}
	after := readTree(t, dir)
	if after[rel] != orig[rel] {
		t.Errorf("%s holds %d bytes, want its %d", rel, len(after[rel].text), len(orig[rel].text))
	}
	for p := range after {
		if atomicfile.IsTemp(filepath.Base(p)) {
			t.Errorf("stray temporary file %s", p)
		}
	}
}
