//go:build linux

package sse

import (
	"sync"
	"syscall"
)

// On Linux one goroutine notices the clients of every hijacked stream
// hanging up, through an epoll set of its own, rather than a goroutine
// blocked in a read per connection: a goroutine's stack and descriptor
// are most of what an idle stream would cost. Go's own poller keeps the
// sockets in its set; a socket can sit in several.
type hangups struct {
	mu      sync.Mutex
	epfd    int    // -1 until first used
	wake    [2]int // a pipe; a byte on it makes the loop look at conns again
	conns   map[uint32]*Writer
	next    uint32 // the last token given; 0 stands for the wake pipe
	running bool
	buf     [512]byte // for the loop's reads, which discard what a client sends
}

var watcher = hangups{epfd: -1}

// watchHangup has the watcher notice s's client hanging up; connections
// it cannot watch (not a socket, or epoll failing) get a goroutine.
func watchHangup(s *Writer) {
	if !watcher.add(s) {
		go s.watch()
	}
}

// unwatchHangup stops watching s's connection before it is closed.
func unwatchHangup(s *Writer) {
	if s.raw != nil {
		watcher.remove(s)
	}
}

func (h *hangups) add(s *Writer) bool {
	sc, ok := s.conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.epfd < 0 && h.open() != nil {
		return false
	}
	for h.next++; h.next == 0 || h.conns[h.next] != nil; h.next++ {
	}
	token := h.next
	var addErr error
	// Control keeps the descriptor from being closed (and its number
	// reused) while the callback runs.
	err = raw.Control(func(fd uintptr) {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(token)}
		addErr = syscall.EpollCtl(h.epfd, syscall.EPOLL_CTL_ADD, int(fd), &ev)
	})
	if err != nil || addErr != nil {
		return false
	}
	s.raw, s.token = raw, token
	h.conns[token] = s
	if !h.running {
		h.running = true
		go h.loop()
	}
	return true
}

// open creates the epoll set and the wake pipe, once; they live as long
// as the process.
func (h *hangups) open() error {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(epfd)
		return err
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, p[0], &ev); err != nil {
		syscall.Close(epfd)
		syscall.Close(p[0])
		syscall.Close(p[1])
		return err
	}
	h.epfd, h.wake, h.conns = epfd, p, map[uint32]*Writer{}
	return nil
}

// remove takes s out of the set. The last one out wakes the loop, which
// then ends: no goroutine outlives the streams.
func (h *hangups) remove(s *Writer) {
	_ = s.raw.Control(func(fd uintptr) {
		_ = syscall.EpollCtl(h.epfd, syscall.EPOLL_CTL_DEL, int(fd), nil)
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conns[s.token] != s {
		return
	}
	delete(h.conns, s.token)
	if len(h.conns) == 0 && h.running {
		_, _ = syscall.Write(h.wake[1], []byte{0})
	}
}

func (h *hangups) loop() {
	events := make([]syscall.EpollEvent, 64)
	for {
		n, err := syscall.EpollWait(h.epfd, events, -1)
		if err != nil && err != syscall.EINTR {
			h.abandon()
			return
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd == 0 {
				for {
					if n, _ := syscall.Read(h.wake[0], h.buf[:]); n <= 0 {
						break
					}
				}
				continue
			}
			h.mu.Lock()
			s := h.conns[uint32(ev.Fd)]
			h.mu.Unlock()
			if s != nil && h.hungUp(s) {
				h.remove(s)
				s.finish()
			}
		}
		h.mu.Lock()
		if len(h.conns) == 0 {
			h.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
	}
}

// hungUp reads what s's client sent, discarding it, and reports whether
// the client is gone: the read met the end of the stream or an error.
func (h *hangups) hungUp(s *Writer) bool {
	gone := true
	_ = s.raw.Control(func(fd uintptr) {
		for {
			n, err := syscall.Read(int(fd), h.buf[:])
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				gone = false
			case err == nil && n > 0:
				continue
			}
			return
		}
	})
	return gone
}

// abandon hands every watched connection to a goroutine of its own, if
// epoll_wait ever fails.
func (h *hangups) abandon() {
	h.mu.Lock()
	conns := h.conns
	h.conns, h.running = map[uint32]*Writer{}, false
	h.mu.Unlock()
	for _, s := range conns {
		_ = s.raw.Control(func(fd uintptr) {
			_ = syscall.EpollCtl(h.epfd, syscall.EPOLL_CTL_DEL, int(fd), nil)
		})
		go s.watch()
	}
}
