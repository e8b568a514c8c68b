//go:build unix

package redistest

import (
	"os"
	"syscall"
)

// killGroup kills the process group that p leads, so that nothing the
// server started outlives it.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
