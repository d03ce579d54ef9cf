//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libgen"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// readBytes is how much process pid has read so far (rchar in
// /proc/PID/io), 0 when that is not known.
func readBytes(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// specialTree adds to dir a named pipe called pipe.md, a markdown link out
// of the workspace and a loop of links, all in the python domain.
func specialTree(t *testing.T, dir string) {
	t.Helper()
	py := filepath.Join(dir, "context", "python")
	fsguardtest.Pipe(t, filepath.Join(py, "pipe.md"))
	fsguardtest.Links(t, py, map[string]string{
		"host.md":  fsguardtest.Outside(t, "host.md", "# Host secret\n"),
		"loop1.md": "loop2.md",
		"loop2.md": "loop1.md",
	})
}

// TestCheckSpecialFilesAndSignals runs the ctxls binary on workspaces
// holding a named pipe, an outward link and a loop of links: check must
// finish, skip each with a warning, and stop promptly on SIGINT or
// SIGTERM with status 130.
func TestCheckSpecialFilesAndSignals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildCtxls(t)

	t.Run("finishes and warns", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		testtree.Write(t, filepath.Join(dir, "commands", "c.md"), "# C\n\nUse python:host and python:good.\n")
		specialTree(t, dir)
		testtree.Write(t, filepath.Join(dir, "context", "python", "good.md"), "# Good\n")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, "check", "--format", "json", dir)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("check did not finish within 30s; stderr:\n%s", stderr.String())
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("check: %v, want exit status 1 (python:host is unresolved); stderr:\n%s", err, stderr.String())
		}
		for _, want := range []string{
			"context/python/pipe.md: not a regular file (named pipe); skipped",
			"context/python/host.md: symbolic link points outside the workspace; skipped",
			"context/python/loop1.md: broken or looping symbolic link",
		} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
			}
		}
		recs := decodeRecords(t, stdout.String())
		if len(recs) != 1 || recs[0].Code != library.CodeUnresolved || recs[0].File != "commands/c.md" || !strings.Contains(recs[0].Message, `"host"`) {
			t.Errorf("records = %+v, want python:host unresolved only", recs)
		}
	})

	// A library big enough that check is still running when the signal
	// comes, with the pipe that used to block it forever.
	dir := t.TempDir()
	if _, err := libgen.Generate(dir, libgen.Options{Topics: 1000, Domains: 10}); err != nil {
		t.Fatal(err)
	}
	specialTree(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr libtest.SyncBuffer
			cmd := exec.Command(bin, "check", dir)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Reading the library comes after main has installed its
			// handler: a signal before it would kill the process instead.
			// The kernel counts what the process read; its runtime reads a
			// few bytes before main.
			var err error
			exited := false
			deadline := time.After(30 * time.Second)
			for !exited && readBytes(cmd.Process.Pid) < 100<<10 {
				select {
				case err = <-done:
					exited = true
				case <-time.After(time.Millisecond):
				case <-deadline:
					cmd.Process.Kill()
					<-done
					t.Fatal("check read nothing in 30 s")
				}
			}
			if !exited {
				if err := cmd.Process.Signal(sig); err != nil {
					t.Logf("signal: %v (the check may have finished)", err)
				}
				select {
				case err = <-done:
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					<-done
					t.Fatalf("check did not stop within 30s of %v", sig)
				}
			}
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == 130:
				if !strings.Contains(stderr.String(), "ctxls: interrupted") {
					t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
				}
			case err == nil || errors.As(err, &ee) && ee.ExitCode() == 1:
				// Finished before the signal, on a fast machine: it did not
				// block on the pipe, which is the other half of the point.
				t.Logf("check finished before %v", sig)
			default:
				t.Errorf("check: %v, want exit status 130; stderr:\n%s", err, stderr.String())
			}
		})
	}
}
