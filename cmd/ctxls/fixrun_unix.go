//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// shadowPrefix names the temporary folder of a copy of the workspace
// after the process, so that a later run can tell an abandoned one.
func shadowPrefix() string { return "ctxls-fix-" + strconv.Itoa(os.Getpid()) + "-" }

// cleanStaleShadows removes the copies of workspaces that runs killed
// before they finished left in the temporary folder.
func cleanStaleShadows() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "ctxls-fix-*-*"))
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.Split(strings.TrimPrefix(filepath.Base(m), "ctxls-fix-"), "-")[0])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(m)
		}
	}
}
