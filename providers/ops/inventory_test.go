package ops_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/tokens"
)

// TestInventoryTokenizer counts the inventory and its search in the
// library's tokenizer by default and in a named one on request: each
// entry then costs what that tokenizer counts of its body, as the session
// cost counts the same file.
func TestInventoryTokenizer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := libtest.WriteTree(t, map[string]string{
		"context/ops/release.md":             "---\ntitle: Release Process\ntags: [deploy]\n---\n# Release Process\n\nTag, build, deploy and announce the release.\n",
		".claude/skills/deploy-app/SKILL.md": "---\nname: deploy-app\ndescription: Deploys the app\n---\n\nRun the deploy script, then check the health endpoint.\n",
		".claude/commands/ship.md":           "---\ndescription: Ship a release\n---\n\nRun the checks, then deploy the release.\n",
		".claude/agents/auditor.md":          "---\nname: auditor\ndescription: Audits deploy scripts\n---\n\nAudit every deploy script for secrets.\n",
		".claude/rules/style.md":             "# Style\n\nShort functions that deploy nothing.\n",
	})
	lib, err := library.Load(ctx, dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := lib.Snapshot()
	set, err := agentfiles.Load(ctx, dir, snap.Config())
	if err != nil {
		t.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.StaticWith(snap, set)})
	// want is what counter counts of the body of the entry at path.
	want := func(counter tokens.Counter, path string) int {
		for _, f := range set.Files {
			if f.Rel == path {
				return agentload.FileTokens(counter, f)
			}
		}
		for _, tp := range snap.Topics() {
			if tp.RelPath == "ops/release.md" && path == "context/ops/release.md" {
				return counter.Count(tp.Body())
			}
		}
		t.Fatalf("no file %s", path)
		return 0
	}
	for _, name := range []string{"", "o200k_base", "claude-5", "estimate"} {
		counter := snap.Counter()
		if name != "" {
			if counter, err = tokens.New(name); err != nil {
				t.Fatal(err)
			}
		}
		inv, err := o.Inventory(ctx, ops.InventoryRequest{Tokenizer: name})
		if err != nil {
			t.Fatal(err)
		}
		found, err := o.SearchInventory(ctx, ops.InventorySearchRequest{Query: "deploy", Tokenizer: name})
		if err != nil {
			t.Fatal(err)
		}
		if inv.Tokenizer != counter.Name() || found.Tokenizer != counter.Name() || len(inv.Entries) != 5 || len(found.Items) < 3 {
			t.Fatalf("tokenizer %q: inventory in %s (%d entries), search in %s (%d results), want %s, 5 entries and 3 results or more",
				name, inv.Tokenizer, len(inv.Entries), found.Tokenizer, len(found.Items), counter.Name())
		}
		sum := 0
		for _, e := range inv.Entries {
			sum += e.Tokens
			if w := want(counter, e.Path); e.Tokens != w || w == 0 {
				t.Errorf("tokenizer %q: %s costs %d, want %d", name, e.Path, e.Tokens, w)
			}
		}
		for _, it := range found.Items {
			if w := want(counter, it.Path); it.Tokens != w {
				t.Errorf("tokenizer %q: search: %s costs %d, want %d", name, it.Path, it.Tokens, w)
			}
		}
		if sum != inv.Tokens {
			t.Errorf("tokenizer %q: entries sum to %d, the inventory says %d", name, sum, inv.Tokens)
		}
	}
	for _, call := range []func() error{
		func() error { _, err := o.Inventory(ctx, ops.InventoryRequest{Tokenizer: "nope"}); return err },
		func() error {
			_, err := o.SearchInventory(ctx, ops.InventorySearchRequest{Query: "x", Tokenizer: "nope"})
			return err
		},
	} {
		if err := call(); !errors.Is(err, ops.ErrInvalid) {
			t.Errorf("an unknown tokenizer: %v, want an invalid request", err)
		}
	}
}

// TestInventoryReferencesAreUnique: skills of one name in several folders
// (a plugin copied for several agents) are each named by their path, so
// that LoadContext loads the one an entry lists; a skill whose name is
// its own keeps it; and every title is one line.
func TestInventoryReferencesAreUnique(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := libtest.WriteTree(t, map[string]string{
		"plugins/claude/docs/skills/find-docs/SKILL.md": "---\nname: find-docs\ndescription: |\n  Finds documentation.\n  Use when asked about a library.\n---\n\nClaude's copy.\n",
		"plugins/codex/docs/skills/find-docs/SKILL.md":  "---\nname: find-docs\ndescription: Finds documentation\n---\n\nCodex's copy.\n",
		".claude/skills/deploy-app/SKILL.md":            "---\nname: deploy-app\ndescription: Deploys\n  the app\n---\n\nRun the script.\n",
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
	inv, err := o.Inventory(ctx, ops.InventoryRequest{Kind: ops.KindSkill})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ title, body string }{
		"plugins/claude/docs/skills/find-docs/SKILL.md": {"Finds documentation. Use when asked about a library.", "Claude's copy."},
		"plugins/codex/docs/skills/find-docs/SKILL.md":  {"Finds documentation", "Codex's copy."},
		"deploy-app": {"Deploys the app", "Run the script."},
	}
	if len(inv.Entries) != len(want) {
		t.Fatalf("%d skills, want %d: %+v", len(inv.Entries), len(want), inv.Entries)
	}
	for _, e := range inv.Entries {
		w, ok := want[e.Reference]
		if !ok || e.Title != w.title {
			t.Errorf("skill %q titled %q; want one of %v", e.Reference, e.Title, want)
			continue
		}
		res, err := o.LoadContext(ctx, ops.LoadContextRequest{Refs: []string{e.Reference}})
		if err != nil {
			t.Errorf("load %s: %v", e.Reference, err)
			continue
		}
		if !strings.Contains(res.Text, w.body) {
			t.Errorf("load %s: %q, want the body %q", e.Reference, res.Text, w.body)
		}
	}
	found, err := o.SearchInventory(ctx, ops.InventorySearchRequest{Query: "find-docs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Items) != 2 || found.Items[0].Relevance != found.Items[1].Relevance || !slices.Contains(found.Items[0].MatchedOn, "name") {
		t.Errorf("search find-docs: %+v, want both copies, matched on their name", found.Items)
	}
}
