//go:build unix

package chain

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// superviseScript runs the agent ("$@") under a shell that keeps a watch on
// the server: file descriptor 3 is the read end of a pipe whose only write
// end the server holds. The pipe reaches end of file when the server closes
// it after the step or when the server dies, however it dies (even by
// SIGKILL); the watcher then kills the whole process group, which holds the
// shell, the agent and whatever the agent spawned and left in its group. The
// agent gets the prompt on its standard input (through descriptor 4, as a
// background job's standard input is /dev/null) and neither descriptor; the
// shell exits with the agent's status.
const superviseScript = `(while read -r _ <&3; do :; done; kill -KILL 0) </dev/null >/dev/null 2>&1 &
exec 4<&0
"$@" <&4 4<&- 3<&- &
wait $!`

// shell is the shell that supervises agents.
const shell = "/bin/sh"

// agentProcess is an agent program ready to start.
type agentProcess struct {
	cmd *exec.Cmd
	// watch is the write end of the supervisor's pipe, closed once the
	// agent is done; read its read end, closed once the agent started.
	watch, read *os.File
}

// newAgentProcess returns the command that runs path with args in a process
// group of its own, under a supervisor that kills the group when the step
// is over or the server dies: an agent must not outlive the step it runs,
// nor leave its children behind.
func newAgentProcess(path string, args []string) (*agentProcess, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("supervisor pipe: %w", err)
	}
	cmd := exec.Command(shell, append([]string{"-c", superviseScript, "ctxls-agent", path}, args...)...)
	cmd.ExtraFiles = []*os.File{r} // descriptor 3
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &agentProcess{cmd: cmd, watch: w, read: r}, nil
}

// started is called once the agent started (or failed to).
func (p *agentProcess) started() { p.read.Close() }

// done is called once the agent exited: the supervisor kills what is left
// of its process group.
func (p *agentProcess) done() { p.watch.Close() }

// killGroup kills the agent's whole process group.
func (p *agentProcess) killGroup() {
	if p.cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		p.cmd.Process.Kill()
	}
}
