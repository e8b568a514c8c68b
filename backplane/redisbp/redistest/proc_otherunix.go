//go:build unix && !linux

package redistest

import "syscall"

// sysProcAttr puts the server in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
