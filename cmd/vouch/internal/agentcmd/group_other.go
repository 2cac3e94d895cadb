//go:build !unix

package agentcmd

import "os/exec"

// group kills the agent alone when the run is cancelled (process groups
// are a Unix feature).
func group(*exec.Cmd) {}
