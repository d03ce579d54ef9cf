package contextapi

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// exampleProvider loads the example library shipped with the project.
func exampleProvider(t testing.TB) (*Provider, *library.Library) {
	t.Helper()
	lib := libtest.LoadExample(t)
	return New(lib.Snapshot), lib
}

// loadDir loads the workspace at dir with cfg, or the default
// configuration when cfg is nil.
func loadDir(t testing.TB, dir string, cfg *config.Config) *library.Library {
	t.Helper()
	lib, err := library.Load(context.Background(), dir, cfg, library.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	return lib
}

// writeLibrary writes files (path → content) under a temporary workspace
// and loads it with the real tokenizer.
func writeLibrary(t testing.TB, files map[string]string) (*Provider, *library.Library, string) {
	t.Helper()
	lib, dir := libtest.Load(t, files)
	return New(lib.Snapshot), lib, dir
}

func refsOf(items []PlanItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Reference)
	}
	return out
}

func droppedOf(items []Dropped) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Reference)
	}
	return out
}

func TestPlanOrderAndBudget(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	tok := func(id string) int {
		tp, ok := lib.Snapshot().Topic(id)
		if !ok {
			t.Fatalf("example library lacks %s", id)
		}
		return tp.Tokens
	}
	requests := []Request{
		{ID: "security/secrets_management", Kind: KindCrossDomain, Relevance: 0.7},
		{ID: "security/secure_coding", Kind: KindCrossDomain, Relevance: 0.9},
		{ID: "python/sqlalchemy_patterns"},
		{ID: "python:fastapi_patterns"},
		{ID: "python/common_issues"},
		{ID: "python/context_detection"},
		{ID: "python/fastapi_patterns#Security Issues"}, // absorbed by the whole topic
	}
	all := tok("python/context_detection") + tok("python/common_issues") + tok("python/fastapi_patterns") +
		tok("python/sqlalchemy_patterns") + tok("security/secure_coding") + tok("security/secrets_management")

	cases := []struct {
		name    string
		budget  config.Budget
		want    []string
		dropped []string
	}{
		{"everything fits", config.Budget{Files: 6, Tokens: all},
			[]string{"python:context_detection", "python:common_issues", "python:fastapi_patterns", "python:sqlalchemy_patterns", "security:secure_coding", "security:secrets_management"}, nil},
		{"file limit drops the least relevant cross-domain topic", config.Budget{Files: 4, Tokens: all},
			[]string{"python:context_detection", "python:common_issues", "python:fastapi_patterns", "python:sqlalchemy_patterns", "security:secure_coding"},
			[]string{"security:secrets_management"}},
		{"token limit keeps the priority order", config.Budget{Files: 6, Tokens: tok("python/context_detection") + tok("python/common_issues") + tok("python/fastapi_patterns")},
			[]string{"python:context_detection", "python:common_issues", "python:fastapi_patterns"},
			[]string{"python:sqlalchemy_patterns", "security:secure_coding", "security:secrets_management"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			plan := p.Plan(context.Background(), requests, c.budget)
			if got := strings.Join(refsOf(plan.Items), " "); got != strings.Join(c.want, " ") {
				t.Errorf("items = %s\nwant    %s", got, strings.Join(c.want, " "))
			}
			if got := strings.Join(droppedOf(plan.Dropped), " "); got != strings.Join(c.dropped, " ") {
				t.Errorf("dropped = %s, want %s", got, strings.Join(c.dropped, " "))
			}
			if len(plan.Warnings) != len(c.dropped) {
				t.Errorf("%d warnings for %d dropped: %v", len(plan.Warnings), len(c.dropped), plan.Warnings)
			}
			sum, files := 0, 0
			for _, it := range plan.Items {
				sum += it.Tokens
				if it.Kind != KindLookup {
					files++
				}
			}
			if sum != plan.Tokens || files != plan.Files || plan.Tokens > c.budget.Tokens || plan.Files > c.budget.Files {
				t.Errorf("totals %d tokens/%d files, items sum to %d/%d, budget %+v", plan.Tokens, plan.Files, sum, files, c.budget)
			}
		})
	}
}

func TestPlanSectionsAndMisses(t *testing.T) {
	t.Parallel()
	p, lib := exampleProvider(t)
	fa, _ := lib.Snapshot().Topic("python/fastapi_patterns")
	s1, _ := fa.Section("Security Issues")
	s2, _ := fa.Section("Testing")
	plan := p.Plan(context.Background(), []Request{
		{ID: "python:fastapi_patterns#Security Issues"},
		{ID: "python/fastapi_patterns", Section: "testing"},
		{ID: "python/no_such_topic"},
		{ID: "python/fastapi_patterns#No Such Section"},
		{ID: "../etc/passwd"},
	}, config.Budget{})
	if len(plan.Items) != 1 {
		t.Fatalf("items = %v", refsOf(plan.Items))
	}
	it := plan.Items[0]
	if it.Reference != "python:fastapi_patterns#Security Issues,Testing" || it.Tokens != s1.Tokens+s2.Tokens || it.Kind != KindFramework {
		t.Errorf("item = %+v, want both sections costing %d", it, s1.Tokens+s2.Tokens)
	}
	if len(plan.Dropped) != 3 {
		t.Fatalf("dropped = %v", plan.Dropped)
	}
	if !strings.Contains(plan.Dropped[0].Why, "did you mean") && !strings.Contains(plan.Dropped[0].Why, "not found") {
		t.Errorf("missing topic dropped with %q", plan.Dropped[0].Why)
	}
	if !strings.Contains(plan.Dropped[2].Why, "refused") {
		t.Errorf("escaping id dropped with %q", plan.Dropped[2].Why)
	}
	if plan.Budget.Files != config.DefaultBudgetFiles || plan.Budget.Tokens != config.DefaultBudgetTokens {
		t.Errorf("zero budget not defaulted: %+v", plan.Budget)
	}
}
