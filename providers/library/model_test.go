package library

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/tokens"
)

func TestFrontmatter(t *testing.T) {
	t.Parallel()
	const src = `---
id: python/fastapi_patterns
domain: python
title: "FastAPI Patterns"
type: framework
estimatedTokens: 1200
loadingStrategy: onDemand
version: "1.2.0"
lastUpdated: "2026-02-10"
maintainedFor: python-code-review skill
## detectionTriggers: [fastapi, pydantic]
# a plain comment
tags: [python, fastapi]
crossDomainTriggers: [security/secure_coding]
detectionTriggers: ["from fastapi import"]
sections:
  - name: Security Issues
    estimatedTokens: 80
    keywords: [auth, injection]
reviewer: alice
owners: [bob, carol]
---

# FastAPI Patterns

## Security Issues

Validate input.

**Version**: 9.9.9
`
	l := loadTree(t, map[string]string{
		"context/python/fastapi_patterns.md": src,
		"context/security/secure_coding.md":  "# Secure Coding\n",
	})
	tp, ok := l.Snapshot().Topic("python/fastapi_patterns")
	if !ok {
		t.Fatal("topic missing")
	}
	m := tp.Meta
	checks := []struct{ field, got, want string }{
		{"id", m.ID, "python/fastapi_patterns"},
		{"domain", m.Domain, "python"},
		{"title", m.Title, "FastAPI Patterns"},
		{"type", m.Type, "framework"},
		{"loadingStrategy", m.LoadingStrategy, "onDemand"},
		{"version (frontmatter wins over footer)", m.Version, "1.2.0"},
		{"lastUpdated", m.LastUpdated, "2026-02-10"},
		{"maintainedFor", m.MaintainedFor, "python-code-review skill"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if m.EstimatedTokens != 1200 || tp.Declared() != 1200 {
		t.Errorf("estimatedTokens = %d, Declared() = %d", m.EstimatedTokens, tp.Declared())
	}
	if !slices.Equal(m.Tags, []string{"python", "fastapi"}) {
		t.Errorf("tags = %v", m.Tags)
	}
	if !slices.Equal(m.CrossDomainTriggers, []string{"security/secure_coding"}) {
		t.Errorf("crossDomainTriggers = %v", m.CrossDomainTriggers)
	}
	// The commented-out line must neither count as a field nor as a heading.
	if !slices.Equal(m.DetectionTriggers, []string{"from fastapi import"}) {
		t.Errorf("detectionTriggers = %v", m.DetectionTriggers)
	}
	for _, h := range tp.Doc.Headings {
		if strings.Contains(h.Text, "detectionTriggers") || strings.Contains(h.Text, "plain comment") {
			t.Errorf("YAML comment taken as heading: %q", h.Text)
		}
	}
	var secNames []string
	for _, s := range tp.Sections {
		secNames = append(secNames, s.Name)
	}
	if want := []string{"Security Issues"}; !slices.Equal(secNames, want) {
		t.Errorf("sections = %v, want %v", secNames, want)
	}
	if s, ok := tp.Section("security issues"); !ok || s.Declared != 80 || !slices.Equal(s.Keywords, []string{"auth", "injection"}) {
		t.Errorf("section Security Issues = %+v, %v", s, ok)
	}
	// Unknown fields are kept, and warned about.
	if m.Extra["reviewer"] != "alice" {
		t.Errorf("extra reviewer = %v", m.Extra["reviewer"])
	}
	if owners, _ := m.Extra["owners"].([]any); len(owners) != 2 {
		t.Errorf("extra owners = %v", m.Extra["owners"])
	}
	var unknown []string
	for _, d := range diagsOf(t, l, "context/python/fastapi_patterns.md") {
		if d.Code == codeUnknownField {
			if d.Severity != diag.Warning {
				t.Errorf("unknown field severity = %v", d.Severity)
			}
			unknown = append(unknown, d.Text)
		}
	}
	if !slices.Equal(unknown, []string{"reviewer", "owners"}) {
		t.Errorf("unknown-field warnings on %v, want reviewer and owners", unknown)
	}
}

func TestFooterFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                string
		footer                              string
		version, lastUpdated, maintainedFor string
	}{
		{"bold labels", "**Version**: 0.3.0-alpha\n**Last Updated**: 2025-11-14\n**Maintained For**: python-code-review skill\n",
			"0.3.0-alpha", "2025-11-14", "python-code-review skill"},
		{"italic line", "*Last Updated: 2026-02-10*\n", "", "2026-02-10", ""},
		{"compacted version note", "**Version**: 0.3.0-alpha (Compacted)\n**Last Updated**: 2025-11-14\n", "0.3.0-alpha", "2025-11-14", ""},
		{"no footer", "Just text.\n", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := loadTree(t, map[string]string{
				"context/python/common_issues.md": "# Common Python Issues\n\n## Mutable Defaults\n\nText.\n\n---\n\n" + tc.footer,
				"context/loading_protocol.md":     "# Protocol\n",
			})
			tp, _ := l.Snapshot().Topic("python/common_issues")
			m := tp.Meta
			if m.Version != tc.version || m.LastUpdated != tc.lastUpdated || m.MaintainedFor != tc.maintainedFor {
				t.Errorf("footer = (%q, %q, %q), want (%q, %q, %q)", m.Version, m.LastUpdated, m.MaintainedFor, tc.version, tc.lastUpdated, tc.maintainedFor)
			}
			if tp.HasFrontmatter {
				t.Error("HasFrontmatter = true")
			}
			if m.ID != "python/common_issues" || m.Domain != "python" || m.Title != "Common Python Issues" ||
				m.Type != "reference" || m.LoadingStrategy != "onDemand" {
				t.Errorf("derived meta = %+v", m)
			}
			if !slices.Equal(m.Tags, []string{"python", "common", "issues"}) {
				t.Errorf("derived tags = %v", m.Tags)
			}
			if len(m.Sections) != 1 || m.Sections[0].Name != "Mutable Defaults" {
				t.Errorf("derived sections = %+v", m.Sections)
			}
			wantDiags(t, l, "context/python/common_issues.md", "a file without frontmatter")
		})
	}
}

func TestDerivedTypeAndStrategy(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/go/index.md":             "# Go\n",
		"context/go/context_detection.md": "# Detect\n",
		"context/go/errors.md":            "no heading here\n",
	})
	tests := []struct{ id, typ, strategy, title string }{
		{"go/index", "index", "always", "Go"},
		{"go/context_detection", "detection", "always", "Detect"},
		{"go/errors", "reference", "onDemand", "Errors"},
	}
	for _, tc := range tests {
		tp, _ := l.Snapshot().Topic(tc.id)
		if tp.Meta.Type != tc.typ || tp.Meta.LoadingStrategy != tc.strategy || tp.Meta.Title != tc.title {
			t.Errorf("%s: type %q strategy %q title %q, want %q %q %q", tc.id, tp.Meta.Type, tp.Meta.LoadingStrategy, tp.Meta.Title, tc.typ, tc.strategy, tc.title)
		}
	}
}

func TestSections(t *testing.T) {
	t.Parallel()
	const src = "# Title\n\nIntro.\n\n## First\n\nOne.\n\n### Nested\n\nDeep.\n\n```markdown\n## Not A Heading\n```\n\n## Second\n\nTwo.\n\n~~~\n# also not\n~~~\n\n# Top Again\n\nEnd.\n"
	l := loadTree(t, map[string]string{"context/d/t.md": src, "context/loading_protocol.md": "# Protocol\n"})
	tp, _ := l.Snapshot().Topic("d/t")
	type sec struct {
		name    string
		level   int
		content string // first and last words
	}
	var got []sec
	for _, s := range tp.Sections {
		body := strings.TrimSpace(string(tp.Doc.Slice(s.Content)))
		got = append(got, sec{s.Name, s.Level, body})
	}
	want := []sec{
		{"First", 2, "## First\n\nOne.\n\n### Nested\n\nDeep.\n\n```markdown\n## Not A Heading\n```"},
		{"Nested", 3, "### Nested\n\nDeep.\n\n```markdown\n## Not A Heading\n```"},
		{"Second", 2, "## Second\n\nTwo.\n\n~~~\n# also not\n~~~"},
	}
	if len(got) != len(want) {
		t.Fatalf("sections = %+v, want %d", got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, name := range []string{"first", "FIRST", "nested", "Second"} {
		if _, ok := tp.Section(name); !ok {
			t.Errorf("Section(%q) not found", name)
		}
	}
	if _, ok := tp.Section("Title"); ok {
		t.Error("a level-one heading opened a section")
	}
	if _, ok := tp.Section("Not A Heading"); ok {
		t.Error("a heading inside a fence was taken as a section")
	}
}

func TestTokenMeasurement(t *testing.T) {
	t.Parallel()
	body := "# Title\n\n## Alpha\n\nThe quick brown fox jumps over the lazy dog.\n\n## Beta\n\nPack my box with five dozen liquor jugs, then close it.\n"
	src := topicFM("d/t", "reference", 30) + body
	for _, name := range []string{tokens.O200kBase, "cl100k_base", "estimate"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := testtree.New(t, map[string]string{"context/d/t.md": src})
			cfg := config.Default()
			cfg.Tokenizer = name
			l := load(t, dir, cfg)
			counter, err := tokens.New(name)
			if err != nil {
				t.Fatal(err)
			}
			tp, _ := l.Snapshot().Topic("d/t")
			if want := counter.Count(body); tp.Tokens != want {
				t.Errorf("body tokens = %d, want %d (the body without frontmatter)", tp.Tokens, want)
			}
			if tp.Tokens >= counter.Count(src) {
				t.Errorf("body tokens %d include the frontmatter (whole file %d)", tp.Tokens, counter.Count(src))
			}
			alpha, _ := tp.Section("Alpha")
			beta, _ := tp.Section("Beta")
			if alpha.Tokens <= 0 || beta.Tokens <= alpha.Tokens || alpha.Tokens+beta.Tokens >= tp.Tokens {
				t.Errorf("section tokens alpha %d beta %d body %d", alpha.Tokens, beta.Tokens, tp.Tokens)
			}
			if got := l.Snapshot().Counter().Name(); got != name {
				t.Errorf("counter = %s", got)
			}
		})
	}
}

func TestCommandModel(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/python/a.md":   "# A\n",
		"commands/implement.md": "---\nname: implement\ndescription: Build the feature\ncontext:\n  - python\n  - python/a\n---\n\n# Implement\n\nUse python:a.\n",
		"commands/plain.md":     "# Plain Command\n\nNo frontmatter.\n",
	})
	c, ok := l.Snapshot().Command("implement")
	if !ok {
		t.Fatal("no command implement")
	}
	if c.Description != "Build the feature" || !slices.Equal(c.Context, []string{"python", "python/a"}) {
		t.Errorf("command = %+v", c)
	}
	if !strings.Contains(c.Body(), "Use python:a.") || strings.Contains(c.Body(), "description:") {
		t.Errorf("body = %q", c.Body())
	}
	p, _ := l.Snapshot().Command("plain")
	if p.Description != "Plain Command" {
		t.Errorf("fallback description = %q", p.Description)
	}
	f, _ := l.Snapshot().File(c.Path)
	if f.Refs.Len() != 3 {
		t.Errorf("command refs = %d, want 3 (domain, id, key)", f.Refs.Len())
	}
}

func TestAlwaysLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, strategy string
		want          bool
	}{
		{"always", "", true},
		{"", "always", true},
		{"index", "always", true},
		{"detection", "always", true},
		{"always", "onDemand", true},
		{"framework", "onDemand", false},
		{"reference", "lazy", false},
		{"", "", false},
		{"Always", "ALWAYS", false},
	}
	for _, tc := range tests {
		tp := &Topic{Meta: Metadata{Type: tc.typ, LoadingStrategy: tc.strategy}}
		if got := tp.AlwaysLoad(); got != tc.want {
			t.Errorf("type %q strategy %q: AlwaysLoad() = %v, want %v", tc.typ, tc.strategy, got, tc.want)
		}
	}
}
