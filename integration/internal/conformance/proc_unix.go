//go:build unix

package conformance

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd the leader of a new process group and, on
// cancellation, kills the group: npx runs the suite in a child process that
// killing npx alone would leave running.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// A negative pid signals every process in the group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
