package library

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/refs"
)

func TestPathReadings(t *testing.T) {
	t.Parallel()
	ws := filepath.FromSlash("/ws")
	root := filepath.Join(ws, "context")
	b := &builder{
		contextRoots: []string{root},
		beside:       map[string]map[string]bool{root: {"commands": true}},
		paths:        newPathMemo(),
	}
	j := func(parts ...string) string { return filepath.Join(append([]string{ws}, parts...)...) }
	tests := []struct {
		from, path string
		candidates []string
		inRoots    bool
		keys       []string
	}{
		{
			from: j("commands", "build.md"), path: "../context/python/django.md",
			candidates: []string{j("context", "python", "django.md"), j("..", "context", "python", "django.md")},
			inRoots:    true, keys: []string{"python/django"},
		},
		{
			// A path starting with a folder beside the root, written
			// outside the root, does not read as a domain of that name.
			from: j("commands", "build.md"), path: "commands/test.md",
			candidates: []string{j("commands", "commands", "test.md"), j("commands", "test.md")},
		},
		{
			// Inside the root it does.
			from: j("context", "python", "django.md"), path: "commands/test.md",
			candidates: []string{j("context", "python", "commands", "test.md"), j("commands", "test.md"), j("context", "commands", "test.md")},
			inRoots:    true, keys: []string{"python/commands/test", "commands/test"},
		},
		{
			from: j("README.md"), path: "/python/django.md",
			candidates: []string{j("python", "django.md"), j("context", "python", "django.md")},
			inRoots:    true, keys: []string{"python/django"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			r := refs.Ref{Form: refs.PathForm, Path: tt.path}
			for pass := range 2 { // the second pass reads the memo
				got := b.readingOf(tt.from, r)
				if !slices.Equal(got.candidates, tt.candidates) {
					t.Errorf("pass %d: candidates = %q, want %q", pass, got.candidates, tt.candidates)
				}
				if got.inRoots != tt.inRoots {
					t.Errorf("pass %d: inRoots = %v, want %v", pass, got.inRoots, tt.inRoots)
				}
				if !slices.Equal(got.keys, tt.keys) {
					t.Errorf("pass %d: keys = %q, want %q", pass, got.keys, tt.keys)
				}
			}
		})
	}
}

func TestPathMemoIsBounded(t *testing.T) {
	t.Parallel()
	root := filepath.FromSlash("/ws/context")
	b := &builder{contextRoots: []string{root}, paths: newPathMemo()}
	from := filepath.Join(root, "python", "django.md")
	read := func(i int) *pathReading {
		return b.readingOf(from, refs.Ref{Form: refs.PathForm, Path: fmt.Sprintf("t%d.md", i)})
	}
	// A reading used again while others pass through stays remembered.
	kept := read(-1)
	for i := range 5 * maxPathMemo {
		read(i)
		if i%(maxPathMemo/2) == 0 && read(-1) != kept {
			t.Fatalf("after %d other readings, the reading in use was computed again", i)
		}
	}
	if n := len(b.paths.cur) + len(b.paths.old); n > 2*maxPathMemo {
		t.Fatalf("memo holds %d readings, want at most %d", n, 2*maxPathMemo)
	}
	if r := read(7); read(7) != r {
		t.Fatal("a reading just computed is not remembered")
	}
}
