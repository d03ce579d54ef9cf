package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/runs/chain/chaintest"
	"github.com/ctxls/ctxls/providers/runs/trust"
)

// asCtxls, in the environment of this test binary, makes it run as the
// ctxls command: the tests start it as the binary, and build none.
const asCtxls = "CTXLS_TEST_RUN_AS_CTXLS"

// TestMain runs the binary as ctxls when asked to; otherwise it points the
// index cache of every command these tests run, in this process and in
// the binaries they start, at a temporary directory.
func TestMain(m *testing.M) {
	if os.Getenv(asCtxls) != "" {
		main()
	}
	dir, err := os.MkdirTemp("", "ctxls-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	os.Setenv(indexcache.EnvDir, dir)
	// Agreements to run executors, made by the tests and read by the
	// binaries they start, are kept here, never in the user's own.
	os.Setenv(trust.EnvConfigDir, filepath.Join(dir, "config"))
	os.Setenv(asCtxls, "1")
	binDir = filepath.Join(dir, "bin")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binDir holds the stand-in agent of the chain tests.
var binDir string

// builtAgent builds the stand-in agent once for the package.
var builtAgent = sync.OnceValues(func() (string, error) {
	return chaintest.BuildAgent(binDir)
})

// builtCtxls is the ctxls binary: this test binary, which runs as ctxls in
// the processes the tests start, unless it was built with the race
// detector, which would make each of them many times slower; then a
// build of ctxls without it, once for the package.
var builtCtxls = sync.OnceValues(func() (string, error) {
	if !raceBuild() {
		return os.Executable()
	}
	return chaintest.Build(".", binDir, "ctxls")
})

// raceBuild reports whether this binary was built with the race detector.
func raceBuild() bool {
	info, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(info.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}

// buildCtxls returns the path of the ctxls binary.
func buildCtxls(t *testing.T) string {
	t.Helper()
	bin, err := builtCtxls()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
