//go:build !unix

package chain

import "os/exec"

// setProcessGroup has nothing to set on this system.
func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the agent process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
