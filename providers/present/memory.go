package present

import (
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// ImportHover is the markdown of a hover over an import e of tree t in
// the workspace at root: where it leads, its hop when the tree starts at
// a memory file (fromMemory), what the file and the imports under it
// cost, or why it is not loaded.
func ImportHover(t *imports.Tree, e imports.Edge, root string, fromMemory bool, tokenizer string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**@%s**", e.Path)
	if e.Target != "" {
		fmt.Fprintf(&b, " → `%s`", shown(root, e.Target))
	}
	b.WriteString("\n\n")
	switch e.Status {
	case imports.Loaded, imports.Again:
		f := t.File(e.Target)
		if f == nil {
			break
		}
		if fromMemory {
			fmt.Fprintf(&b, "hop %d of %d · %s", f.Hop, t.MaxHops, Tokens(f.Tokens))
		} else {
			// The tree starts here, not at the memory file: no hop to tell.
			b.WriteString(Tokens(f.Tokens))
		}
		if sub := t.Subtree(f.Path); sub != f.Tokens {
			fmt.Fprintf(&b, " · with its imports %s", Tokens(sub))
		}
		if e.Status == imports.Again {
			b.WriteString(" · already loaded above, counted once")
		}
	case imports.Mention:
		b.WriteString("Not a file: the agent looks for one at this path and finds none; ctxls takes it for a mention, not an import")
	default:
		for _, p := range t.Problems(root) {
			if p.Path == e.From && p.Span == e.Span {
				fmt.Fprintf(&b, "Not loaded (%s): %s", e.Status, p.Message)
				break
			}
		}
	}
	if e.Status == imports.Loaded || e.Status == imports.Again {
		b.WriteString("\n\n" + CountedIn(tokenizer))
	}
	return b.String()
}

// MemoryLens is the label of the code lens above a memory file (or
// another file that what names) whose import tree is t: its own tokens,
// those of the tree, and how many of its imports the agent tries and
// fails to load.
func MemoryLens(t *imports.Tree, what, tokenizer string) string {
	label := fmt.Sprintf("%s: %s", what, Tokens(t.Root().Tokens))
	if n := len(t.Files) - 1; n > 0 {
		label += fmt.Sprintf(" · with %d import%s %s", n, numfmt.Plural(n), Tokens(t.Tokens))
	}
	label += " (" + tokenizer + ")"
	// Imports the agent tries and fails to load; a cycle's file and one
	// outside the project may well be loaded.
	notLoaded := 0
	for _, f := range t.Files {
		for _, e := range f.Imports {
			switch e.Status {
			case imports.Missing, imports.Punctuation, imports.TooDeep, imports.TooLarge:
				notLoaded++
			}
		}
	}
	if notLoaded > 0 {
		label += fmt.Sprintf(" · %d not loaded", notLoaded)
	}
	return label
}

// shown is p relative to root with forward slashes when inside it.
func shown(root, p string) string {
	if rel, ok := fsguard.Rel(root, p); ok {
		return rel
	}
	return p
}
