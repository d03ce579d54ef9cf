package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/ops/internal/tsgen"
)

// The extension's generated types are those of the Go types now: run
// go generate ./providers/ops after changing a type of package ops.
func TestGeneratedFileIsCurrent(t *testing.T) {
	t.Parallel()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := tsgen.Generate(config(root))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "..", "..", "vscode-extension", "src", "protocol.gen.ts")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate ./providers/ops", path)
	}
}
