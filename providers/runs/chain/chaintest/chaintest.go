// Package chaintest sets up chain runs for tests of the packages that drive
// them (the command line and the language server): the stand-in agent
// program of providers/runs/chain/testdata/agent, built once per test
// binary, and a workspace whose executor runs it.
package chaintest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BuildAgent builds the stand-in agent into dir and returns its path.
func BuildAgent(dir string) (string, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("build agent: the source of chaintest is unknown")
	}
	out := filepath.Join(dir, "agent")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", out, "./testdata/agent")
	cmd.Dir = filepath.Join(filepath.Dir(self), "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build agent: %v\n%s", err, b)
	}
	return out, nil
}

// UseExecutor makes argv, with the given timeout, the exec executor of
// the workspace at dir, in place of the preview executor its .ctxls.yaml
// names.
func UseExecutor(t testing.TB, dir string, argv []string, timeout string) {
	t.Helper()
	path := filepath.Join(dir, ".ctxls.yaml")
	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const preview = "executor:\n  kind: preview\n"
	if !strings.Contains(string(cfg), preview) {
		t.Fatalf("%s names no preview executor to replace", path)
	}
	command, _ := json.Marshal(argv)
	exe := fmt.Sprintf("executor:\n  kind: exec\n  command: %s\n  timeout: %s\n", command, timeout)
	if err := os.WriteFile(path, []byte(strings.Replace(string(cfg), preview, exe, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
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
