package ops

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/library/libtest"
)

// TestDiagnosticsFollowChanges checks that the cached diagnostics, after
// the files each change affected are invalidated, equal a diagnosis of the
// whole library from scratch.
func TestDiagnosticsFollowChanges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	lib, dir := libtest.Load(t, map[string]string{
		"context/web/api.md":    "# API\n\n## Routing\n\nRoutes.\n",
		"context/web/cache.md":  "# Cache\n\nKeep it warm.\n",
		"context/ops/deploy.md": "# Deploy\n\nSee web:api#Routing.\n",
		"commands/ship.md":      "# Ship\n\nLoad ops:deploy and web:api.\n",
	})
	d := NewDiagnostics()
	fresh := func() map[string][]library.Diagnostic { return lib.DiagnoseAll(ctx) }
	if got, want := d.of(ctx, lib), fresh(); !reflect.DeepEqual(got, want) {
		t.Fatalf("first check: %v, want %v", got, want)
	}
	steps := []struct {
		name    string
		changes []library.Change
	}{
		{"a topic goes", []library.Change{{Path: "context/web/api.md", Removed: true}}},
		{"a command breaks", []library.Change{{Path: "commands/ship.md", Content: []byte("# Ship\n\nLoad ops:nope.\n")}}},
		{"the topic comes back without the section", []library.Change{{Path: "context/web/api.md", Content: []byte("# API\n\nNo sections.\n")}}},
		{"all is fixed", []library.Change{
			{Path: "context/web/api.md", Content: []byte("# API\n\n## Routing\n\nRoutes.\n")},
			{Path: "commands/ship.md", Content: []byte("# Ship\n\nLoad ops:deploy.\n")},
		}},
	}
	for i, st := range steps {
		if i == 0 {
			if err := os.Remove(filepath.Join(dir, "context", "web", "api.md")); err != nil {
				t.Fatal(err)
			}
		}
		before := maps.Clone(d.of(ctx, lib))
		res, err := lib.Apply(ctx, st.changes)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		d.Invalidate(res.Affected, res.Reloaded)
		got, want := d.of(ctx, lib), fresh()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: cached %v, want %v", st.name, got, want)
		}
		if reflect.DeepEqual(before, want) {
			t.Errorf("%s: the change changed no diagnostic, so the step tests nothing", st.name)
		}
	}
}
