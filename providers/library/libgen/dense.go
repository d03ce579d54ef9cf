package libgen

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DenseStats describes what Dense wrote.
type DenseStats struct {
	// Path is the command file, Bytes its size and Refs the number of
	// references it holds.
	Path  string
	Bytes int
	Refs  int
}

// Dense writes under dir a small domain "d" of eight topics and a command
// file, commands/dense.md, holding refs references to them in the shortest
// forms the scanner knows, about nine bytes each so that the memory and
// time a file of hundreds of thousands of references costs can be
// measured. One reference in a hundred names a topic that does not exist.
func Dense(dir string, refs int) (DenseStats, error) {
	g := &gen{dir: dir}
	topics := []string{"alpha", "bravo", "delta", "gamma", "kappa", "sigma", "omega", "theta"}
	for _, t := range topics {
		body := fmt.Sprintf("---\nid: d/%s\n---\n\n# %s\n\n## S\n\nText of %s.\n\n## Use\n\nMore text.\n", t, t, t)
		if err := g.write(filepath.Join("context", "d", t+".md"), body); err != nil {
			return DenseStats{}, err
		}
	}
	var b strings.Builder
	b.Grow(refs * 9)
	b.WriteString("---\nname: dense\ndescription: A command file dense with references.\n---\n\n# /dense\n\n")
	for i := range refs {
		t := topics[i%len(topics)]
		switch {
		case i%100 == 99:
			fmt.Fprintf(&b, "d:zz%d", i%7)
		case i%8 == 1:
			fmt.Fprintf(&b, "d:%s#S", t)
		case i%8 == 2:
			fmt.Fprintf(&b, "`d:%s`", t)
		case i%32 == 3:
			fmt.Fprintf(&b, "../context/d/%s.md", t)
		default:
			fmt.Fprintf(&b, "d:%s", t)
		}
		if i%10 == 9 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	b.WriteString("\n")
	rel := filepath.Join("commands", "dense.md")
	if err := g.write(rel, b.String()); err != nil {
		return DenseStats{}, err
	}
	if err := g.write(filepath.Join("context", "d", "index.md"), "# d\n\nThe dense test domain.\n"); err != nil {
		return DenseStats{}, err
	}
	return DenseStats{Path: filepath.Join(dir, rel), Bytes: b.Len(), Refs: refs}, nil
}
