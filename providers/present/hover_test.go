package present

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// load writes files (path → text) under a temporary workspace and loads
// it.
func load(t *testing.T, files map[string]string) *library.Library {
	t.Helper()
	lib, _ := libtest.Load(t, files)
	return lib
}

var hoverFiles = map[string]string{
	"context/python/index.md": "---\ntitle: Python_Index\ntype: index\n---\n# Python\n\nThe index.\n",
	"context/python/fastapi.md": "---\ntitle: Fast*API\ntype: framework\nloadingStrategy: onDemand\nestimatedTokens: 1234\n" +
		"tags: [web, a_b]\ncrossDomainTriggers: [security/auth, security/auth.md, missing/x]\n---\n" +
		"# FastAPI\n\nFast APIs\nwith Python.\n\n## Routes | paths\n\nRouting text.\n\n### Deep\n\nDeeper.\n\n## Models\n\nModel text.\n",
	"context/python/core.md":   "---\ntype: always\n---\n# Core\n\nCore rules.\n",
	"context/python/style.md":  "---\nloadingStrategy: always\n---\n# Style\n",
	"context/security/auth.md": "# Auth\n\nAuthentication.\n",
	"context/bare/one.md":      "# One\n",
}

func TestTopicHover(t *testing.T) {
	t.Parallel()
	lib := load(t, hoverFiles)
	fast, _ := lib.Snapshot().Topic("python/fastapi")
	auth, _ := lib.Snapshot().Topic("security/auth")
	core, _ := lib.Snapshot().Topic("python/core")
	if fast == nil || auth == nil || core == nil {
		t.Fatal("topics missing")
	}
	routes, _ := fast.Section("Routes | paths")
	models, _ := fast.Section("Models")
	table := fmt.Sprintf("| Section | Tokens |\n|---|---:|\n| Routes \\| paths | %s |\n| Models | %s |\n\n", numfmt.Thousands(routes.Tokens), numfmt.Thousands(models.Tokens))
	body := fmt.Sprintf("**Fast\\*API** `python:fastapi`\n\nframework · onDemand · %s measured · 1,234 declared\n\nFast APIs with Python.\n\n", Tokens(fast.Tokens)) +
		table + "Tags: web, a\\_b\n\n" +
		"Cross-domain triggers: `security/auth`, `security/auth.md`, `missing/x`\n\n" +
		fmt.Sprintf("Loading it with its 1 trigger costs %s\n\n", Tokens(fast.Tokens+auth.Tokens)) +
		"`context/python/fastapi.md`"
	tests := []struct {
		name  string
		topic *library.Topic
		sec   *library.Section
		want  string
	}{
		{"topic", fast, nil, body},
		{"section", fast, models, fmt.Sprintf("**Fast\\*API › Models** · %s\n\n", Tokens(models.Tokens)) +
			strings.Replace(body, "| Models |", "| **Models** |", 1)},
		{"plain", core, nil, fmt.Sprintf("**Core** `python:core`\n\nalways · always · %s measured\n\nCore rules.\n\nTags: python, core\n\n`context/python/core.md`", Tokens(core.Tokens))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := topicHover(lib.Snapshot(), tc.topic, tc.sec); got != tc.want {
				t.Errorf("TopicHover =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestDomainHover(t *testing.T) {
	t.Parallel()
	lib := load(t, hoverFiles)
	python, _ := lib.Snapshot().Domain("python")
	bare, _ := lib.Snapshot().Domain("bare")
	if python == nil || bare == nil {
		t.Fatal("domains missing")
	}
	core, _ := lib.Snapshot().Topic("python/core")
	style, _ := lib.Snapshot().Topic("python/style")
	index, _ := lib.Snapshot().Topic("python/index")
	one, _ := lib.Snapshot().Topic("bare/one")
	tests := []struct {
		d    *library.Domain
		want string
	}{
		// The index's derived strategy is "always" too.
		{python, fmt.Sprintf("**python** domain · 4 topics · %s\n\nAlways loaded: `core`, `index`, `style` (%s)\n\nIndex: **Python\\_Index** · %s\n\n`context/python/index.md`",
			Tokens(python.Tokens()), Tokens(core.Tokens+index.Tokens+style.Tokens), Tokens(index.Tokens))},
		{bare, fmt.Sprintf("**bare** domain · 1 topics · %s", Tokens(one.Tokens))},
	}
	for _, tc := range tests {
		if got := domainHover(lib.Snapshot(), tc.d); got != tc.want {
			t.Errorf("DomainHover(%s) =\n%s\nwant\n%s", tc.d.Name, got, tc.want)
		}
	}
}

func TestHover(t *testing.T) {
	t.Parallel()
	lib := load(t, hoverFiles)
	fast, _ := lib.Snapshot().Topic("python/fastapi")
	python, _ := lib.Snapshot().Domain("python")
	tests := []struct {
		name   string
		target library.Target
		want   string
		ok     bool
	}{
		{"not a reference", library.Target{Kind: library.NotAReference}, "", false},
		{"domain", library.Target{Kind: library.DomainTarget, Domain: python}, domainHover(lib.Snapshot(), python), true},
		{"topic", library.Target{Kind: library.TopicTarget, Topic: fast}, topicHover(lib.Snapshot(), fast, nil), true},
		{"missing section", library.Target{Kind: library.Unresolved, Topic: fast, Failed: library.PartSection, Message: "no section *x*"},
			"⚠ no section \\*x\\*\n\n" + topicHover(lib.Snapshot(), fast, nil), true},
		{"unresolved with candidates", library.Target{Kind: library.Unresolved, Failed: library.PartTopic, Message: "no topic fast_api", Candidates: []string{"fastapi", "flask"}},
			"⚠ no topic fast\\_api\n\nDid you mean `fastapi`, `flask`?", true},
		{"unresolved", library.Target{Kind: library.Unresolved, Failed: library.PartDomain, Message: "no domain"}, "⚠ no domain", true},
		{"domain without a domain", library.Target{Kind: library.DomainTarget, Message: "gone"}, "⚠ gone", true},
	}
	for _, tc := range tests {
		got, ok := Hover(lib.Snapshot(), tc.target)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Hover =\n%s, %v\nwant\n%s, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
