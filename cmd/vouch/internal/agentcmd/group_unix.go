//go:build unix

package agentcmd

import (
	"os/exec"
	"syscall"
)

// group runs the agent in a process group of its own, and kills the whole
// group when the run is cancelled or times out: what the agent started
// dies with it.
func group(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
