package chain

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestCollectBoundsPathReferences checks that a command of more distinct
// path references than maxCollectPaths has the first ones resolved (a
// topic linked again and again among them loads once), the rest skipped
// with one warning that counts them.
func TestCollectBoundsPathReferences(t *testing.T) {
	t.Parallel()
	const extra = 10
	var b strings.Builder
	b.WriteString("# Links\n\n")
	for i := range maxCollectPaths - 1 {
		fmt.Fprintf(&b, "[t](../context/python/async_patterns.md) [m](../context/python/m%d.md)\n", i)
	}
	for range extra {
		b.WriteString("[late](../context/python/django_patterns.md)\n")
	}
	dir := libtest.CopyExample(t)
	testtree.WriteFiles(t, dir, map[string]string{"commands/links.md": b.String()})
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmd, ok := lib.Snapshot().Command("links")
	if !ok {
		t.Fatal("command links not found")
	}
	reqs, warnings := collect(lib.Snapshot(), cmd)
	if len(reqs) != 1 || reqs[0].ID != "python/async_patterns" {
		t.Errorf("requests %+v, want python/async_patterns alone", reqs)
	}
	want := fmt.Sprintf("%d path references past the first %d distinct paths skipped", extra, maxCollectPaths)
	if len(warnings) == 0 || warnings[len(warnings)-1] != want {
		t.Errorf("last warning of %d: %q, want %q", len(warnings), warnings[len(warnings)-1:], want)
	}
	if len(warnings) > maxCollectWarnings+2 {
		t.Errorf("%d warnings, want at most %d", len(warnings), maxCollectWarnings+2)
	}
}
