// Package chaintest sets up chain runs for tests of the packages that drive
// them (the command line and the language server): the stand-in agent
// program of providers/runs/chain/testdata/agent, built once per test
// binary, and a workspace whose executor runs it.
package chaintest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/runs/trust"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// BuildAgent builds the stand-in agent into dir and returns its path.
func BuildAgent(dir string) (string, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("build agent: the source of chaintest is unknown")
	}
	return Build(filepath.Join(filepath.Dir(self), "..", "testdata", "agent"), dir, "agent")
}

// Build builds the main package in the folder pkg and puts the program
// into dir under name, returning its path. The program comes from the Go
// build cache when nothing it is built from changed, so that the test
// binaries that each need it do not each link it: go run keeps the
// programs it builds, and -exec echo prints the path instead of running
// it.
func Build(pkg, dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	out := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	// The first build prints a path in go run's own temporary folder,
	// gone when it exits; the program is in the cache by then, and the
	// second run prints where.
	for range 2 {
		cmd := exec.Command("go", "run", "-exec", "echo", ".")
		cmd.Dir = pkg
		var stderr strings.Builder
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			if stderr.Len() > 0 {
				return "", fmt.Errorf("build %s: %v\n%s", pkg, err, stderr.String())
			}
			break
		}
		built := strings.TrimSpace(string(b))
		if _, err := os.Stat(built); err != nil {
			continue
		}
		// A copy, as the cache may be trimmed while the tests run.
		if err := copyFile(built, out); err != nil {
			return "", fmt.Errorf("build %s: %w", pkg, err)
		}
		return out, nil
	}
	// Without a build cache (or an echo), go build does it.
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = pkg
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", pkg, err, b)
	}
	return out, nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// UseExecutor makes argv, with the given timeout, the exec executor of
// the workspace at dir, in place of the preview executor its .ctxls.yaml
// names, and agrees to run it there as the user would with ctxls trust
// grant, in the store of trust.Default: the test's TestMain points
// CTXLS_CONFIG_DIR at a directory of its own.
func UseExecutor(t testing.TB, dir string, argv []string, timeout string) {
	t.Helper()
	command, _ := json.Marshal(argv)
	EditConfig(t, dir, "executor:\n  kind: preview\n",
		fmt.Sprintf("executor:\n  kind: exec\n  command: %s\n  timeout: %s\n", command, timeout))
	Agree(t, dir, argv)
}

// Agree records, in the store of trust.Default, that the user agrees to
// run argv in the workspace at dir. It fails the test unless
// CTXLS_CONFIG_DIR is set, so that no test writes the user's own store.
func Agree(t testing.TB, dir string, argv []string) {
	t.Helper()
	if os.Getenv(trust.EnvConfigDir) == "" {
		t.Fatalf("%s is not set: the test would agree in the user's own configuration", trust.EnvConfigDir)
	}
	st, err := trust.Default()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Grant(dir, argv, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// EditConfig rewrites the .ctxls.yaml of the workspace at dir, replacing
// the first occurrence of each old text (even arguments) by the new text
// after it, and returns the file's path. It fails the test when an old
// text is not there.
func EditConfig(t testing.TB, dir string, oldNew ...string) string {
	t.Helper()
	path := filepath.Join(dir, ".ctxls.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(text, oldNew[i]) {
			t.Fatalf("%s does not hold %q:\n%s", path, oldNew[i], text)
		}
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Runs returns the runs of the agent logged to log, as command#attempt, in
// the order they started; none when the log does not exist.
func Runs(t testing.TB, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			t.Fatalf("agent log line %q: want command, input and attempt", l)
		}
		out = append(out, f[0]+"#"+f[2])
	}
	return out
}

// WaitFile returns the text of the file at path once it has any, as when
// the stand-in agent has written its pid file.
func WaitFile(t testing.TB, path string) string {
	t.Helper()
	var text string
	watchertest.WaitFor(t, path+" to be written", func() bool {
		b, err := os.ReadFile(path)
		text = string(b)
		return err == nil && text != ""
	})
	return text
}
