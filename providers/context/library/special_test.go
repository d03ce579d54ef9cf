//go:build unix

package library

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/fsguard/fsguardtest"
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
	pipe := fsguardtest.Pipe(t, filepath.Join(dir, "context/python/pipe.md"))
	topipe := fsguardtest.Link(t, "pipe.md", filepath.Join(dir, "context/python/topipe.md"))
	l := loadWithin(t, dir)
	warned := map[string]string{}
	for _, w := range l.Snapshot().Warnings() {
		warned[filepath.Base(w.Path)] = w.Message
	}
	for _, name := range []string{"pipe.md", "topipe.md"} {
		if !strings.Contains(warned[name], "named pipe") {
			t.Errorf("warning for %s = %q, want one naming a named pipe; all: %v", name, warned[name], l.Snapshot().Warnings())
		}
		if _, ok := l.Snapshot().File(filepath.Join(dir, "context/python", name)); ok {
			t.Errorf("%s listed as a file", name)
		}
	}
	if _, ok := l.Snapshot().Topic("python/good"); !ok {
		t.Error("good topic lost")
	}
	wantDiags(t, l, "commands/c.md", "a command beside the pipe")
	var err error
	fsguardtest.Within(t, "a change naming the pipe", func() {
		_, err = l.Apply(context.Background(), []Change{{Path: pipe}, {Path: topipe}})
	})
	if err != nil {
		t.Error(err)
	}
	if _, ok := l.Snapshot().File(pipe); ok {
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
		{"named pipe", func(t *testing.T, p string) { fsguardtest.Pipe(t, p) }, "named pipe"},
		{"link outside", func(t *testing.T, p string) {
			fsguardtest.Link(t, fsguardtest.Outside(t, "cfg.yaml", "contextRoots: [/etc]\n"), p)
		}, "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"context/python/good.md": goodTopic})
			tc.make(t, filepath.Join(dir, ".ctxls.yaml"))
			l := loadWithin(t, dir)
			probs := l.Snapshot().ConfigProblems()
			if len(probs) != 1 || !strings.Contains(probs[0].Message, tc.want) {
				t.Errorf("problems = %v, want one saying %q", probs, tc.want)
			}
			if _, ok := l.Snapshot().Topic("python/good"); !ok {
				t.Error("good topic lost")
			}
		})
	}
}

// loadWithin loads dir, failing the test when the load blocks or fails.
func loadWithin(t *testing.T, dir string) *Library {
	t.Helper()
	return fsguardtest.Call(t, "the load", func() (*Library, error) { return Load(context.Background(), dir, nil, Options{}) })
}
