//go:build !unix

package redistest

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the server; without Unix process groups, only it.
func killGroup(p *os.Process) { _ = p.Kill() }
