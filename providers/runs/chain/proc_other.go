//go:build !unix

package chain

import "os/exec"

// agentProcess is an agent program ready to start.
type agentProcess struct {
	cmd *exec.Cmd
}

// newAgentProcess returns the command that runs path with args.
func newAgentProcess(path string, args []string) (*agentProcess, error) {
	return &agentProcess{cmd: exec.Command(path, args...)}, nil
}

func (p *agentProcess) started() {}

func (p *agentProcess) done() {}

// killGroup kills the agent process.
func (p *agentProcess) killGroup() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
}
