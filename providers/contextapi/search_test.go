package contextapi

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libgen"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	p, _ := exampleProvider(t)
	cases := []struct {
		query   string
		domain  string
		top     string
		matched []string
		exclude string
	}{
		{"fastapi", "", "python/fastapi_patterns", []string{"tag", "id", "detectionTrigger"}, ""},
		{"sql injection security", "", "security/secure_coding", []string{"tag", "keyword"}, ""},
		{"pytest fixtures", "", "testing/pytest_patterns", []string{"tag", "title", "keyword"}, ""},
		{"Secrets", "", "security/secrets_management", []string{"tag", "title"}, ""},
		{"sqlalch", "", "python/sqlalchemy_patterns", []string{"tag"}, ""}, // prefix
		{"secret", "python", "", nil, "security/secrets_management"},       // domain filter
		{"merge conflict", "", "git/merge_conflicts", []string{"title"}, ""},
	}
	for _, c := range cases {
		t.Run(c.query+"@"+c.domain, func(t *testing.T) {
			t.Parallel()
			res, err := p.Search(bg, c.query, c.domain, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) == 0 {
				t.Fatalf("no results; warnings %v", res.Warnings)
			}
			for i, it := range res.Items {
				if it.Relevance <= 0 || it.Relevance > 1 {
					t.Errorf("%s relevance %v", it.Reference.ID, it.Relevance)
				}
				if i > 0 && it.Relevance > res.Items[i-1].Relevance {
					t.Errorf("not sorted at %d", i)
				}
				if c.domain != "" && it.Reference.Domain != c.domain {
					t.Errorf("%s outside domain %s", it.Reference.ID, c.domain)
				}
				if it.Reference.ID == c.exclude {
					t.Errorf("%s should be filtered out", c.exclude)
				}
			}
			top := res.Items[0]
			if c.top != "" && top.Reference.ID != c.top {
				t.Errorf("top %s (%v), want %s; all: %v", top.Reference.ID, top.Relevance, c.top, ids(res.Items))
			}
			for _, m := range c.matched {
				if !slices.Contains(top.MatchedOn, m) {
					t.Errorf("matchedOn %v lacks %s", top.MatchedOn, m)
				}
			}
		})
	}
	res, _ := p.Search(bg, "python", "", 2)
	if len(res.Items) != 2 || !hasWarning(res.Warnings, WarnTruncated, "best 2") {
		t.Errorf("limit: %d items, %v", len(res.Items), res.Warnings)
	}
	res, _ = p.Search(bg, "  the  ", "", 0)
	if len(res.Items) != 0 || len(res.Warnings) != 1 {
		t.Errorf("empty query: %+v", res)
	}
	res, _ = p.Search(bg, "x", "nope", 0)
	if !hasWarning(res.Warnings, WarnDomainNotFound, "nope") {
		t.Errorf("missing domain: %+v", res)
	}
}

func ids(items []SearchItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprintf("%s:%.2f", it.Reference.ID, it.Relevance))
	}
	return out
}

// TestSearchFollowsChanges checks that the index follows a changed file
// and keeps the words of unchanged ones.
func TestSearchFollowsChanges(t *testing.T) {
	t.Parallel()
	p, lib, dir := writeLibrary(t, map[string]string{
		"context/python/a.md": "---\ntags: [walrus]\n---\n# A\n",
		"context/python/b.md": "---\ntags: [pelican]\n---\n# B\n",
	})
	if r, _ := p.Search(bg, "walrus", "", 0); len(r.Items) != 1 {
		t.Fatalf("before: %v", ids(r.Items))
	}
	a := filepath.Join(dir, "context", "python", "a.md")
	os.WriteFile(a, []byte("---\ntags: [narwhal]\n---\n# A\n"), 0o644)
	if _, err := lib.Apply(bg, []library.Change{{Path: a}}); err != nil {
		t.Fatal(err)
	}
	if r, _ := p.Search(bg, "walrus", "", 0); len(r.Items) != 0 {
		t.Errorf("old tag still found: %v", ids(r.Items))
	}
	if r, _ := p.Search(bg, "narwhal", "", 0); len(r.Items) != 1 || r.Items[0].Reference.ID != "python/a" {
		t.Errorf("new tag: %v", ids(r.Items))
	}
	if r, _ := p.Search(bg, "pelican", "", 0); len(r.Items) != 1 {
		t.Errorf("unchanged topic lost: %v", ids(r.Items))
	}
}

func TestLoadingProtocol(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	lp, err := p.LoadingProtocol(bg)
	if err != nil {
		t.Fatal(err)
	}
	wantMethods := []string{"ctxls/domainIndex", "ctxls/alwaysLoadFiles", "ctxls/detectProjectType", "ctxls/conditionalContext", "ctxls/crossDomainContext"}
	if len(lp.Steps) != 5 {
		t.Fatalf("steps %+v", lp.Steps)
	}
	for i, s := range lp.Steps {
		if s.Step != i+1 || s.Method != wantMethods[i] || s.Name == "" || s.Description == "" {
			t.Errorf("step %d: %+v", i+1, s)
		}
	}
	if lp.Steps[0].Name != "Read the domain index" || !strings.HasPrefix(lp.Steps[0].Description, "Identify the domain") {
		t.Errorf("step 1 read as %+v", lp.Steps[0])
	}
	if lp.TokenBudget != lib.Snapshot().Config().Budget.Files || lp.TokenLimit != 12000 || !slices.Equal(lp.PriorityOrder, []string{"always", "framework", "library", "crossDomain"}) {
		t.Errorf("budget %d/%d order %v", lp.TokenBudget, lp.TokenLimit, lp.PriorityOrder)
	}
	if len(lp.Warnings) != 0 || lp.Path == "" {
		t.Errorf("warnings %v path %q", lp.Warnings, lp.Path)
	}
}

func TestDomainIndex(t *testing.T) {
	t.Parallel()
	p, _ := exampleProvider(t)
	di, err := p.DomainIndex(bg, "python")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]FileEntry{}
	for _, f := range di.Files {
		files[f.ID] = f
	}
	if f := files["python/context_detection"]; !f.Listed || !f.Exists || f.Type != "detection" || f.Description == "" {
		t.Errorf("context_detection entry %+v", f)
	}
	if f := files["python/common_issues"]; f.Description != "always, for any Python change" {
		t.Errorf("common_issues described as %q", f.Description)
	}
	if f := files["python/index"]; f.Listed || !f.Exists {
		t.Errorf("index entry %+v", f)
	}
	var flow *WorkflowEntry
	for i := range di.Workflows {
		if di.Workflows[i].Name == "New FastAPI endpoint" {
			flow = &di.Workflows[i]
		}
	}
	if flow == nil || !slices.Equal(flow.Files, []string{"python/fastapi_patterns", "python/pydantic_models"}) {
		t.Errorf("workflows %+v", di.Workflows)
	}
	if !slices.ContainsFunc(di.DetectionHints, func(h DetectionHint) bool {
		return h.Name == "SQLAlchemy" && slices.Contains(h.Patterns, "from sqlalchemy import") && slices.Equal(h.Files, []string{"python/sqlalchemy_patterns"})
	}) {
		t.Errorf("hints %+v", di.DetectionHints)
	}
	missing, _ := p.DomainIndex(bg, "nope")
	if missing.Files == nil || !hasWarning(missing.Warnings, WarnDomainNotFound, "nope") {
		t.Errorf("missing: %+v", missing)
	}
}

// genLibrary writes a synthetic library of n topics over 20 domains, each
// with frontmatter, tags, sections with keywords and detection triggers.
func genLibrary(tb testing.TB, n int) string {
	tb.Helper()
	files := map[string]string{}
	words := []string{"cache", "queue", "auth", "token", "schema", "index", "router", "worker", "stream", "parser",
		"logger", "metric", "trace", "retry", "batch", "shard", "replica", "lock", "session", "cookie",
		"upload", "image", "search", "filter", "export", "import", "report", "billing", "invoice", "payment"}
	for i := 0; i < n; i++ {
		domain := fmt.Sprintf("domain%02d", i%20)
		w1, w2, w3 := words[i%len(words)], words[(i/7)%len(words)], words[(i/31)%len(words)]
		name := fmt.Sprintf("%s_%s_%d", w1, w2, i)
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: %s/%s\ndomain: %s\ntitle: %s %s patterns %d\ntype: reference\nestimatedTokens: 300\nloadingStrategy: onDemand\n", domain, name, domain, w1, w2, i)
		fmt.Fprintf(&b, "sections:\n  - name: Overview\n    estimatedTokens: 100\n    keywords: [%s, %s]\n  - name: Details\n    estimatedTokens: 200\n    keywords: [%s, detail%d]\n", w1, w3, w2, i%100)
		fmt.Fprintf(&b, "tags: [%s, %s, %s]\ndetectionTriggers: [\"import %s\", \"%s.%s(\"]\n---\n\n", domain, w1, w2, w3, w1, w2)
		fmt.Fprintf(&b, "# %s %s patterns %d\n\n## Overview\n\nHow to use %s with %s.\n\n## Details\n\nMore about %s and %s.\n", w1, w2, i, w1, w3, w2, w3)
		files["context/"+domain+"/"+name+".md"] = b.String()
	}
	return libtest.WriteTree(tb, files)
}

func TestSyntheticLibrary(t *testing.T) {
	t.Parallel()
	dir := genLibrary(t, 200)
	p := NewStatic(loadDir(t, dir, nil).Snapshot())
	res, _ := p.Search(bg, "billing invoice", "", 0)
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Reference.ID, "billing") && !strings.Contains(res.Items[0].Reference.ID, "invoice") {
		t.Errorf("top %v", ids(res.Items))
	}
}

// loadGenerated loads a library of 10,000 generated topics (about 40 MB)
// with the estimate tokenizer: token counts play no part in what the
// benchmarks measure.
func loadGenerated(b *testing.B) (*library.Library, libgen.Stats) {
	b.Helper()
	dir := b.TempDir()
	st, err := libgen.Generate(dir, libgen.Options{Topics: 10000})
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	cfg.Tokenizer = "estimate"
	lib := loadDir(b, dir, cfg)
	if n := len(lib.Snapshot().Topics()); n < st.Topics {
		b.Fatalf("%d topics loaded of %d", n, st.Topics)
	}
	return lib, st
}

// BenchmarkSearch measures a search over a 10,000-topic library once its
// index is built, and the first search after a one-file change, which
// re-indexes that file.
func BenchmarkSearch(b *testing.B) {
	lib, st := loadGenerated(b)
	p := New(lib.Snapshot)
	queries := []struct{ name, q, domain string }{
		{"rare", "0042", ""},
		{"common", "cache", ""},
		{"words3", "async cache python", ""},
		{"prefix", "pars", ""},
		{"domain", "cache routing", st.Domains[7]},
	}
	for _, q := range queries {
		if res, _ := p.Search(bg, q.q, q.domain, 0); len(res.Items) == 0 { // builds the index
			b.Fatalf("no results for %q", q.q)
		}
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				p.Search(bg, q.q, q.domain, 0)
			}
		})
	}
	b.Run("after-change", func(b *testing.B) {
		files := lib.Snapshot().Topics()
		i := 0
		for b.Loop() {
			b.StopTimer()
			t := files[(i*37)%len(files)]
			i++
			text := fmt.Sprintf("---\ntags: [changed%d, cache]\n---\n# changed %d\n", i, i)
			if _, err := lib.Apply(bg, []library.Change{{Path: t.Path, Content: []byte(text)}}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			p.Search(bg, "cache", "", 0)
		}
	})
}

// BenchmarkCatalog measures the catalog of a 10,000-topic library: the
// first call builds every reference, later calls check the cached entry
// against the library's topics.
func BenchmarkCatalog(b *testing.B) {
	lib, st := loadGenerated(b)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			p := New(lib.Snapshot)
			if res, _ := p.Catalog(bg, ""); len(res.Items) < st.Topics {
				b.Fatal(len(res.Items))
			}
		}
	})
	p := New(lib.Snapshot)
	p.Catalog(bg, "")
	p.Catalog(bg, st.Domains[7])
	b.Run("cached-all", func(b *testing.B) {
		for b.Loop() {
			p.Catalog(bg, "")
		}
	})
	b.Run("cached-domain", func(b *testing.B) {
		for b.Loop() {
			p.Catalog(bg, st.Domains[7])
		}
	})
}
