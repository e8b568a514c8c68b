package stdio

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// unreadOf returns a func that tells how many bytes written to out its
// reader has not read yet, when out is a pipe or a Unix socket (what a
// client that starts the server gives it: Node's child processes get
// socket pairs, most others pipes), else nil.
func unreadOf(out io.Writer) func() (int, bool) {
	f, ok := out.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var req uintptr
	_ = rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFIFO:
			req = syscall.TIOCINQ // a pipe's bytes not read yet, from either end
		case syscall.S_IFSOCK:
			// On a Unix stream socket, what was sent and not yet read by
			// the peer (on TCP it would count unacknowledged bytes).
			if d, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_DOMAIN); err == nil && d == syscall.AF_UNIX {
				req = syscall.TIOCOUTQ
			}
		}
	})
	if req == 0 {
		return nil
	}
	return func() (int, bool) {
		var n int32
		var errno syscall.Errno
		for {
			if rc.Control(func(fd uintptr) {
				_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(&n)))
			}) != nil {
				return 0, false
			}
			if errno != syscall.EINTR { // a signal (the runtime's preemption among them) interrupted it
				break
			}
		}
		if errno != 0 {
			return 0, false
		}
		return int(n), true
	}
}
