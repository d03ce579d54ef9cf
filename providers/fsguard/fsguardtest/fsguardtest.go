// Package fsguardtest makes the files of a test's workspace that are not
// what they seem (internal/testtree writes the ordinary ones), which code
// reading a workspace must neither follow out of it nor block on: named
// pipes, symbolic links (out of the workspace, in loops, dangling) and
// files outside the workspace. It runs the code under test with a
// deadline, so that a read blocked on a pipe fails the test instead of
// hanging it.
package fsguardtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
)

// deadline bounds every wait of [Within]. It is generous: the machines
// running the tests are shared and slow, and a wait ends as soon as the
// code returns.
const deadline = 30 * time.Second

// Link makes a symbolic link at p to target, creating p's directory, and
// returns p. It skips the test on Windows when the system refuses the link
// (making one there needs a privilege or developer mode).
func Link(t testing.TB, target, p string) string {
	t.Helper()
	mkdir(t, p)
	if err := os.Symlink(target, p); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("symbolic links: %v", err)
		}
		t.Fatal(err)
	}
	return p
}

// Links makes a symbolic link at each path below dir (slash path →
// target) of links.
func Links(t testing.TB, dir string, links map[string]string) {
	t.Helper()
	for rel, target := range links {
		Link(t, target, filepath.Join(dir, filepath.FromSlash(rel)))
	}
}

// Outside writes content at name in a new directory of its own, outside
// any workspace of the test, and returns its path.
func Outside(t testing.TB, name, content string) string {
	t.Helper()
	return testtree.Write(t, filepath.Join(t.TempDir(), name), content)
}

// Within runs f on another goroutine and fails the test when it has not
// returned within 30 seconds: what blocks on a named pipe fails rather
// than hangs. f must not call t.Fatal; what it assigns is the caller's to
// read once Within has returned.
func Within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("%s did not return within %v: blocked on a special file?", what, deadline)
	}
}

// Call runs f as Within does and returns its result, failing the test
// when f returns an error.
func Call[T any](t testing.TB, what string, f func() (T, error)) T {
	t.Helper()
	var v T
	var err error
	Within(t, what, func() { v, err = f() })
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func mkdir(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
}
