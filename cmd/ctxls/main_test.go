package main

import (
	"fmt"
	"os"
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
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
