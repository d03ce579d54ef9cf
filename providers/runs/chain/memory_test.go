package chain

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/library/libtest"
)

// The workspace's memory files and their imports are in every step's
// prompt, loaded once per execution and counted apart.
func TestChainMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	libtest.WriteFiles(t, e.dir, map[string]string{
		"CLAUDE.md":     "# Project\n\nUse tabs. See @docs/style.md and @AGENTS.md.\n",
		"docs/style.md": "Style: MEMORY-STYLE-RULE.\n",
		"AGENTS.md":     "Agents: MEMORY-AGENTS-RULE.\n",
	})
	ctx := context.Background()

	pre, err := e.runner.Preview(ctx, Request{Commands: []string{"brainstorm"}, Input: "x"})
	check(t, err)
	if p := pre.Steps[0].Prompt; !strings.Contains(p, "# Project memory") || !strings.Contains(p, "MEMORY-STYLE-RULE") {
		t.Fatalf("preview prompt lacks the memory:\n%s", p)
	}

	res, err := e.runner.Run(ctx, Request{Commands: []string{"brainstorm", "implement"}, Input: "add sorting", ProjectName: "shop"})
	check(t, err)
	want := []string{"project:CLAUDE.md", "project:docs/style.md", "project:AGENTS.md"}
	for i, s := range res.Steps {
		var keys []string
		for _, m := range s.Memory {
			keys = append(keys, m.Key)
			if m.Cached != (i > 0) || m.Tokens <= 0 {
				t.Errorf("step %d: memory item %+v; want cached from the second step and a cost", i, m)
			}
		}
		if !slices.Equal(keys, want) {
			t.Errorf("step %d: memory %v, want %v", i, keys, want)
		}
		sum := 0
		for _, m := range s.Memory {
			sum += m.Tokens
		}
		if s.MemoryTokens != sum || s.PromptTokens <= s.CommandTokens+s.ContextTokens+s.InputTokens {
			t.Errorf("step %d: memory tokens %d (items %d), prompt %d", i, s.MemoryTokens, sum, s.PromptTokens)
		}
	}

	// The memory is the execution's: a later run in it keeps what was
	// loaded, whatever the files say now.
	libtest.WriteFiles(t, e.dir, map[string]string{"docs/style.md": "Style: CHANGED.\n"})
	res2, err := e.runner.Run(ctx, Request{Commands: []string{"test"}, SessionID: res.SessionID})
	check(t, err)
	st, err := e.store.Get(ctx, res.SessionID)
	check(t, err)
	if got := st.LoadedMemory["project:docs/style.md"]; got != "Style: MEMORY-STYLE-RULE.\n" {
		t.Errorf("loadedMemory of docs/style.md = %q", got)
	}
	last := st.CommandHistory[len(st.CommandHistory)-1]
	var prompt string
	check(t, json.Unmarshal(last.Outputs["prompt"], &prompt))
	if !strings.Contains(prompt, "MEMORY-STYLE-RULE") || strings.Contains(prompt, "CHANGED") || !strings.Contains(prompt, "MEMORY-AGENTS-RULE") {
		t.Errorf("prompt of the later run does not carry the execution's memory:\n%s", prompt)
	}
	if !res2.Steps[0].Memory[0].Cached {
		t.Errorf("later run: memory not from the execution's cache: %+v", res2.Steps[0].Memory[0])
	}
}

// Without memory files, a step has none and says so with empty lists.
func TestChainNoMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "executor:\n  kind: preview\n")
	// The example library has memory files of its own; this workspace has none.
	for _, name := range []string{"CLAUDE.md", "AGENTS.md", filepath.Join(".claude", "CLAUDE.md"), filepath.Join(".claude", "rules")} {
		check(t, os.RemoveAll(filepath.Join(e.dir, name)))
	}
	res, err := e.runner.Run(context.Background(), Request{Commands: []string{"brainstorm"}, Input: "x"})
	check(t, err)
	if s := res.Steps[0]; s.Memory == nil || len(s.Memory) != 0 || s.MemoryTokens != 0 {
		t.Errorf("memory %v, %d tokens; want none", s.Memory, s.MemoryTokens)
	}
}
