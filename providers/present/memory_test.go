package present

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/tokens"
)

func TestImportHoverAndMemoryLens(t *testing.T) {
	t.Parallel()
	root := testtree.New(t, map[string]string{
		"CLAUDE.md":     "# Project\n\nSee @docs/style.md\nand @docs/gone.md\nask @someone\n",
		"docs/style.md": "# Style\n\nShort functions, see @more.md\n",
		"docs/more.md":  "# More\n\nMore rules.\n",
	})
	counter, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := imports.Build(context.Background(), filepath.Join(root, "CLAUDE.md"), imports.Options{Root: root, Counter: counter})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{ // by import, what its hover says
		"docs/style.md": {"**@docs/style.md** → `docs/style.md`", "hop 1 of ", " tok · with its imports ", "Tokens counted in o200k_base."},
		"docs/gone.md":  {"**@docs/gone.md**", "Not loaded (missing): "},
		"someone":       {"**@someone**", "Not a file: "},
	}
	seen := 0
	for _, e := range tree.Root().Imports {
		phrases, ok := want[e.Path]
		if !ok {
			t.Errorf("unexpected import %q", e.Path)
			continue
		}
		seen++
		got := ImportHover(tree, e, root, true, counter.Name())
		for _, p := range phrases {
			if !strings.Contains(got, p) {
				t.Errorf("hover of @%s lacks %q:\n%s", e.Path, p, got)
			}
		}
		if e.Path == "docs/style.md" && strings.Contains(ImportHover(tree, e, root, false, counter.Name()), "hop ") {
			t.Errorf("the hover of an import of a tree that starts at no memory file tells a hop")
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d of %d imports", seen, len(want))
	}
	lens := MemoryLens(tree, "Memory", counter.Name())
	if !strings.HasPrefix(lens, "Memory: ") || !strings.Contains(lens, " · with 2 imports ") || !strings.Contains(lens, "(o200k_base) · 1 not loaded") {
		t.Errorf("memory lens: %q", lens)
	}
}
