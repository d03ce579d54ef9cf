package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/context/indexcache"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
)

// TestMain points the index cache of every command these tests run, in
// this process and in the binaries they start, at a temporary directory,
// and starts building the binaries while the tests that need none run.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxls-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	os.Setenv(indexcache.EnvDir, dir)
	binDir = filepath.Join(dir, "bin")
	flag.Parse()
	ctx, cancel := context.WithCancel(context.Background())
	buildCtx = ctx
	var early sync.WaitGroup
	if !testing.Short() {
		early.Go(func() { builtBinaries() })
	}
	code := m.Run()
	// A build no test waited for ends with the run.
	cancel()
	early.Wait()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binDir holds the binaries the tests build, once for the whole package.
var binDir string

// buildCtx ends when the tests have run.
var buildCtx context.Context

// builtBinaries builds the ctxls binary and the stand-in agent of the
// chain tests, once.
var builtBinaries = sync.OnceValues(func() ([2]string, error) {
	bin := filepath.Join(binDir, "ctxls")
	if out, err := exec.CommandContext(buildCtx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return [2]string{}, fmt.Errorf("build ctxls: %v\n%s", err, out)
	}
	agent, err := chaintest.BuildAgent(binDir)
	return [2]string{bin, agent}, err
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
