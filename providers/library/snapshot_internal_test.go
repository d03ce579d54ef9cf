package library

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library/internal/incoming"
)

// renderModel writes out everything a snapshot holds: files with their
// references and incoming keys, topics, aliases, stems, domains,
// commands, the incoming index, and what References finds from it.
func renderModel(m *Snapshot) string {
	var b strings.Builder
	for _, f := range m.sortedFiles() {
		fmt.Fprintf(&b, "file %s %v skipped=%q keys=%v\n", f.Rel, f.Kind, f.Skipped, m.incoming.KeyNames(f.inKeys))
		for _, r := range f.Refs.All() {
			fmt.Fprintf(&b, "  ref %v %q %q %q %q %v\n", r.Form, r.Domain, r.Topic, r.Section, r.Path, r.Span)
		}
	}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range m.topics.All() {
			if !yield(id) {
				return
			}
		}
	}) {
		t := m.topics.Get(id)
		fmt.Fprintf(&b, "topic %s %s tokens=%d sections=%d\n", id, t.RelPath, t.Tokens, len(t.Sections))
		for _, loc := range m.References(id) {
			fmt.Fprintf(&b, "  referred by %s at %v\n", loc.File.Rel, loc.Ref.Span)
		}
	}
	for _, a := range slices.Sorted(maps.Keys(m.aliases)) {
		fmt.Fprintf(&b, "alias %s %s\n", a, m.aliases[a].ID)
	}
	var stems []string
	for stem, list := range m.byStem.All() {
		ids := make([]string, len(list))
		for i, t := range list {
			ids[i] = t.ID
		}
		stems = append(stems, fmt.Sprintf("stem %s %v\n", stem, ids))
	}
	slices.Sort(stems)
	b.WriteString(strings.Join(stems, ""))
	for _, name := range slices.Sorted(maps.Keys(m.domains)) {
		d := m.domains[name]
		ids := make([]string, len(d.Topics))
		for i, t := range d.Topics {
			ids[i] = t.ID
		}
		dirs := make([]string, len(d.Dirs))
		for i, dir := range d.Dirs {
			dirs[i] = fsguard.RelSlash(m.dir, dir)
		}
		fmt.Fprintf(&b, "domain %s %v %v index=%v detection=%v\n", name, dirs, ids, d.Index != nil, d.Detection != nil)
		for _, loc := range m.domainReferences(name) {
			fmt.Fprintf(&b, "  referred by %s at %v\n", loc.File.Rel, loc.Ref.Span)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.commands)) {
		fmt.Fprintf(&b, "command %s %s\n", name, fsguard.RelSlash(m.dir, m.commands[name].Path))
	}
	var keys []string
	for k := range m.incoming.Keys() {
		var paths []string
		for p := range m.incoming.Paths(k) {
			paths = append(paths, fsguard.RelSlash(m.dir, p))
		}
		if len(paths) == 0 {
			continue // an emptied set is as good as none
		}
		slices.Sort(paths)
		keys = append(keys, fmt.Sprintf("incoming %s %v\n", k, paths))
	}
	slices.Sort(keys)
	b.WriteString(strings.Join(keys, ""))
	fmt.Fprintf(&b, "dups %v %v %v warnings %v version %d\n", m.dupTopics, m.dupCommands, m.dupWarnings, m.warnings, m.version)
	return b.String()
}

// TestSnapshotUnchangedByApply takes the library's snapshot before each
// of a series of changes (edits that change references, new and removed
// topics, a new domain, a duplicate topic, a command) and checks at the
// end that every one of them still holds exactly what it held when taken.
func TestSnapshotUnchangedByApply(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"commands/run.md":         "# Run\n\npython:a @python b.md\n",
		"context/python/index.md": "---\ntype: index\n---\n# Python\n\n- a.md\n- b.md\n",
		"context/python/a.md":     "# A\n\n## Usage\n\nSee python:b#usage and [b](b.md).\n",
		"context/python/b.md":     "# B\n\n## Usage\n\nBack to python:a.\n",
		"context/go/c.md":         "# C\n\npython:a python:b @python\n",
		"context/shared.md":       "---\nid: eng/shared\n---\n# Shared\n\npython:a\n",
	}
	for i := range 2 * incoming.MinBitset {
		// Enough files naming python:a and @python that their sets are bitsets.
		files[fmt.Sprintf("context/go/n%02d.md", i)] = "# N\n\npython:a @python\n"
	}
	cfg := config.Default()
	cfg.Tokenizer = "estimate"
	l := load(t, testtree.New(t, files), cfg)
	steps := [][]Change{
		{{Path: "context/python/a.md", Content: []byte("# A\n\n## Usage\n\nNow python:b and go:c.\n")}},
		{{Path: "context/go/n00.md", Content: []byte("# N\n\npython:b\n")}},
		{{Path: "context/python/d.md", Content: []byte("# D\n\npython:a\n")}},
		{{Path: "context/python/b.md", Removed: true}},
		{{Path: "context/rust/e.md", Content: []byte("# E\n\npython:a @go\n")}},
		{{Path: "context/python/index.md", Content: []byte("---\ntype: index\n---\n# Python\n\n- a.md\n- d.md\n")}},
		{{Path: "commands/run.md", Content: []byte("# Run\n\nrust:e\n")}},
		{{Path: "context/python/b.md", Content: []byte("# B again\n\npython:a\n")}, {Path: "context/go/n01.md", Removed: true}},
	}
	type taken struct {
		m    *Snapshot
		text string
	}
	var snaps []taken
	for i, changes := range steps {
		m := l.snap.Load()
		snaps = append(snaps, taken{m, renderModel(m)})
		res, err := l.Apply(t.Context(), changes)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if len(res.Changed) == 0 || res.Reloaded {
			t.Fatalf("step %d changed %v, reloaded %v: want an incremental change", i, res.Changed, res.Reloaded)
		}
		if l.snap.Load() == m {
			t.Fatalf("step %d published no new snapshot", i)
		}
	}
	for i, s := range snaps {
		if got := renderModel(s.m); got != s.text {
			t.Errorf("the snapshot taken before step %d changed:\n%s", i, lineDiff(s.text, got))
		}
	}
	if snaps[0].text == renderModel(l.snap.Load()) {
		t.Error("the changes changed nothing: the test compares nothing")
	}
}

// lineDiff lists the lines only in want and only in got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, x := range w {
		if !slices.Contains(g, x) {
			b.WriteString("- " + x + "\n")
		}
	}
	for _, x := range g {
		if !slices.Contains(w, x) {
			b.WriteString("+ " + x + "\n")
		}
	}
	return b.String()
}

// TestApplySamePathTwice applies changes that name one file twice (as a
// removed directory and the file in it may) and checks that the model
// then equals a fresh index of the files it ends with.
func TestApplySamePathTwice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		changes []Change
		final   map[string]string // the text a.md ends with; "" for none
	}{
		{"edited then removed", []Change{
			{Path: "context/python/a.md", Content: []byte("# A\n\npython:c @go\n")},
			{Path: "context/python/a.md", Removed: true},
		}, map[string]string{}},
		{"edited twice", []Change{
			{Path: "context/python/a.md", Content: []byte("# A\n\npython:c @go\n")},
			{Path: "context/python/a.md", Content: []byte("# A\n\ngo:g\n")},
		}, map[string]string{"context/python/a.md": "# A\n\ngo:g\n"}},
		{"removed then created", []Change{
			{Path: "context/python/a.md", Removed: true},
			{Path: "context/python/a.md", Content: []byte("# A\n\npython:c\n")},
		}, map[string]string{"context/python/a.md": "# A\n\npython:c\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			others := map[string]string{
				"context/python/b.md": "# B\n\npython:a\n",
				"context/python/c.md": "# C\n",
				"context/go/g.md":     "# G\n\npython:a\n",
			}
			cfg := config.Default()
			cfg.Tokenizer = "estimate"
			initial := maps.Clone(others)
			initial["context/python/a.md"] = "# A\n\npython:b @python\n"
			l := load(t, testtree.New(t, initial), cfg)
			if _, err := l.Apply(t.Context(), tc.changes); err != nil {
				t.Fatal(err)
			}
			final := maps.Clone(others)
			maps.Copy(final, tc.final)
			fresh := load(t, testtree.New(t, final), cfg)
			got, want := withoutVersion(renderModel(l.snap.Load())), withoutVersion(renderModel(fresh.snap.Load()))
			if got != want {
				t.Errorf("after Apply the model differs from a fresh index:\n%s", lineDiff(want, got))
			}
		})
	}
}

// withoutVersion drops the line of renderModel that counts the changes.
func withoutVersion(s string) string {
	i := strings.LastIndex(s, " version ")
	return s[:i]
}
