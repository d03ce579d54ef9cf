//go:build unix

package chaintest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxls/ctxls/watcher/watchertest"
)

// WaitGone waits until every process whose id pids lists (as the agent's
// pid file does, separated by spaces) has ended.
func WaitGone(t testing.TB, pids string) {
	t.Helper()
	for _, f := range strings.Fields(pids) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid %q: %v", f, err)
		}
		watchertest.WaitFor(t, fmt.Sprintf("process %d to end", pid), func() bool { return !alive(pid) })
	}
}

// alive reports whether a process runs. A zombie has ended: only whoever
// inherited it has yet to reap it, and how soon it does is no concern of
// the test's.
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
	// The command name, in parentheses, may hold spaces and parentheses.
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil, false
	}
	f := strings.Fields(s[i+2:])
	return f, len(f) > 0
}
