package ops_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// TestSymbolsAreTheInventory: an editor's symbol search finds topics,
// skills, commands, subagents and rules, each as the inventory lists it,
// best matches first.
func TestSymbolsAreTheInventory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := libtest.WriteTree(t, map[string]string{
		"context/ops/release.md":             "---\ntitle: Release Process\ntags: [deploy]\n---\n# Release Process\n\nTag and ship.\n",
		".claude/skills/deploy-app/SKILL.md": "---\nname: deploy-app\ndescription: Deploys the app\n---\n\nRun the script.\n",
		".claude/commands/ship.md":           "---\ndescription: Ship a release\n---\n\nRun the checks.\n",
		".claude/agents/auditor.md":          "---\nname: auditor\ndescription: Audits scripts\n---\n\nAudit.\n",
		".claude/rules/style.md":             "# Style\n\nShort functions.\n",
	})
	lib, err := library.Load(ctx, dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := agentfiles.Load(ctx, dir, lib.Snapshot().Config())
	if err != nil {
		t.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.StaticWith(lib.Snapshot(), set)})
	inv, err := o.Inventory(ctx, ops.InventoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  []string // references, best first
	}{
		{"", []string{"ops:release", ".claude/commands/ship.md", ".claude/agents/auditor.md", ".claude/rules/style.md", "deploy-app"}},
		{"deploy", []string{"deploy-app", "ops:release"}}, // a name's prefix beats a tag
		{"SHIP", []string{".claude/commands/ship.md"}},
		{"audits", []string{".claude/agents/auditor.md"}}, // the title
		{"stl", []string{".claude/rules/style.md"}},       // the path's characters in order
		{"nothing-like-it", nil},
	}
	for _, tt := range tests {
		res, err := o.Symbols(ctx, ops.SymbolsRequest{Query: tt.query})
		if err != nil {
			t.Fatalf("Symbols(%q): %v", tt.query, err)
		}
		var got []string
		for _, s := range res.Items {
			got = append(got, s.Reference)
			if !slices.Contains(inv.Entries, s.InventoryEntry) {
				t.Errorf("Symbols(%q): %+v is not an inventory entry", tt.query, s.InventoryEntry)
			}
			if s.Name == "" || s.Container == "" {
				t.Errorf("Symbols(%q): %+v has no name or container", tt.query, s)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Symbols(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
	res, err := o.Symbols(ctx, ops.SymbolsRequest{Limit: 2})
	if err != nil || len(res.Items) != 2 || len(res.Warnings) != 1 {
		t.Errorf("Symbols with a limit of 2 = %+v, %v", res, err)
	}
	if _, err := o.Symbols(ctx, ops.SymbolsRequest{Limit: -1}); err == nil {
		t.Error("a negative limit is accepted")
	}
}
