package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// stdioSessionCost is the part of ctxls/sessionCost the tests read.
type stdioSessionCost struct {
	AlwaysLoaded []struct {
		File   string `json:"file"`
		Tokens int    `json:"tokens"`
		Reason string `json:"reason"`
	} `json:"alwaysLoaded"`
	TotalAlwaysLoaded int `json:"totalAlwaysLoaded"`
}

// tokensOf returns the always-loaded tokens of file, -1 when it is not
// loaded.
func (c stdioSessionCost) tokensOf(file string) int {
	n := -1
	for _, e := range c.AlwaysLoaded {
		if e.File == file {
			n = max(n, 0) + e.Tokens
		}
	}
	return n
}

// TestSessionCostFollowsSnapshot runs the server binary with its file
// watcher on: a skill created on disk, and agent files edited in the
// editor and not saved, change the session cost at once, and the server
// says so with ctxls/agentFilesChanged, which the editor's status bar
// refreshes on.
func TestSessionCostFollowsSnapshot(t *testing.T) {
	t.Parallel()
	bin := stdioBinaryPath(t) // built before the deadline starts
	ctx := stdioCtx(t)
	dir := libtest.WriteTree(t, map[string]string{
		"CLAUDE.md":                     "# Project\n\nBe brief.\n",
		".claude/skills/alpha/SKILL.md": "---\nname: alpha\ndescription: First skill.\n---\n\nAlpha body.\n",
	})
	c := StartClient(t, dir, bin, "serve", "--stdio")
	if _, err := c.Initialize(ctx, dir, nil, nil); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	cost := func() stdioSessionCost {
		t.Helper()
		var sc stdioSessionCost
		if err := c.Call(ctx, "ctxls/sessionCost", map[string]any{"agent": "claude"}, &sc); err != nil {
			t.Fatalf("ctxls/sessionCost: %v", err)
		}
		return sc
	}
	// after makes a change and waits for the notification it causes, then
	// for the session cost to say ok: the cost a request reads follows the
	// change by the time the client is told.
	after := func(what string, change func(), ok func(stdioSessionCost) bool) stdioSessionCost {
		t.Helper()
		told := c.Expect(string(ops.NotifyAgentFilesChanged), nil)
		change()
		select {
		case <-told:
		case <-ctx.Done():
			t.Fatalf("%s: no %s before the deadline", what, string(ops.NotifyAgentFilesChanged))
		}
		for {
			next := c.Expect(string(ops.NotifyAgentFilesChanged), nil)
			sc := cost()
			if ok(sc) {
				return sc
			}
			select {
			case <-next:
			case <-ctx.Done():
				t.Fatalf("%s: the session cost did not follow before the deadline: %+v", what, sc)
			}
		}
	}

	start := cost()
	alpha := start.tokensOf(".claude/skills/alpha/SKILL.md")
	if alpha <= 0 || start.tokensOf("CLAUDE.md") <= 0 {
		t.Fatalf("session cost at start lacks the skill or the memory file: %+v", start)
	}

	// A skill created on disk, in a folder that did not exist.
	beta := filepath.Join(dir, ".claude", "skills", "beta", "SKILL.md")
	created := after("a skill created on disk", func() {
		testtree.Write(t, beta, "---\nname: beta\ndescription: Second skill, made while the server ran.\n---\n\nBeta body.\n")
	}, func(sc stdioSessionCost) bool { return sc.tokensOf(".claude/skills/beta/SKILL.md") > 0 })
	if created.TotalAlwaysLoaded <= start.TotalAlwaysLoaded {
		t.Errorf("total %d after a skill was created, %d before", created.TotalAlwaysLoaded, start.TotalAlwaysLoaded)
	}

	// The skill edited in the editor and not saved: a longer description
	// lists longer.
	alphaPath := filepath.Join(dir, ".claude", "skills", "alpha", "SKILL.md")
	uri := stdioFileURI(alphaPath)
	disk, err := os.ReadFile(alphaPath)
	if err != nil {
		t.Fatal(err)
	}
	long := "---\nname: alpha\ndescription: First skill, " + strings.Repeat("described at length, ", 20) + "in the editor only.\n---\n\nAlpha body.\n"
	edited := after("a skill edited and not saved", func() {
		if err := c.DidOpen(uri, string(disk)); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 2},
			"contentChanges": []any{map[string]any{"text": long}},
		}); err != nil {
			t.Fatal(err)
		}
	}, func(sc stdioSessionCost) bool { return sc.tokensOf(".claude/skills/alpha/SKILL.md") > alpha+20 })

	// The memory file edited and not saved.
	memory := filepath.Join(dir, "CLAUDE.md")
	before := edited.tokensOf("CLAUDE.md")
	after("the memory file edited and not saved", func() {
		if err := c.DidOpen(stdioFileURI(memory), "# Project\n\nBe brief.\n"); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": stdioFileURI(memory), "version": 2},
			"contentChanges": []any{map[string]any{"text": "# Project\n\n" + strings.Repeat("Be brief and say why. ", 30) + "\n"}},
		}); err != nil {
			t.Fatal(err)
		}
	}, func(sc stdioSessionCost) bool { return sc.tokensOf("CLAUDE.md") > before+30 })

	// Nothing was written: the disk still has what it had.
	if got, err := os.ReadFile(alphaPath); err != nil || string(got) != string(disk) {
		t.Errorf("the skill on disk changed: %q, %v", got, err)
	}
	if err := c.CloseAll(); err != nil {
		t.Fatal(err)
	}
}
