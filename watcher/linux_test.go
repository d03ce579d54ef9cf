//go:build linux

package watcher

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
)

func TestUnreadableDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		// Permissions do not restrict root: run this test as nobody.
		runAsNobody(t)
		return
	}
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	testtree.Write(t, filepath.Join(locked, "a.md"), "a")
	testtree.Write(t, filepath.Join(root, "b.md"), "b")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	e := start(t, Options{Roots: []string{root}})
	if got := e.w.Files(); !slices.Equal(got, []string{filepath.Join(root, "b.md")}) {
		t.Fatalf("Files() = %q", got)
	}
	if e.logs.count(slog.LevelWarn, "unreadable") != 1 {
		t.Errorf("no warning:\n%s", e.logs)
	}
	e.expect(t, func() {
		if err := os.Chmod(locked, 0o755); err != nil {
			t.Fatal(err)
		}
	}, createdDir(locked), created(filepath.Join(locked, "a.md")))
	e.expect(t, func() {
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
	}, removedDir(locked), removed(filepath.Join(locked, "a.md")))
}

// TestKernelWatchLimit hits the kernel's own watch limit: in a user
// namespace of its own (where the limit is private) the test lowers
// max_inotify_watches to 3, so that Add fails with ENOSPC.
func TestKernelWatchLimit(t *testing.T) {
	t.Parallel()
	if os.Getenv("WATCHER_TEST_IN_USERNS") == "" {
		runInUserNamespace(t)
		return
	}
	if err := os.WriteFile("/proc/sys/user/max_inotify_watches", []byte("3"), 0); err != nil {
		t.Fatalf("lower the watch limit: %v", err)
	}
	root, e, limits := startAtLimit(t, Options{PollInterval: 30 * time.Millisecond}, 3)
	exerciseFallback(t, e, root)
	requireLimitWarned(t, e, limits, "kernel refused to watch more than 3 directories (fs.inotify.max_user_watches)",
		"sudo sysctl fs.inotify.max_user_watches=")
}

// runInUserNamespace re-runs the current test in a new user namespace
// (mapped to the current user) and fails if it does not pass there.
func runInUserNamespace(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "WATCHER_TEST_IN_USERNS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("user namespaces unavailable: %v", err)
	}
	checkChild(t, out, err)
}

func checkChild(t *testing.T, out []byte, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the test did not pass in the child:\n%s", out)
	}
}

// runAsNobody re-runs the current test in a copy of the test binary under
// an unprivileged user id, and fails if it does not pass there.
func runAsNobody(t *testing.T) {
	if os.Getenv("WATCHER_TEST_AS_NOBODY") != "" {
		t.Fatal("still running as root")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "watcher.test")
	copyFile(t, exe, bin)
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "WATCHER_TEST_AS_NOBODY=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot run as an unprivileged user: %v", err)
	}
	checkChild(t, out, err)
}

func copyFile(t *testing.T, from, to string) {
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
