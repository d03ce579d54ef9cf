package library

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// uncached diagnoses every file of s from scratch, as DiagnoseAll reports
// them.
func uncached(s *Snapshot) map[string][]diag.Diagnostic {
	m := map[string][]diag.Diagnostic{}
	for _, f := range s.sortedFiles() {
		if ds := s.diagnose(f); len(ds) > 0 {
			m[f.Path] = ds
		}
	}
	return m
}

// TestDiagnosticsCarriedOver applies a series of changes and checks that
// each snapshot's diagnostics, those it took over from the one before for
// the files the change did not affect included, equal a diagnosis of the
// whole library from scratch, and that only the affected files were
// diagnosed again.
func TestDiagnosticsCarriedOver(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	l := loadTree(t, map[string]string{
		"context/web/api.md":    "# API\n\n## Routing\n\nRoutes.\n",
		"context/web/cache.md":  "# Cache\n\nKeep it warm.\n",
		"context/ops/deploy.md": "# Deploy\n\nSee web:api#Routing.\n",
		"commands/ship.md":      "# Ship\n\nLoad ops:deploy and web:api.\n",
	})
	if got, want := l.Snapshot().DiagnoseAll(ctx), uncached(l.Snapshot()); !reflect.DeepEqual(got, want) {
		t.Fatalf("first check: %v, want %v", got, want)
	}
	steps := []struct {
		name    string
		changes []Change
	}{
		{"a topic goes", []Change{{Path: "context/web/api.md", Removed: true}}},
		{"a command breaks", []Change{{Path: "commands/ship.md", Content: []byte("# Ship\n\nLoad ops:nope.\n")}}},
		{"the topic comes back without the section", []Change{{Path: "context/web/api.md", Content: []byte("# API\n\nNo sections.\n")}}},
		{"all is fixed", []Change{
			{Path: "context/web/api.md", Content: []byte("# API\n\n## Routing\n\nRoutes.\n")},
			{Path: "commands/ship.md", Content: []byte("# Ship\n\nLoad ops:deploy.\n")},
		}},
	}
	for _, st := range steps {
		prev := l.Snapshot()
		before := prev.DiagnoseAll(ctx)
		res, err := l.Apply(ctx, st.changes)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		next := l.Snapshot()
		for p := range next.files.All() {
			carried := prev.diags.get(p) != nil && prev.diags.get(p) == next.diags.get(p)
			if affected := slices.Contains(res.Affected, p); carried == affected {
				t.Errorf("%s: %s affected %v, diagnostics carried over %v", st.name, filepath.Base(p), affected, carried)
			}
		}
		got, want := next.DiagnoseAll(ctx), uncached(next)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: carried over %v, want %v", st.name, got, want)
		}
		if reflect.DeepEqual(before, want) {
			t.Errorf("%s: the change changed no diagnostic, so the step tests nothing", st.name)
		}
		if !reflect.DeepEqual(prev.DiagnoseAll(ctx), before) {
			t.Errorf("%s: the snapshot before the change diagnoses differently after it", st.name)
		}
	}
}

// TestSnapshotReadsAgree reads snapshots from several goroutines while a
// topic comes and goes and checks that the reads of one snapshot agree
// with each other: its topics, its files, and its diagnostics, which for
// a file that names the topic say whether the topic exists.
func TestSnapshotReadsAgree(t *testing.T) {
	t.Parallel()
	const x = "context/python/x.md"
	l := loadTree(t, map[string]string{"context/python/a.md": "---\ndomain: python\n---\n# A\n\nSee python:x.\n", x: "# X\n"})
	a := filepath.Join(l.Snapshot().Dir(), "context/python/a.md")
	check := func(ctx context.Context, s *Snapshot) error {
		v := s.Version()
		topics := s.Topics()
		n := 0
		for _, f := range s.Files() {
			if f.Topic != nil {
				n++
			}
		}
		if n != len(topics) {
			return fmt.Errorf("%d topics, %d topic files", len(topics), n)
		}
		for _, tp := range topics {
			if f, ok := s.File(tp.Path); !ok || f.Topic != tp {
				return fmt.Errorf("topic %s is not the topic of its file", tp.ID)
			}
		}
		all := s.DiagnoseAll(ctx)
		if ctx.Err() != nil {
			return nil // cut short at the end of the test
		}
		ds := s.Diagnose(a)
		if !reflect.DeepEqual(ds, all[a]) {
			return fmt.Errorf("Diagnose(a) = %v, DiagnoseAll has %v", ds, all[a])
		}
		_, hasX := s.Topic("python/x")
		broken := slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return d.Code == CodeUnresolved })
		if hasX == broken {
			return fmt.Errorf("python/x exists: %v, but a's reference to it is unresolved: %v (version %d)", hasX, broken, v)
		}
		if s.Version() != v {
			return fmt.Errorf("version went from %d to %d", v, s.Version())
		}
		return nil
	}
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var reads atomic.Int64
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := check(ctx, l.Snapshot()); err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		})
	}
	for i := range 200 {
		c := Change{Path: x, Removed: true}
		if i%2 == 1 {
			c = Change{Path: x, Content: fmt.Appendf(nil, "# X%d\n", i)}
		}
		if _, err := l.Apply(t.Context(), []Change{c}); err != nil {
			t.Fatal(err)
		}
	}
	for reads.Load() == 0 && len(errs) == 0 {
		if err := check(t.Context(), l.Snapshot()); err != nil {
			t.Fatal(err)
		}
		reads.Add(1)
	}
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// WithoutDiagnostics returns a copy of l that has worked out no
// diagnostics yet, for benchmarks of diagnosing from scratch.
func (l *Snapshot) WithoutDiagnostics() *Snapshot {
	s := *l
	s.diags = newDiags(l.files)
	return &s
}
