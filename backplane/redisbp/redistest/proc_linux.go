package redistest

import "syscall"

// sysProcAttr puts the server in a process group of its own, and has
// Linux kill it should the test binary die before its cleanups run (a
// test timeout, a crash).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
