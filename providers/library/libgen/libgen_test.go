package libgen_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libgen"
)

// TestGenerateIsValid checks that a generated library indexes cleanly:
// every reference it writes resolves and every topic is listed.
func TestGenerateIsValid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := libgen.Options{Topics: 300, Domains: 7, TopicBytes: 2000, Commands: 3, Seed: 1}
	st, err := libgen.Generate(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Topics != 300 || len(st.Domains) != 7 || st.Files != 300+7+3+3 {
		t.Errorf("stats = %+v", st)
	}
	if _, err := os.Stat(filepath.Join(dir, libgen.TopicPath(opts, 299))); err != nil {
		t.Errorf("TopicPath: %v", err)
	}
	cfg := config.Default()
	cfg.Tokenizer = "estimate"
	l, err := library.Load(context.Background(), dir, cfg, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.Snapshot().Topics()); n != 300+7+3 {
		t.Errorf("topics = %d", n)
	}
	refs := 0
	for _, f := range l.Snapshot().Files() {
		refs += f.Refs.Len()
	}
	if refs < 300*5 {
		t.Errorf("only %d references", refs)
	}
	for p, ds := range l.Snapshot().DiagnoseAll(context.Background()) {
		for _, d := range ds {
			if d.Code != library.CodeTokenDrift {
				t.Errorf("%s: %s %s", p, d.Code, d.Message)
			}
		}
	}
	// Same options, same library.
	dir2 := t.TempDir()
	if _, err := libgen.Generate(dir2, opts); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, libgen.TopicPath(opts, 42)))
	b, _ := os.ReadFile(filepath.Join(dir2, libgen.TopicPath(opts, 42)))
	if string(a) != string(b) {
		t.Error("generation is not deterministic")
	}
}
