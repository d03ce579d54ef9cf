//go:build unix

package chaintest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// WaitFile waits until the file at path holds something, such as the
// process ids the stand-in agent writes with -pidfile once it runs, and
// returns its text. It fails the test after a minute.
func WaitFile(t testing.TB, path string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing written to %s within a minute", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitGone waits until none of the processes whose ids pids lists (as
// WaitFile returns them) runs any more. It fails the test after 30 s.
func WaitGone(t testing.TB, pids string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, f := range strings.Fields(pids) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("process id %q: %v", f, err)
		}
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is still alive after 30 s", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive reports whether a process runs. A zombie has ended: only whoever
// inherited it has yet to reap it, and how soon it does is no concern of
// the program under test.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	f, ok := ProcStat(pid)
	return !ok || f[0] != "Z"
}

// ProcStat returns the fields of /proc/PID/stat after the command name,
// the state first (Linux only).
func ProcStat(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil, false
	}
	f := strings.Fields(s[i+2:])
	return f, len(f) > 0
}
