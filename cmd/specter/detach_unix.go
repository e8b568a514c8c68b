//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a process group of its own, out of reach of the
// terminal's Ctrl-C.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
