package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/context/indexcache"
)

// TestMain points the index cache of every command these tests run, in
// this process and in the binaries they start, at a temporary directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxls-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	os.Setenv(indexcache.EnvDir, dir)
	binDir = filepath.Join(dir, "bin")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binDir holds the binaries the tests build, once for the whole package.
var binDir string

// builtBinaries builds the ctxls binary and the stand-in agent of the
// chain tests, once.
var builtBinaries = sync.OnceValues(func() ([2]string, error) {
	bins := [2]string{filepath.Join(binDir, "ctxls"), filepath.Join(binDir, "agent")}
	for i, b := range []struct{ pkg, in string }{
		{".", "."},
		{"./testdata/agent", filepath.Join("..", "..", "providers", "runs", "chain")},
	} {
		cmd := exec.Command("go", "build", "-o", bins[i], b.pkg)
		cmd.Dir = b.in
		if out, err := cmd.CombinedOutput(); err != nil {
			return bins, fmt.Errorf("build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return bins, nil
})

// buildCtxls returns the ctxls binary, built once for the package.
func buildCtxls(t *testing.T) string {
	t.Helper()
	bins, err := builtBinaries()
	if err != nil {
		t.Fatal(err)
	}
	return bins[0]
}
