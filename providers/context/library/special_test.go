//go:build unix

package library

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles puts a named pipe called pipe.md, and a link to it, in
// a context root: the scan must not block on them (reading a pipe waits
// for a writer), must skip both with a warning naming them, and must keep
// everything else. A change naming the pipe must not block either.
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"context/python/good.md": goodTopic,
		"commands/c.md":          "# C\n\nUse python:good#Part.\n",
	})
	pipe := filepath.Join(dir, "context/python/pipe.md")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("pipe.md", filepath.Join(dir, "context/python/topipe.md")); err != nil {
		t.Fatal(err)
	}
	l := within10s(t, "the scan", func() *Library { return loadNoFatal(t, dir) })
	if l == nil {
		t.FailNow()
	}
	warned := map[string]string{}
	for _, w := range l.Warnings() {
		warned[filepath.Base(w.Path)] = w.Message
	}
	for _, name := range []string{"pipe.md", "topipe.md"} {
		if !strings.Contains(warned[name], "named pipe") {
			t.Errorf("warning for %s = %q, want one naming a named pipe; all: %v", name, warned[name], l.Warnings())
		}
		if _, ok := l.File(filepath.Join(dir, "context/python", name)); ok {
			t.Errorf("%s listed as a file", name)
		}
	}
	if _, ok := l.Topic("python/good"); !ok {
		t.Error("good topic lost")
	}
	if ds := diagsOf(t, l, "commands/c.md"); len(ds) != 0 {
		t.Errorf("diagnostics beside the pipe: %v", ds)
	}
	within10s(t, "a change naming the pipe", func() *Library {
		if _, err := l.Apply(context.Background(), []Change{{Path: pipe}, {Path: filepath.Join(dir, "context/python/topipe.md")}}); err != nil {
			t.Error(err)
		}
		return l
	})
	if _, ok := l.File(pipe); ok {
		t.Error("the pipe was indexed by a change")
	}
}

// TestConfigNotWhatItSeems makes .ctxls.yaml a named pipe, or a link out
// of the workspace: the library loads with the defaults and a problem
// saying why, and does not block.
func TestConfigNotWhatItSeems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, p string)
		want string
	}{
		{"named pipe", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "named pipe"},
		{"link outside", func(t *testing.T, p string) {
			out := filepath.Join(t.TempDir(), "cfg.yaml")
			if err := os.WriteFile(out, []byte("contextRoots: [/etc]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(out, p); err != nil {
				t.Fatal(err)
			}
		}, "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"context/python/good.md": goodTopic})
			tc.make(t, filepath.Join(dir, ".ctxls.yaml"))
			l := within10s(t, "the load", func() *Library {
				l, err := Load(context.Background(), dir, nil, Options{})
				if err != nil {
					t.Error(err)
				}
				return l
			})
			if l == nil {
				t.FailNow()
			}
			probs := l.ConfigProblems()
			if len(probs) != 1 || !strings.Contains(probs[0].Message, tc.want) {
				t.Errorf("problems = %v, want one saying %q", probs, tc.want)
			}
			if _, ok := l.Topic("python/good"); !ok {
				t.Error("good topic lost")
			}
		})
	}
}

// within10s runs f and fails the test if it has not returned within ten
// seconds, so that a read blocked on a pipe fails rather than hangs. f runs
// on another goroutine and must not call t.Fatal.
func within10s(t *testing.T, what string, f func() *Library) *Library {
	t.Helper()
	done := make(chan *Library, 1)
	go func() { done <- f() }()
	select {
	case l := <-done:
		return l
	case <-time.After(30 * time.Second):
		t.Fatalf("%s blocked", what)
		return nil
	}
}

// loadNoFatal is load for another goroutine than the test's.
func loadNoFatal(t *testing.T, dir string) *Library {
	l, err := Load(context.Background(), dir, nil, Options{})
	if err != nil {
		t.Error(err)
	}
	return l
}
