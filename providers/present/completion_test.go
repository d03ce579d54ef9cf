package present

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/library"
)

func TestItems(t *testing.T) {
	t.Parallel()
	lib := load(t, hoverFiles)
	python, _ := lib.Snapshot().Domain("python")
	bare, _ := lib.Snapshot().Domain("bare")
	fast, _ := lib.Snapshot().Topic("python/fastapi")
	core, _ := lib.Snapshot().Topic("python/core")
	routes, _ := fast.Section("Routes | paths")
	tests := []struct {
		name string
		got  Item
		want Item
	}{
		{"domain with an index", DomainItem(lib.Snapshot(), python), Item{
			Label: "python", Detail: "4 topics · " + Tokens(python.Tokens()), Description: "4 topics", SortText: "python", Doc: domainHover(lib.Snapshot(), python)}},
		{"domain without an index", DomainItem(lib.Snapshot(), bare), Item{
			Label: "bare", Detail: "1 topics · " + Tokens(bare.Tokens()), Description: "1 topics", SortText: "bare"}},
		{"topic", TopicItem(fast, true), Item{
			Label: "fastapi", Detail: "Fast*API · " + Tokens(fast.Tokens), Description: "framework · " + Tokens(fast.Tokens), SortText: "1fastapi",
			Doc: fmt.Sprintf("Fast APIs with Python.\n\nframework · onDemand · %s · 3 sections", Tokens(fast.Tokens))}},
		{"topic without its doc", TopicItem(fast, false), Item{
			Label: "fastapi", Detail: "Fast*API · " + Tokens(fast.Tokens), Description: "framework · " + Tokens(fast.Tokens), SortText: "1fastapi"}},
		{"always-load topic", TopicItem(core, true), Item{
			Label: "core", Detail: "Core · " + Tokens(core.Tokens), Description: "always · " + Tokens(core.Tokens), SortText: "0core",
			Doc: "Core rules.\n\nalways · always · " + Tokens(core.Tokens)}},
		{"untyped topic", TopicItem(&library.Topic{Name: "x", Domain: "d", Tokens: 1500}, true), Item{
			Label: "x", Detail: "d:x · 1,500 tok", Description: "1,500 tok", SortText: "1x", Doc: "1,500 tok"}},
		{"section", SectionItem(3, routes), Item{
			Label: "Routes | paths", Detail: Tokens(routes.Tokens), Description: Tokens(routes.Tokens), SortText: "0003",
			Doc: "Keywords: routes, paths"}},
		{"section with declared tokens and escaped keywords", SectionItem(12, &library.Section{Name: "S", Tokens: 2000, Declared: 1800, Keywords: []string{"a_b", "c"}}), Item{
			Label: "S", Detail: "2,000 tok · 1,800 declared", Description: "2,000 tok", SortText: "0012", Doc: "Keywords: a\\_b, c"}},
		{"section without keywords", SectionItem(0, &library.Section{Name: "S", Tokens: 5}), Item{
			Label: "S", Detail: "5 tok", Description: "5 tok", SortText: "0000"}},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, tc.got, tc.want)
		}
	}
}

func TestBestTopics(t *testing.T) {
	t.Parallel()
	all := topics("zeta", "fastapi_patterns", "common!", "fa_st", "async_fast", "Fastify", "fast_rules!", "other")
	tests := []struct {
		prefix string
		n      int
		want   []string
	}{
		// Always-load first, then the rest in order.
		{"", 10, []string{"common", "fast_rules", "zeta", "fastapi_patterns", "fa_st", "async_fast", "Fastify", "other"}},
		{"", 3, []string{"common", "fast_rules", "zeta"}},
		// Always-load with the prefix, prefix, substring, subsequence.
		{"fast", 10, []string{"fast_rules", "fastapi_patterns", "Fastify", "async_fast", "fa_st"}},
		{"FAST", 2, []string{"fast_rules", "fastapi_patterns"}},
		{"com", 10, []string{"common"}},
		{"mmn", 10, []string{"common"}},
		{"xyz", 10, []string{}},
		{"fast", 0, []string{}},
	}
	for _, tc := range tests {
		if got := names(BestTopics(all, tc.prefix, tc.n)); !slices.Equal(got, tc.want) {
			t.Errorf("BestTopics(%q, %d) = %v, want %v", tc.prefix, tc.n, got, tc.want)
		}
	}
}
