package refcost

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

func TestDocument(t *testing.T) {
	t.Parallel()
	lib := libtest.LoadExample(t)
	fastapi, _ := lib.Snapshot().Topic("python/fastapi_patterns")
	di, _ := fastapi.Section("Dependency Injection")
	tests := []struct {
		file        string
		ref         string // Text of an item to check
		wantTokens  int
		wantCounted bool
	}{
		// The context list loads the topic whole: its section is not counted again.
		{"commands/implement.md", "python:fastapi_patterns", fastapi.Tokens, true},
		{"commands/implement.md", "python:fastapi_patterns#Dependency Injection", di.Tokens, false},
		{"commands/implement.md", "python:fastapi", 0, false},
	}
	for _, tc := range tests {
		f, ok := lib.Snapshot().File(filepath.Join(lib.Snapshot().Dir(), tc.file))
		if !ok {
			t.Fatalf("no %s", tc.file)
		}
		items, total := document(lib.Snapshot(), f)
		sum, found := 0, false
		for _, it := range items {
			if it.Counted {
				sum += it.Tokens
			}
			if Text(it.Ref, it.Target) == tc.ref && !found {
				found = true
				if it.Tokens != tc.wantTokens || it.Counted != tc.wantCounted {
					t.Errorf("%s %s: tokens %d counted %v, want %d %v", tc.file, tc.ref, it.Tokens, it.Counted, tc.wantTokens, tc.wantCounted)
				}
			}
		}
		if !found {
			t.Errorf("%s: no item %s", tc.file, tc.ref)
		}
		if sum != total || total <= fastapi.Tokens {
			t.Errorf("%s: total %d, counted items sum to %d", tc.file, total, sum)
		}
	}
}

// TestAgreesWithDocument prices every file of the example library with
// document and checks the other views of the same prices against it: Marks
// gives one mark per reference priced to a topic, with the same end, cost
// and counting; summarize, with room for everything and with a limit of
// one, gives the same totals and items. A cancelled context stops both.
func TestAgreesWithDocument(t *testing.T) {
	t.Parallel()
	lib := libtest.LoadExample(t)
	marked, priced := 0, 0
	for _, f := range lib.Snapshot().Files() {
		items, total := document(lib.Snapshot(), f)
		marked += checkMarks(t, lib, f, items)
		checkSummaries(t, lib, f, items, total)
		if total > 0 {
			priced++
		}
	}
	if marked == 0 || priced == 0 {
		t.Fatalf("%d marks, %d files priced in the example library: the test checks nothing", marked, priced)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range lib.Snapshot().Files() {
		if f.Refs.Len() == 0 {
			continue
		}
		if _, err := Marks(ctx, lib.Snapshot(), f); !errors.Is(err, context.Canceled) {
			t.Errorf("Marks(%s) with a cancelled context: err = %v, want context.Canceled", f.Path, err)
		}
		if _, err := summarize(ctx, lib.Snapshot(), f, 10); !errors.Is(err, context.Canceled) {
			t.Errorf("summarize(%s) with a cancelled context: err = %v, want context.Canceled", f.Path, err)
		}
		break
	}
}

// checkMarks checks the marks of f against its items and returns how many
// there are.
func checkMarks(t *testing.T, lib *library.Library, f *library.File, items []Item) int {
	t.Helper()
	var want []Mark
	for _, it := range items {
		if it.Target.OK() && it.Target.Topic != nil {
			want = append(want, Mark{End: int32(it.Ref.Span.End), Tokens: int32(it.Tokens), Counted: it.Counted})
		}
	}
	got, err := Marks(context.Background(), lib.Snapshot(), f)
	if err != nil {
		t.Fatalf("%s: %v", f.Path, err)
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d marks, want %d", f.Path, len(got), len(want))
		return len(got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: mark %d = %+v, want %+v", f.Path, i, got[i], want[i])
		}
	}
	return len(got)
}

// checkSummaries checks the summaries of f, with room for everything and
// with a limit of one, against its items and total.
func checkSummaries(t *testing.T, lib *library.Library, f *library.File, items []Item, total int) {
	t.Helper()
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
		s, err := summarize(context.Background(), lib.Snapshot(), f, limit)
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
}

func TestWithTriggers(t *testing.T) {
	t.Parallel()
	lib, _ := libtest.Load(t, map[string]string{
		"context/python/a.md":       "---\ncrossDomainTriggers: [security/b, security/b.md, \" testing/c \", python/a, missing/x]\n---\n# A\n\nSome words about a.\n",
		"context/python/solo.md":    "# Solo\n\nNo triggers here.\n",
		"context/python/broken.md":  "---\ncrossDomainTriggers: [nowhere/y]\n---\n# Broken\n\nText.\n",
		"context/security/b.md":     "# B\n\nA longer text about security that costs a few more tokens.\n",
		"context/testing/c.md":      "# C\n\nTesting.\n",
		"context/testing/index.md":  "# Testing\n",
		"context/security/index.md": "# Security\n",
		"context/python/index.md":   "# Python\n",
	})
	topic := func(id string) *library.Topic {
		tp, ok := lib.Snapshot().Topic(id)
		if !ok {
			t.Fatalf("no topic %s", id)
		}
		return tp
	}
	a, b, c := topic("python/a"), topic("security/b"), topic("testing/c")
	tests := []struct {
		topic     *library.Topic
		wantTotal int
		wantIDs   []string
	}{
		// Duplicates, a ".md" suffix, spaces and the topic itself count once;
		// a trigger that names nothing adds nothing.
		{a, a.Tokens + b.Tokens + c.Tokens, []string{"security/b", "testing/c"}},
		{topic("python/solo"), topic("python/solo").Tokens, nil},
		{topic("python/broken"), topic("python/broken").Tokens, nil},
	}
	for _, tc := range tests {
		total, triggers := WithTriggers(lib.Snapshot(), tc.topic)
		var ids []string
		for _, tr := range triggers {
			ids = append(ids, tr.ID)
		}
		if total != tc.wantTotal || !slices.Equal(ids, tc.wantIDs) {
			t.Errorf("%s: WithTriggers = %d, %v; want %d, %v", tc.topic.ID, total, ids, tc.wantTotal, tc.wantIDs)
		}
	}
}

// TestCacheShares asks for one summary from many goroutines and checks
// they get the same one, and that a cancelled caller gets its error.
func TestCacheShares(t *testing.T) {
	t.Parallel()
	lib, dir := libtest.Load(t, map[string]string{
		"context/python/basics.md": "# Basics\n\n## Setup\n\nInstall it.\n",
		"context/python/index.md":  "# Python\n",
		"commands/go.md":           strings.Repeat("Read python:basics and python:nothing here.\n", 2000),
	})
	f, ok := lib.Snapshot().File(filepath.Join(dir, "commands/go.md"))
	if !ok {
		t.Fatal("command file not in the library")
	}
	c := NewCache(10)
	var wg sync.WaitGroup
	got := make([]*Summary, 8)
	for i := range got {
		wg.Go(func() {
			s, err := c.Summary(context.Background(), lib.Snapshot(), f)
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
	if _, err := summarize(ctx, lib.Snapshot(), f, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("summarize with a cancelled context: %v, want context.Canceled", err)
	}
}

// document resolves the references of f against lib and prices them. Text
// that only looks like a reference (library.NotAReference) is left out.
// Targets carry no close names for failures: those are for diagnostics.
// It keeps an item per reference: the plain form that the tests hold
// summarize, its bounded form, to.
func document(lib *library.Snapshot, f *library.File) (items []Item, total int) {
	targets := make([]library.Target, f.Refs.Len())
	whole := map[string]bool{}
	for i, r := range f.Refs.All() {
		t := lib.ResolveBrief(f, r)
		targets[i] = t
		if t.Topic != nil && t.Section == nil && t.OK() {
			whole[t.Topic.ID] = true
		}
	}
	seen := map[string]bool{}
	for i, r := range f.Refs.All() {
		t := targets[i]
		if t.Kind == library.NotAReference {
			continue
		}
		c := Item{Ref: r, Target: t}
		if t.OK() && t.Topic != nil {
			key := t.Topic.ID
			c.Tokens = t.Topic.Tokens
			if t.Section != nil {
				key += "#" + t.Section.Name
				c.Tokens = t.Section.Tokens
			}
			if !seen[key] && (t.Section == nil || !whole[t.Topic.ID]) {
				seen[key] = true
				c.Counted = true
				total += c.Tokens
			}
		}
		items = append(items, c)
	}
	return items, total
}
