package cost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/context/library"
)

// TestSummarizeAgreesWithDocument prices every file of the example library
// both ways, with room for everything and with a limit of one.
func TestSummarizeAgreesWithDocument(t *testing.T) {
	t.Parallel()
	lib := exampleLibrary(t)
	priced := 0
	for _, f := range lib.Files() {
		items, total := Document(lib, f)
		unresolved, counted := 0, 0
		keys := map[string]bool{}
		for _, it := range items {
			if !it.Target.OK() {
				unresolved++
			}
			if it.Counted {
				counted++
			}
			keys[Text(it.Ref, it.Target)] = true
		}
		for _, limit := range []int{1000, 1} {
			s, err := summarize(context.Background(), lib, f, limit)
			if err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			if s.Total != total || s.References != len(items) || s.Unresolved != unresolved || s.Counted != counted {
				t.Errorf("%s limit %d: total %d refs %d unresolved %d counted %d, want %d %d %d %d", f.Path, limit, s.Total, s.References, s.Unresolved, s.Counted, total, len(items), unresolved, counted)
			}
			if len(s.Items)+s.OmittedItems != len(items) || len(s.Items) > limit {
				t.Errorf("%s limit %d: %d items and %d omitted, want %d in all", f.Path, limit, len(s.Items), s.OmittedItems, len(items))
			}
			if len(s.Keys)+s.OmittedKeys != len(keys) || len(s.Keys) > limit {
				t.Errorf("%s limit %d: %d keys and %d omitted, want %d in all", f.Path, limit, len(s.Keys), s.OmittedKeys, len(keys))
			}
			byTopic := 0
			for _, tc := range s.Topics {
				byTopic += tc.Tokens
			}
			if byTopic != total {
				t.Errorf("%s limit %d: topics sum to %d, want %d", f.Path, limit, byTopic, total)
			}
			for i, it := range s.Items {
				if it.Tokens != items[i].Tokens || it.Counted != items[i].Counted || it.Target.Message != items[i].Target.Message || it.Target.Candidates != nil {
					t.Errorf("%s item %d: %+v, want %+v without candidates", f.Path, i, it, items[i])
				}
			}
		}
		if total > 0 {
			priced++
		}
	}
	if priced == 0 {
		t.Fatal("no file of the example library costs anything")
	}
}

// TestCacheShares asks for one summary from many goroutines and checks
// they get the same one, and that a cancelled caller gets its error.
func TestCacheShares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := mkdirWrite(p, text); err != nil {
			t.Fatal(err)
		}
	}
	write("context/python/basics.md", "# Basics\n\n## Setup\n\nInstall it.\n")
	write("context/python/index.md", "# Python\n")
	write("commands/go.md", strings.Repeat("Read python:basics and python:nothing here.\n", 2000))
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := lib.File(filepath.Join(dir, "commands/go.md"))
	if !ok {
		t.Fatal("command file not in the library")
	}
	c := NewCache(10)
	var wg sync.WaitGroup
	got := make([]*Summary, 8)
	for i := range got {
		wg.Go(func() {
			s, err := c.Summary(context.Background(), lib, f)
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for i, s := range got {
		if s != got[0] {
			t.Fatalf("caller %d got a summary of its own", i)
		}
	}
	if s := got[0]; s == nil || s.References != 4000 || s.Unresolved != 2000 || len(s.Items) != 10 || s.OmittedItems != 3990 {
		t.Fatalf("summary %+v, want 4000 references, 2000 unresolved, 10 listed", s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := summarize(ctx, lib, f, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("summarize with a cancelled context: %v, want context.Canceled", err)
	}
}

func mkdirWrite(p, text string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

// exampleLibrary loads the example library the project ships.
func exampleLibrary(t *testing.T) *library.Library {
	t.Helper()
	dir, err := filepath.Abs("../../../examples/library")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lib
}
