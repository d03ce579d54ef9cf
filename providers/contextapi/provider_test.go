package contextapi

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library"
)

var bg = context.Background()

func hasWarning(ws []Warning, code, substr string) bool {
	for _, w := range ws {
		if w.Code == code && strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	cases := []struct {
		domain   string
		want     int
		contains string
		warn     string
	}{
		{"", len(lib.Snapshot().Topics()), "loading_protocol", ""},
		{"python", len(mustDomain(t, lib, "python").Topics), "python/fastapi_patterns", ""},
		{"testing", len(mustDomain(t, lib, "testing").Topics), "testing/pytest_patterns", ""},
		{"pyhton", 0, "", "did you mean python"},
	}
	for _, c := range cases {
		t.Run(c.domain, func(t *testing.T) {
			t.Parallel()
			res, err := p.Catalog(bg, c.domain)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != c.want {
				t.Errorf("%d items, want %d", len(res.Items), c.want)
			}
			if c.contains != "" && !slices.ContainsFunc(res.Items, func(r Reference) bool { return r.ID == c.contains }) {
				t.Errorf("no %s in the catalog", c.contains)
			}
			if c.warn != "" && !hasWarning(res.Warnings, WarnDomainNotFound, c.warn) {
				t.Errorf("warnings %v lack %q", res.Warnings, c.warn)
			}
			if c.warn == "" && len(res.Warnings) != 0 {
				t.Errorf("unexpected warnings %v", res.Warnings)
			}
		})
	}
}

func mustDomain(t *testing.T, lib *library.Library, name string) *library.Domain {
	t.Helper()
	d, ok := lib.Snapshot().Domain(name)
	if !ok {
		t.Fatalf("no domain %s", name)
	}
	return d
}

// TestJSONShape checks the field names the extension reads.
func TestJSONShape(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	res, _ := p.Catalog(bg, "python")
	var fa Reference
	for _, r := range res.Items {
		if r.ID == "python/fastapi_patterns" {
			fa = r
		}
	}
	topic, _ := lib.Snapshot().Topic("python/fastapi_patterns")
	b, err := json.Marshal(fa)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"id", "domain", "title", "type", "estimatedTokens", "measuredTokens", "loadingStrategy", "path", "uri", "tags", "version", "lastUpdated", "sections", "crossDomainTriggers"} {
		if _, ok := m[k]; !ok {
			t.Errorf("catalog item lacks %q: %s", k, b)
		}
	}
	if int(m["measuredTokens"].(float64)) != topic.Tokens || int(m["estimatedTokens"].(float64)) != 990 {
		t.Errorf("tokens measured %v declared %v, want %d and 990", m["measuredTokens"], m["estimatedTokens"], topic.Tokens)
	}
	// The path is relative to the library's root, the URI absolute.
	if !strings.HasPrefix(m["uri"].(string), "file:///") || !strings.HasSuffix(m["uri"].(string), "/context/python/fastapi_patterns.md") ||
		m["path"] != "context/python/fastapi_patterns.md" {
		t.Errorf("path %v uri %v", m["path"], m["uri"])
	}
	sec := m["sections"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "estimatedTokens", "measuredTokens", "keywords"} {
		if _, ok := sec[k]; !ok {
			t.Errorf("section lacks %q: %v", k, sec)
		}
	}

	// Empty lists are [] and never null.
	empty, _ := p.Catalog(bg, "nope")
	b, _ = json.Marshal(empty)
	if !strings.HasPrefix(string(b), `{"items":[],"tokenizer":"o200k_base","warnings":[{`) {
		t.Errorf("empty catalog = %s", b)
	}
	s, _ := p.Search(bg, "zzzzqqq", "", 0)
	b, _ = json.Marshal(s)
	if string(b) != `{"items":[],"tokenizer":"o200k_base","warnings":[]}` {
		t.Errorf("empty search = %s", b)
	}
	sr, _ := p.Search(bg, "fastapi", "", 1)
	b, _ = json.Marshal(sr.Items[0])
	if !strings.HasPrefix(string(b), `{"reference":{"id":"python/fastapi_patterns"`) || !strings.Contains(string(b), `"relevance":`) || !strings.Contains(string(b), `"matchedOn":["tag"`) {
		t.Errorf("search item = %s", b)
	}
}

func TestReference(t *testing.T) {
	t.Parallel()
	p, _ := exampleProvider(t)
	cases := []struct {
		domain, file string
		id           string
		warn         string
	}{
		{"python", "fastapi_patterns", "python/fastapi_patterns", ""},
		{"python", "fastapi_patterns.md", "python/fastapi_patterns", ""},
		{"", "cross_domain", "cross_domain", ""},
		{"python", "django", "", "did you mean django_patterns"},
		{"pyton", "fastapi_patterns", "", "did you mean python"},
	}
	for _, c := range cases {
		t.Run(c.domain+"/"+c.file, func(t *testing.T) {
			t.Parallel()
			r, err := p.Reference(bg, c.domain, c.file)
			if err != nil {
				t.Fatal(err)
			}
			if r.ID != c.id {
				t.Errorf("id %q, want %q", r.ID, c.id)
			}
			if c.warn != "" && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0].Message, c.warn)) {
				t.Errorf("warnings %v, want %q", r.Warnings, c.warn)
			}
			if c.warn == "" && len(r.Warnings) > 0 {
				t.Errorf("unexpected warnings %v", r.Warnings)
			}
		})
	}
}

func TestEscapeRefused(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("# Secret\n\nnot part of any library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, dir := writeLibrary(t, map[string]string{
		"context/python/index.md":  "# Python\n",
		"context/python/topic.md":  "# Topic\n\n## Part\n\ntext\n",
		"context/python/sub/x.md":  "# Nested\n",
		"context/security/safe.md": "# Safe\n",
	})
	if err := os.Symlink(outside, filepath.Join(dir, "context", "python", "leak.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	// An in-root link is fine.
	if err := os.Symlink(filepath.Join(dir, "context", "security", "safe.md"), filepath.Join(dir, "context", "python", "alias.md")); err != nil {
		t.Fatal(err)
	}
	p = NewStatic(loadDir(t, dir, nil).Snapshot())

	refused := []struct {
		name string
		call func() error
	}{
		{"dotdot file", func() error { _, err := p.Reference(bg, "python", "../../etc/passwd"); return err }},
		{"dotdot domain", func() error { _, err := p.Reference(bg, "..", "passwd"); return err }},
		{"absolute file", func() error { _, err := p.Reference(bg, "python", "/etc/passwd"); return err }},
		{"windows absolute", func() error { _, err := p.Reference(bg, "python", `C:\Windows\win.ini`); return err }},
		{"backslash dotdot", func() error { _, err := p.Reference(bg, "python", `..\..\x`); return err }},
		{"symlink out", func() error { _, err := p.Reference(bg, "python", "leak"); return err }},
		{"materialize symlink", func() error { _, err := p.Materialize(bg, Reference{ID: "python/leak"}); return err }},
		{"materialize dotdot", func() error { _, err := p.Materialize(bg, Reference{ID: "python/../../x"}); return err }},
		{"sections absolute", func() error {
			_, err := p.MaterializeSections(bg, Reference{ID: "/etc/passwd"}, []string{"x"})
			return err
		}},
		{"catalog", func() error { _, err := p.Catalog(bg, "../context"); return err }},
		{"always", func() error { _, err := p.AlwaysLoadFiles(bg, "/tmp"); return err }},
		{"detect", func() error { _, err := p.DetectProjectType(bg, "..", Signals{}); return err }},
		{"conditional", func() error { _, err := p.ConditionalContext(bg, "../x", DetectionResult{}); return err }},
		{"cross-domain", func() error { _, err := p.CrossDomainContext(bg, "/", nil); return err }},
		{"index", func() error { _, err := p.DomainIndex(bg, ".."); return err }},
		{"search", func() error { _, err := p.Search(bg, "x", "../..", 0); return err }},
		{"invalidate", func() error { _, err := p.Invalidate("python", "../../x"); return err }},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := c.call(); !errors.Is(err, ErrEscape) {
				t.Errorf("err = %v, want ErrEscape", err)
			}
		})
	}
	allowed := []struct{ domain, file string }{{"python", "topic"}, {"python", "sub/x"}, {"python", "alias"}, {"python", "a..b"}}
	for _, c := range allowed {
		if _, err := p.Reference(bg, c.domain, c.file); err != nil {
			t.Errorf("Reference(%s, %s) = %v", c.domain, c.file, err)
		}
	}
	f, err := p.Materialize(bg, Reference{ID: "python/sub/x"})
	if err != nil || !strings.Contains(f.Content, "# Nested") {
		t.Errorf("nested file: %v %q", err, f.Content)
	}
}

func TestMaterializeSections(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	topic, _ := lib.Snapshot().Topic("python/fastapi_patterns")
	sec, _ := topic.Section("Security Issues")
	dep, _ := topic.Section("Dependency Injection")

	for _, id := range []string{"python/fastapi_patterns.md", "context/python/fastapi_patterns.md", "python:fastapi_patterns#Testing"} {
		if f, err := p.Materialize(bg, Reference{ID: id}); err != nil || f.ID != "python/fastapi_patterns" {
			t.Errorf("Materialize(%s) = %q, %v %v", id, f.ID, err, f.Warnings)
		}
	}
	f, err := p.Materialize(bg, Reference{ID: "python:fastapi_patterns"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Content != topic.Body() || strings.HasPrefix(f.Content, "---") || f.EstimatedTokens != topic.Tokens || f.Metadata == nil || f.Metadata.Title != "FastAPI Patterns" {
		t.Errorf("materialized %q… tokens %d", f.Content[:min(40, len(f.Content))], f.EstimatedTokens)
	}

	cases := []struct {
		sections []string
		names    []string
		tokens   int
		warn     string
	}{
		{[]string{"Security Issues"}, []string{"Security Issues"}, sec.Tokens, ""},
		{[]string{"security issues", "dependency-injection"}, []string{"Security Issues", "Dependency Injection"}, sec.Tokens + dep.Tokens, ""},
		{[]string{"Security Issues", "Security Issues"}, []string{"Security Issues"}, sec.Tokens, ""},
		{[]string{"Securty Issues"}, nil, 0, "did you mean Security Issues"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.sections, "+"), func(t *testing.T) {
			t.Parallel()
			pc, err := p.MaterializeSections(bg, Reference{ID: "python/fastapi_patterns"}, c.sections)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range pc.Sections {
				names = append(names, s.Name)
				if !strings.HasPrefix(s.Content, "## "+s.Name) {
					t.Errorf("section %s starts %q", s.Name, s.Content[:min(30, len(s.Content))])
				}
				if strings.Contains(s.Content[3:], "\n## ") {
					t.Errorf("section %s runs into the next one", s.Name)
				}
			}
			if !slices.Equal(names, c.names) || pc.TotalTokens != c.tokens {
				t.Errorf("sections %v (%d tokens), want %v (%d)", names, pc.TotalTokens, c.names, c.tokens)
			}
			if c.warn != "" && !hasWarning(pc.Warnings, WarnSectionNotFound, c.warn) {
				t.Errorf("warnings %v lack %q", pc.Warnings, c.warn)
			}
		})
	}
	missing, err := p.MaterializeSections(bg, Reference{ID: "python/nope"}, []string{"x"})
	if err != nil || len(missing.Sections) != 0 || !hasWarning(missing.Warnings, WarnFileNotFound, "nope") {
		t.Errorf("missing file: %v %+v", err, missing)
	}
}

func TestAlwaysLoadFiles(t *testing.T) {
	t.Parallel()
	p, _ := exampleProvider(t)
	cases := []struct {
		domain string
		want   []string
	}{
		{"python", []string{"python/common_issues", "python/context_detection"}},
		{"testing", []string{"testing/context_detection", "testing/test_strategy"}},
		{"git", []string{"git/commit_conventions"}},
		{"nope", nil},
	}
	for _, c := range cases {
		res, err := p.AlwaysLoadFiles(bg, c.domain)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range res.Items {
			ids = append(ids, f.ID)
			if f.Content == "" || f.EstimatedTokens == 0 {
				t.Errorf("%s: empty content", f.ID)
			}
		}
		if !slices.Equal(ids, c.want) {
			t.Errorf("%s: %v, want %v", c.domain, ids, c.want)
		}
		if c.want == nil && !hasWarning(res.Warnings, WarnDomainNotFound, c.domain) {
			t.Errorf("%s: warnings %v", c.domain, res.Warnings)
		}
	}
}

func TestCacheTiersAndInvalidation(t *testing.T) {
	t.Parallel()
	p, lib, dir := writeLibrary(t, map[string]string{
		"context/python/index.md":        "# Python\n",
		"context/python/a.md":            "---\ntitle: A\ntags: [alpha]\n---\n# A\n\n## One\n\nfirst version\n",
		"context/python/b.md":            "# B\n\nunchanged\n",
		"context/security/guidelines.md": "# Guidelines\n",
	})
	st := func() Stats { return p.Stats() }
	check := func(what string, got, want TierStats) {
		t.Helper()
		if got.Hits != want.Hits || got.Misses != want.Misses {
			t.Errorf("%s: %d hits %d misses, want %d/%d", what, got.Hits, got.Misses, want.Hits, want.Misses)
		}
	}

	p.Catalog(bg, "python")
	p.Catalog(bg, "python")
	p.Catalog(bg, "security")
	check("catalog", st().Catalog, TierStats{Hits: 1, Misses: 2})

	p.Materialize(bg, Reference{ID: "python/a"})
	p.Materialize(bg, Reference{ID: "python/a"})
	p.Materialize(bg, Reference{ID: "python/b"})
	p.MaterializeSections(bg, Reference{ID: "python/a"}, []string{"One"})
	p.MaterializeSections(bg, Reference{ID: "python/a"}, []string{"One"})
	check("content", st().Content, TierStats{Hits: 2, Misses: 3})
	refBefore := st().Reference

	// Change a.md on disk and let the library follow.
	a := filepath.Join(dir, "context", "python", "a.md")
	if err := os.WriteFile(a, []byte("---\ntitle: A2\n---\n# A\n\n## One\n\nsecond version\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Apply(bg, []library.Change{{Path: a}}); err != nil {
		t.Fatal(err)
	}
	f, _ := p.Materialize(bg, Reference{ID: "python/a"})
	if !strings.Contains(f.Content, "second version") || f.Title != "A2" {
		t.Errorf("stale content after change: %q %q", f.Title, f.Content)
	}
	pc, _ := p.MaterializeSections(bg, Reference{ID: "python/a"}, []string{"One"})
	if len(pc.Sections) != 1 || !strings.Contains(pc.Sections[0].Content, "second version") {
		t.Errorf("stale section after change: %+v", pc.Sections)
	}
	p.Materialize(bg, Reference{ID: "python/b"}) // unchanged: still cached
	check("content after change", st().Content, TierStats{Hits: 3, Misses: 5})
	if st().Reference.Misses <= refBefore.Misses {
		t.Errorf("reference tier did not miss for the changed file: %+v → %+v", refBefore, st().Reference)
	}

	if n := st().Content.Entries; n != 3 {
		// Entries of the replaced a.md were dropped and rebuilt: content
		// and sections of a.md, content of b.md.
		t.Errorf("%d content entries after the change, want 3", n)
	}
	p.Catalog(bg, "python")   // a.md changed: rebuilt
	p.Catalog(bg, "security") // untouched domain: still cached
	check("catalog after change", st().Catalog, TierStats{Hits: 2, Misses: 3})
	res, _ := p.Catalog(bg, "python")
	if !slices.ContainsFunc(res.Items, func(r Reference) bool { return r.Title == "A2" }) {
		t.Errorf("catalog kept the old title: %+v", res.Items)
	}

	// Explicit invalidation, per the seed's propagation table.
	n, err := p.Invalidate("python", "a")
	if err != nil || n != 3 { // ref, content and one sections entry
		t.Errorf("Invalidate(python, a) removed %d (%v), want 3", n, err)
	}
	p.Materialize(bg, Reference{ID: "python/a"})
	check("content after invalidate", st().Content, TierStats{Hits: 3, Misses: 6})
	if n, _ := p.Invalidate("python", ""); n == 0 {
		t.Error("Invalidate(python) removed nothing")
	}
	p.Catalog(bg, "python")   // cleared
	p.Catalog(bg, "security") // another domain's entry stays
	check("catalog after domain invalidate", st().Catalog, TierStats{Hits: 4, Misses: 4})
	if n, _ := p.Invalidate("", ""); n == 0 || st().Catalog.Entries+st().Reference.Entries+st().Content.Entries != 0 {
		t.Errorf("Invalidate() removed %d, left %+v", n, st())
	}
}

// TestFollowsSource checks that a provider sees a replaced library.
func TestFollowsSource(t *testing.T) {
	t.Parallel()
	_, lib1, _ := writeLibrary(t, map[string]string{"context/python/a.md": "# First\n"})
	_, lib2, _ := writeLibrary(t, map[string]string{"context/python/a.md": "# Second\n"})
	cur := lib1
	p := New(func() *library.Snapshot { return cur.Snapshot() })
	r, _ := p.Reference(bg, "python", "a")
	cur = lib2
	r2, _ := p.Reference(bg, "python", "a")
	if r.Title != "First" || r2.Title != "Second" {
		t.Errorf("titles %q then %q", r.Title, r2.Title)
	}
}

// TestConcurrentUse runs readers of every tier and the search index while
// the library changes underneath them (run with -race to see data races).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	p, lib, dir := writeLibrary(t, map[string]string{
		"context/python/a.md": "---\ntags: [alpha]\n---\n# A\n\n## One\n\ntext\n",
		"context/python/b.md": "---\ntags: [beta]\n---\n# B\n",
	})
	a := filepath.Join(dir, "context", "python", "a.md")
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := p.Search(bg, "alpha beta", "", 0); err != nil {
					errs <- err
					return
				}
				p.Catalog(bg, "python")
				p.Materialize(bg, Reference{ID: "python/a"})
				p.MaterializeSections(bg, Reference{ID: "python/a"}, []string{"One"})
				p.DetectProjectType(bg, "python", Signals{Imports: []string{"import alpha"}})
			}
		}()
	}
	for i := 0; i < 30; i++ {
		text := "---\ntags: [alpha, v" + strings.Repeat("x", i) + "]\n---\n# A\n\n## One\n\ntext\n"
		if _, err := lib.Apply(bg, []library.Change{{Path: a, Content: []byte(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	f, _ := p.Materialize(bg, Reference{ID: "python/a"})
	if f.Metadata == nil || !slices.Contains(f.Metadata.Tags, "v"+strings.Repeat("x", 29)) {
		t.Errorf("final content not seen: %+v", f.Metadata)
	}
}

// TestCacheDropsRemovedTopics checks that entries of a removed file do not
// outlive it.
func TestCacheDropsRemovedTopics(t *testing.T) {
	t.Parallel()
	p, lib, dir := writeLibrary(t, map[string]string{
		"context/python/a.md": "# A\n\nalpha\n",
		"context/python/b.md": "# B\n\nbeta\n",
	})
	p.Materialize(bg, Reference{ID: "python/a"})
	p.Materialize(bg, Reference{ID: "python/b"})
	p.Reference(bg, "python", "b")
	if s := p.Stats(); s.Content.Entries != 2 || s.Reference.Entries != 2 {
		t.Fatalf("stats %+v", s)
	}
	b := filepath.Join(dir, "context", "python", "b.md")
	os.Remove(b)
	if _, err := lib.Apply(bg, []library.Change{{Path: b, Removed: true}}); err != nil {
		t.Fatal(err)
	}
	r, _ := p.Reference(bg, "python", "b")
	if r.ID != "" || !hasWarning(r.Warnings, WarnFileNotFound, "b") {
		t.Errorf("removed file still found: %+v", r)
	}
	if s := p.Stats(); s.Content.Entries != 1 || s.Reference.Entries != 1 {
		t.Errorf("entries of the removed file kept: %+v", s)
	}
}
