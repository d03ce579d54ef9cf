package library

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// locations renders References(id) as "rel:text" strings.
func locations(l *Library, id string) []string {
	var out []string
	for _, loc := range l.Snapshot().References(id) {
		out = append(out, loc.File.Rel+":"+string(docText(loc.File.Doc)[loc.Ref.Span.Start:loc.Ref.Span.End]))
	}
	return out
}

func TestApply(t *testing.T) {
	t.Parallel()
	files := with(map[string]string{
		"commands/review.md": "# Review\n\nLoad python:django_patterns and python:flask_patterns.\n",
		"commands/other.md":  "# Other\n\nSee [d](../context/python/django_patterns.md).\n",
		"notes/readme.md":    "# Notes\n",
	})
	dir := testtree.New(t, files)
	l := load(t, dir, nil)
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	review, other, flask, django := abs("commands/review.md"), abs("commands/other.md"), abs("context/python/flask_patterns.md"), abs("context/python/django_patterns.md")

	if got := codes(diagsOf(t, l, "commands/review.md")); !slices.Equal(got, []string{CodeUnresolved}) {
		t.Fatalf("before: %v", got)
	}
	wantRefs := []string{"commands/other.md:../context/python/django_patterns.md", "commands/review.md:python:django_patterns", "context/python/index.md:django_patterns.md"}
	if got := locations(l, "python/django_patterns"); !slices.Equal(got, wantRefs) {
		t.Fatalf("References before = %v", got)
	}
	v0 := l.Snapshot().Version()
	// writes is a step's change that writes text at p.
	writes := func(p, text string) func() Change {
		return func() Change {
			must(t, os.WriteFile(p, []byte(text), 0o644))
			return Change{Path: p}
		}
	}

	steps := []struct {
		name     string
		change   func() Change
		changed  []string
		affected []string // must be included
		check    func(t *testing.T)
	}{
		{
			name:     "create a topic that a command was missing",
			change:   writes(flask, "# Flask\n\n## Blueprints\n\nB.\n"),
			changed:  []string{flask},
			affected: []string{flask, review, abs("context/python/index.md")},
			check: func(t *testing.T) {
				wantDiags(t, l, "commands/review.md", "the command once the topic exists")
				if got := locations(l, "python/flask_patterns"); !slices.Equal(got, []string{"commands/review.md:python:flask_patterns"}) {
					t.Errorf("References(flask) = %v", got)
				}
				// The index does not list the new topic.
				if !slices.Contains(codes(diagsOf(t, l, "context/python/index.md")), codeIndexUnlisted) {
					t.Error("index does not report the unlisted new topic")
				}
			},
		},
		{
			name: "change a command through editor content (not on disk)",
			change: func() Change {
				return Change{Path: "commands/review.md", Content: []byte("# Review\n\nLoad python:flask_patterns#Blueprints and python:flask_patterns#Routes.\n")}
			},
			changed:  []string{review},
			affected: []string{review},
			check: func(t *testing.T) {
				wantDiags(t, l, "commands/review.md", "editor content naming a missing section", wantDiag{codeUnknownSection, diag.Error, "Routes"})
				if got := locations(l, "python/django_patterns"); !slices.Equal(got, []string{wantRefs[0], wantRefs[2]}) {
					t.Errorf("References(django) = %v", got)
				}
				if got := locations(l, "python/flask_patterns"); len(got) != 2 {
					t.Errorf("References(flask) = %v", got)
				}
			},
		},
		{
			name:     "change a topic's headings",
			change:   writes(flask, "# Flask\n\n## Blueprints\n\n## Routes\n"),
			changed:  []string{flask},
			affected: []string{flask, review},
			check: func(t *testing.T) {
				wantDiags(t, l, "commands/review.md", "no diagnostics")
			},
		},
		{
			name: "remove a topic",
			change: func() Change {
				must(t, os.Remove(django))
				return Change{Path: django, Removed: true}
			},
			changed:  []string{django},
			affected: []string{django, other, abs("context/python/index.md")},
			check: func(t *testing.T) {
				if _, ok := l.Snapshot().Topic("python/django_patterns"); ok {
					t.Error("removed topic still there")
				}
				if _, ok := l.Snapshot().File(django); ok {
					t.Error("removed file still there")
				}
				if got := codes(diagsOf(t, l, "commands/other.md")); !slices.Equal(got, []string{CodeUnresolved}) {
					t.Errorf("other = %v", got)
				}
				if got := codes(diagsOf(t, l, "context/python/index.md")); !slices.Equal(got, []string{codeIndexUnlisted, codeIndexMissing}) {
					t.Errorf("index = %v", got)
				}
			},
		},
		{
			name:    "a new domain makes key forms appear",
			change:  writes(review, "# Review\n\nSee rust:ownership.\n"),
			changed: []string{review},
			check: func(t *testing.T) {
				// rust is not a domain yet, so rust:ownership is plain text.
				f, _ := l.Snapshot().File(review)
				if f.Refs.Len() != 0 {
					t.Errorf("refs before the domain exists: %+v", f.Refs.Slice())
				}
			},
		},
		{
			name: "create the domain directory with a topic",
			change: func() Change {
				p := abs("context/rust/borrowing.md")
				testtree.Write(t, p, "# Borrowing\n")
				return Change{Path: filepath.Dir(p)}
			},
			changed:  []string{abs("context/rust/borrowing.md")},
			affected: []string{review},
			check: func(t *testing.T) {
				if !l.Snapshot().IsDomain("rust") {
					t.Fatal("rust is not a domain")
				}
				got := diagsOf(t, l, "commands/review.md")
				if len(got) != 1 || got[0].Code != CodeUnresolved || got[0].Text != "ownership" {
					t.Errorf("review = %v", got)
				}
			},
		},
		{
			name: "remove the domain directory",
			change: func() Change {
				must(t, os.RemoveAll(abs("context/rust")))
				return Change{Path: abs("context/rust")}
			},
			changed:  []string{abs("context/rust/borrowing.md")},
			affected: []string{review},
			check: func(t *testing.T) {
				if l.Snapshot().IsDomain("rust") {
					t.Error("rust is still a domain")
				}
				wantDiags(t, l, "commands/review.md", "no diagnostics")
			},
		},
		{
			name:   "a non-markdown file changes nothing",
			change: writes(abs("context/python/data.json"), "{}"),
		},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := l.Snapshot().Version()
			res, err := l.Apply(t.Context(), []Change{s.change()})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reloaded {
				t.Error("a file change reloaded the whole workspace")
			}
			if !slices.Equal(res.Changed, s.changed) {
				t.Errorf("Changed = %v, want %v", res.Changed, s.changed)
			}
			for _, p := range s.affected {
				if !slices.Contains(res.Affected, p) {
					t.Errorf("Affected = %v lacks %s", res.Affected, p)
				}
			}
			if len(s.changed) > 0 && l.Snapshot().Version() <= before {
				t.Error("version did not increase")
			}
			if s.check != nil {
				s.check(t)
			}
		})
	}
	if l.Snapshot().Version() <= v0 {
		t.Error("version did not move")
	}

	// After all the steps, the incremental state equals a fresh load.
	fresh := load(t, dir, nil)
	if got, want := snapshot(l), snapshot(fresh); !slices.Equal(got, want) {
		t.Errorf("incremental state differs from a fresh load:\n got  %v\n want %v", got, want)
	}
}

// snapshot renders a library's topics, references and diagnostics.
func snapshot(l *Library) []string {
	var out []string
	for _, tp := range l.Snapshot().Topics() {
		out = append(out, "topic "+tp.ID)
		for _, loc := range l.Snapshot().References(tp.ID) {
			out = append(out, "  ref "+loc.File.Rel)
		}
	}
	for _, f := range l.Snapshot().Files() {
		for _, d := range l.Snapshot().Diagnose(f.Path) {
			out = append(out, "wantDiag "+f.Rel+" "+d.Code+" "+d.Message)
		}
	}
	return out
}

func TestApplyConfigReloads(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"kb/python/a.md":  "# A\n",
		"commands/c.md":   "# C\n\npython:a\n",
		"context/go/x.md": "# X\n",
	})
	l := loadWithin(t, dir)
	if l.Snapshot().IsDomain("python") {
		t.Fatal("kb is not a root yet")
	}
	must(t, os.WriteFile(filepath.Join(dir, ".ctxls.yaml"), []byte("contextRoots: [kb]\ntokenizer: estimate\n"), 0o644))
	res, err := l.Apply(t.Context(), []Change{{Path: filepath.Join(dir, ".ctxls.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reloaded || !l.Snapshot().IsDomain("python") || l.Snapshot().Counter().Name() != "estimate" {
		t.Errorf("reloaded %v python %v counter %s", res.Reloaded, l.Snapshot().IsDomain("python"), l.Snapshot().Counter().Name())
	}
	f, _ := l.Snapshot().File(filepath.Join(dir, "commands/c.md"))
	if f.Refs.Len() != 1 {
		t.Errorf("refs = %+v", f.Refs.Slice())
	}
	// A new context root directory needs a rescan too.
	testtree.Write(t, filepath.Join(dir, "more/context/rust/b.md"), "---\ndomain: rust\n---\n# B\n")
	res, err = l.Apply(t.Context(), []Change{{Path: filepath.Join(dir, "more/context/rust/b.md")}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reloaded || !l.Snapshot().IsDomain("rust") {
		t.Errorf("new root: reloaded %v rust %v", res.Reloaded, l.Snapshot().IsDomain("rust"))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestApplyIncrementalSnapshotsAndDuplicates(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"context/python/a.md":             "# A\n",
		"context/python/index.md":         "# Python\n\n- `a.md`\n",
		"docs/context/python/a.md":        "# A again\n",
		"commands/x.md":                   "# X\n\npython:a\n",
		"commands/x/COMMAND.md":           "# X too\n",
		"context/go/context_detection.md": "# Detect\n",
	})
	l := load(t, dir, nil)
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	d0, _ := l.Snapshot().Domain("python")
	n0 := len(d0.Topics)
	w0 := len(l.Snapshot().Warnings())
	if w0 != 2 {
		t.Fatalf("warnings = %v, want the duplicate topic and command", l.Snapshot().Warnings())
	}
	steps := []struct {
		name   string
		change Change
	}{
		{"add a topic", Change{Path: abs("context/python/b.md"), Content: []byte("# B\n")}},
		{"edit a duplicated topic", Change{Path: abs("docs/context/python/a.md"), Content: []byte("# A edited\n")}},
		{"edit a duplicated command", Change{Path: abs("commands/x/COMMAND.md"), Content: []byte("# X edited\n")}},
		{"edit the winning duplicate", Change{Path: abs("context/python/a.md"), Content: []byte("# A first\n\n## Part\n")}},
		{"add a detection topic", Change{Path: abs("context/python/context_detection.md"), Content: []byte("# Detect\n")}},
		{"remove the winning duplicate", Change{Path: abs("context/python/a.md"), Removed: true}},
		{"remove the last topic of a domain", Change{Path: abs("context/go/context_detection.md"), Removed: true}},
	}
	for _, s := range steps {
		if s.change.Content != nil {
			must(t, os.WriteFile(s.change.Path, s.change.Content, 0o644))
		} else if s.change.Removed {
			must(t, os.Remove(s.change.Path))
		}
		if _, err := l.Apply(t.Context(), []Change{s.change}); err != nil {
			t.Fatal(err)
		}
		fresh := load(t, dir, nil)
		if got, want := snapshot(l), snapshot(fresh); !slices.Equal(got, want) {
			t.Errorf("%s: incremental state differs from a fresh load:\n got  %v\n want %v", s.name, got, want)
		}
		if got, want := domainSummary(l), domainSummary(fresh); !slices.Equal(got, want) {
			t.Errorf("%s: domains %v, want %v", s.name, got, want)
		}
		if got, want := len(l.Snapshot().Warnings()), len(fresh.Snapshot().Warnings()); got != want {
			t.Errorf("%s: %d warnings, want %d: %v", s.name, got, want, l.Snapshot().Warnings())
		}
	}
	// A domain handed out before the changes is a snapshot.
	if len(d0.Topics) != n0 {
		t.Errorf("held domain changed: %d topics, had %d", len(d0.Topics), n0)
	}
	if tp, ok := l.Snapshot().Topic("python/a"); !ok || tp.Path != abs("docs/context/python/a.md") {
		t.Errorf("python/a after removing the winner = %+v", tp)
	}
}

// domainSummary renders domains with their topics, index and detection.
func domainSummary(l *Library) []string {
	var out []string
	for _, d := range l.Snapshot().Domains() {
		s := d.Name + ":"
		for _, tp := range d.Topics {
			s += " " + tp.Name
		}
		if d.Index != nil {
			s += " index=" + d.Index.ID
		}
		if d.Detection != nil {
			s += " detection=" + d.Detection.ID
		}
		out = append(out, s+" dirs="+strings.Join(d.Dirs, ","))
	}
	return out
}

func TestApplyAffectedIsProportional(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"context/python/a.md":     "# A\n\n## Part\n",
		"context/python/b.md":     "# B\n",
		"context/python/index.md": "# Python\n\n- `a.md`\n- `b.md`\n",
		"commands/uses_a.md":      "# A\n\npython:a#Part\n",
		"commands/uses_b.md":      "# B\n\npython:b and python:djangoo\n",
		"commands/uses_domain.md": "---\ncontext: [python]\n---\n# D\n",
	})
	l := load(t, dir, nil)
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tests := []struct {
		name   string
		change Change
		want   []string
		not    []string
	}{
		{"edit in place", Change{Path: abs("context/python/a.md"), Content: []byte("# A\n\n## Part\n\nMore.\n")},
			[]string{"context/python/a.md", "commands/uses_a.md", "context/python/index.md"},
			[]string{"commands/uses_b.md", "commands/uses_domain.md"}},
		{"create a topic", Change{Path: abs("context/python/djangoo.md"), Content: []byte("# D\n")},
			[]string{"context/python/djangoo.md", "commands/uses_b.md", "commands/uses_domain.md"}, nil},
		{"edit the index", Change{Path: abs("context/python/index.md"), Content: []byte("# Python index\n")},
			[]string{"context/python/index.md", "commands/uses_domain.md"}, nil},
	}
	for _, tc := range tests {
		res, err := l.Apply(t.Context(), []Change{tc.change})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !slices.Contains(res.Affected, abs(w)) {
				t.Errorf("%s: Affected %v lacks %s", tc.name, res.Affected, w)
			}
		}
		for _, n := range tc.not {
			if slices.Contains(res.Affected, abs(n)) {
				t.Errorf("%s: Affected %v has %s", tc.name, res.Affected, n)
			}
		}
	}
}

// TestApplyFollowsTheScan checks that Apply reads exactly what a fresh scan
// reads: files in hidden or ignored folders stay out, and a configured root
// inside such a folder is read.
func TestApplyFollowsTheScan(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"context/python/index.md": "# Python\n",
		".cache/kb/notes.md":      "# Notes\n",
	})
	cfg := config.Default()
	cfg.CommandRoots = []string{".cache/kb"}
	l := load(t, dir, cfg)
	cases := []struct {
		rel  string
		read bool
	}{
		{".github/workflow.md", false},
		{"node_modules/pkg/readme.md", false},
		{".cache/other/x.md", false},
		{".cache/kb/new.md", true},
		{"docs/guide.md", true},
	}
	for _, c := range cases {
		p := filepath.Join(dir, filepath.FromSlash(c.rel))
		testtree.Write(t, p, "# New\n\nSee python:nothing_here.\n")
		if _, err := l.Apply(context.Background(), []Change{{Path: p}}); err != nil {
			t.Fatal(err)
		}
		if _, ok := l.Snapshot().File(p); ok != c.read {
			t.Errorf("%s: indexed = %v, want %v", c.rel, ok, c.read)
		}
	}
	// A new directory brings what the scan would read of it, no more.
	sub := filepath.Join(dir, "docs", "more")
	testtree.WriteFiles(t, sub, map[string]string{"a.md": "# A\n", ".hidden/b.md": "# B\n"})
	if _, err := l.Apply(context.Background(), []Change{{Path: sub}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Snapshot().File(filepath.Join(sub, "a.md")); !ok {
		t.Errorf("docs/more/a.md not indexed")
	}
	if _, ok := l.Snapshot().File(filepath.Join(sub, ".hidden", "b.md")); ok {
		t.Errorf("docs/more/.hidden/b.md indexed")
	}
}

func TestReleasedTextReadBack(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"context/python/a.md": "# A\n\n## Part\n\nSee `python:b` and `git:x`.\n",
		"context/python/b.md": "---\ndomain: python\n---\n# B\n\n## Only\n\nText of b.\n",
		"context/git/x.md":    "# X\n",
		"context/git/z.md":    "# Z\n",
	})
	var mu sync.Mutex
	var told []string
	l, err := Load(context.Background(), dir, config.Default(), Options{Changed: func(p string) {
		mu.Lock()
		told = append(told, p)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := l.Snapshot().File(filepath.Join(dir, "context/python/a.md"))
	if !a.Doc.Released() || a.Doc.Text != nil {
		t.Fatal("a file read from disk kept its text")
	}
	// A vanished file gives its read error (nothing was read back yet, so
	// nothing is kept).
	x, _ := l.Snapshot().Topic("git/x")
	if err := os.Remove(x.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Doc.Content(t.Context()); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Content of a removed file: %v", err)
	}
	if got := x.Doc.Slice(x.Doc.Body); got != nil {
		t.Errorf("Slice of a removed file = %q", got)
	}
	b, _ := l.Snapshot().Topic("python/b")
	s, _ := b.Section("Only")
	if got := string(b.Doc.Slice(s.Content)); got != "## Only\n\nText of b.\n" {
		t.Errorf("section read back = %q", got)
	}

	// a changes on disk unseen; a new domain makes every file's references
	// be scanned again, and a's stay those of its indexed text.
	before := a.Refs.Len()
	testtree.Write(t, a.Path, "# A\n\nNothing now.\n")
	newDomain := testtree.Write(t, filepath.Join(dir, "context/rust/y.md"), "# Y\n")
	if _, err := l.Apply(t.Context(), []Change{{Path: newDomain}}); err != nil {
		t.Fatal(err)
	}
	a2, _ := l.Snapshot().File(a.Path)
	if a2.Refs.Len() != before || before != 2 {
		t.Errorf("references of the changed file after a rescan: %d, want the indexed %d (2)", a2.Refs.Len(), before)
	}
	if _, err := a2.Doc.Content(t.Context()); !errors.Is(err, document.ErrChanged) {
		t.Errorf("Content of the changed file: %v, want ErrChanged", err)
	}
	mu.Lock()
	if !slices.Contains(told, a.Path) {
		t.Errorf("Options.Changed heard of %v, want %s", told, a.Path)
	}
	mu.Unlock()

	// Re-indexed as after a watcher event, the file reads back again.
	if _, err := l.Apply(t.Context(), []Change{{Path: a.Path}}); err != nil {
		t.Fatal(err)
	}
	a3, _ := l.Snapshot().File(a.Path)
	if got, err := a3.Doc.Content(t.Context()); err != nil || string(got) != "# A\n\nNothing now.\n" || a3.Refs.Len() != 0 {
		t.Errorf("after the re-index: %q, %v, %d references", got, err, a3.Refs.Len())
	}

}
