package library

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/context/config"
)

// A preview diagnoses a document as the full index does, read from the
// files or from the index cache.
func TestPreviewDiagnose(t *testing.T) {
	t.Parallel()
	tree := merged(cacheTree, map[string]string{
		"context/python/dup.md":     "# Dup\n\nsee python:fastapi#Errors and python:fastapi#Nope\n",
		"context/cross_domain.md":   "---\nid: engineering/cross_domain\n---\n# Cross\n\n## Matrix\n\nx\n",
		"commands/review.md":        "# Review\n\nLoad engineering/cross_domain and python:dup and python:fastapi#Routing and `../context/python/missing.md`.\n",
		"context/python/skipped.md": "binary\x00data",
	})
	dir := writeTree(t, tree)
	full := load(t, dir, nil)
	cacheDir := t.TempDir()
	for _, run := range []string{"no cache", "cold cache", "warm cache"} {
		opts := Options{}
		if run != "no cache" {
			opts = Options{CacheDir: cacheDir, Version: "test"}
		}
		if run == "warm cache" {
			loadCached(t, dir, cacheDir)
		}
		p, err := NewPreview(context.Background(), dir, config.Default(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := 0; run != "warm cache" && p.FromCache != want {
			t.Errorf("%s: %d files from the cache, want %d", run, p.FromCache, want)
		}
		if run == "warm cache" && p.FromCache != len(full.Snapshot().Files())-1 {
			t.Errorf("%s: %d files from the cache, want %d (all but the binary one)", run, p.FromCache, len(full.Snapshot().Files())-1)
		}
		for rel := range tree {
			path := filepath.Join(dir, filepath.FromSlash(rel))
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, ds, err := p.Diagnose(path, content)
			if err != nil {
				t.Fatal(err)
			}
			var got []diag
			for _, d := range ds {
				text := ""
				if f.Doc != nil {
					text = string(docText(f.Doc)[d.Span.Start:d.Span.End])
				}
				got = append(got, diag{d.Code, d.Severity, text})
			}
			if want := diagsOf(t, full, rel); !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s:\n got %v\nwant %v", run, rel, got, want)
			}
		}
	}
	// The preview diagnoses an edited text, not the file.
	p, err := NewPreview(context.Background(), dir, config.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, ds, err := p.Diagnose(filepath.Join(dir, "commands", "implement.md"), []byte("# Implement\n\npython:fastapi#Nowhere\n"))
	if err != nil {
		t.Fatal(err)
	}
	if codes := diagCodes(ds); !slices.Equal(codes, []string{codeUnknownSection}) {
		t.Errorf("edited text: codes %v, want [%s]", codes, codeUnknownSection)
	}
}

func diagCodes(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}
