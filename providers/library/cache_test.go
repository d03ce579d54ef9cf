package library

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/indexcache"
)

var cacheTree = map[string]string{
	"context/python/index.md":       "# Python\n\n- **fastapi.md**\n- **testing.md**\n",
	"context/python/fastapi.md":     "---\nid: python/fastapi\ndomain: python\ntitle: FastAPI\nestimatedTokens: 40\n---\n# FastAPI\n\n## Routing\n\nRoutes and python:testing#Fixtures.\n\n## Errors\n\nSee python:missing.\n",
	"context/python/testing.md":     "# Testing\n\n## Fixtures\n\nFixtures for python:fastapi#Routing.\n",
	"commands/implement.md":         "# Implement\n\nLoad python:fastapi#Routing and python:testing#Nowhere and `context/python/testing.md`.\n",
	"context/python/more/nested.md": "# Nested\n\nsee python:fastapi\n",
}

// loadCached indexes dir with an index cache in cacheDir.
func loadCached(t *testing.T, dir, cacheDir string) *Library {
	t.Helper()
	l, err := Load(context.Background(), dir, config.Default(), Options{CacheDir: cacheDir, Version: "test"})
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	return l
}

// summary is what an index computed, for comparing two indexes.
type summary struct {
	Diags  map[string][]wantDiag
	Tokens map[string][]int
	Refs   map[string]int
}

func summarize(t *testing.T, l *Library) summary {
	t.Helper()
	s := summary{Diags: map[string][]wantDiag{}, Tokens: map[string][]int{}, Refs: map[string]int{}}
	for _, f := range l.Snapshot().Files() {
		s.Diags[f.Rel] = diagsOf(t, l, f.Rel)
		s.Refs[f.Rel] = f.Refs.Len()
		if f.Topic != nil {
			ts := []int{f.Topic.Tokens}
			for _, sec := range f.Topic.Sections {
				ts = append(ts, sec.Tokens)
			}
			s.Tokens[f.Rel] = ts
		}
	}
	return s
}

// An index from the cache is the index computed afresh.
func TestCacheSameIndex(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, cacheTree)
	cacheDir := t.TempDir()
	want := summarize(t, load(t, dir, nil))
	cold := summarize(t, loadCached(t, dir, cacheDir))
	warm := summarize(t, loadCached(t, dir, cacheDir))
	if !reflect.DeepEqual(cold, want) {
		t.Errorf("cold index with a cache:\n got %+v\nwant %+v", cold, want)
	}
	if !reflect.DeepEqual(warm, want) {
		t.Errorf("warm index:\n got %+v\nwant %+v", warm, want)
	}
}

// poison rewrites the cache entry of rel with a token count no tokenizer
// gives, keeping the hash, so that a test sees whether it was used.
func poison(t *testing.T, l *Library, cacheDir, rel string) {
	t.Helper()
	c, err := indexcache.Open(cacheDir, l.cacheKey(l.Snapshot().Config().Tokenizer, l.Snapshot().ContextRoots(), l.Snapshot().CommandRoots()))
	if err != nil || c.Discarded() != "" || c.Len() == 0 {
		t.Fatalf("open the cache: %v, discarded %q, %d entries", err, c.Discarded(), c.Len())
	}
	for _, f := range l.Snapshot().Files() {
		content, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := c.Lookup(f.Path, indexcache.Sum(content))
		if !ok {
			t.Fatalf("no cache entry for %s", f.Rel)
		}
		if f.Rel == rel {
			e.Tokens = 999999
		}
		c.Store(f.Path, e)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
}

func TestCacheUsedOnlyForSameContent(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, cacheTree)
	cacheDir := t.TempDir()
	rel := "context/python/testing.md"
	p := filepath.Join(dir, rel)
	mtime := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	l := loadCached(t, dir, cacheDir)
	poison(t, l, cacheDir, rel)

	topic := func(l *Library) *Topic {
		t.Helper()
		tp, ok := l.Snapshot().Topic("python/testing")
		if !ok {
			t.Fatal("no topic python/testing")
		}
		return tp
	}
	if got := topic(loadCached(t, dir, cacheDir)).Tokens; got != 999999 {
		t.Fatalf("unchanged file: tokens %d, want the cached 999999 (cache not used)", got)
	}
	// Same size, same modification time, other content.
	poison(t, l, cacheDir, rel)
	content, _ := os.ReadFile(p)
	changed := []byte(string(content[:len(content)-2]) + "X\n")
	if err := os.WriteFile(p, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	fresh := load(t, dir, nil)
	if got, want := topic(loadCached(t, dir, cacheDir)).Tokens, topic(fresh).Tokens; got != want {
		t.Errorf("file changed with the same size and time: tokens %d, want %d", got, want)
	}
}

// References are scanned again when another file changes what they can
// mean: a section that appears elsewhere.
func TestCacheViewChange(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, cacheTree)
	cacheDir := t.TempDir()
	loadCached(t, dir, cacheDir)
	p := filepath.Join(dir, "context/python/testing.md")
	if err := os.WriteFile(p, []byte("# Testing\n\n## Fixtures\n\nFixtures.\n\n## Nowhere Else\n\ntext\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := summarize(t, load(t, dir, nil))
	if got := summarize(t, loadCached(t, dir, cacheDir)); !reflect.DeepEqual(got, want) {
		t.Errorf("after a section was added:\n got %+v\nwant %+v", got, want)
	}
}

// A damaged cache file is discarded and the index is right.
func TestCacheDamaged(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, cacheTree)
	cacheDir := t.TempDir()
	l := loadCached(t, dir, cacheDir)
	want := summarize(t, l)
	c, err := indexcache.Open(cacheDir, l.cacheKey(l.Snapshot().Config().Tokenizer, l.Snapshot().ContextRoots(), l.Snapshot().CommandRoots()))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path(), data[:len(data)*2/3], 0o600); err != nil {
		t.Fatal(err)
	}
	if got := summarize(t, loadCached(t, dir, cacheDir)); !reflect.DeepEqual(got, want) {
		t.Errorf("with a truncated cache:\n got %+v\nwant %+v", got, want)
	}
	if c2, _ := indexcache.Open(cacheDir, c.Key()); c2.Discarded() != "" || c2.Len() != len(l.Snapshot().Files()) {
		t.Errorf("the truncated cache was not replaced: discarded %q, %d entries", c2.Discarded(), c2.Len())
	}
}
