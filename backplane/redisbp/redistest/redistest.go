// Package redistest runs a real redis-server for tests.
//
// The server is found on PATH, or at $REDIS_SERVER. It keeps nothing on
// disk unless the test asks for an append-only file (StartPersistent,
// StartPersistentCluster), and listens on a free loopback port; the test
// that started it stops it, killing its whole process group, even when
// the test fails. A test may kill it and restart it, as an outage would.
package redistest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds how long Start and Restart wait for the server to
// answer PING.
const startTimeout = 10 * time.Second

// Server is a real redis-server on a loopback port, for tests.
type Server struct {
	URL  string // redis://127.0.0.1:<port>/0
	Addr string // 127.0.0.1:<port>

	bin   string
	port  int
	dir   string
	extra []string // flags after the defaults, as a Cluster's nodes take

	mu   sync.Mutex
	proc *process // nil when stopped
}

// process is one run of redis-server.
type process struct {
	cmd    *exec.Cmd
	out    *syncBuffer // its output, for the failure message
	exited chan struct{}
}

// Start runs redis-server with no persistence, bound to 127.0.0.1 on a
// free port, waits until it answers PING, and stops it in t.Cleanup. It
// fails the test when redis-server is missing.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, nil)
}

// program returns the path of a Redis program: $env, else name on PATH.
// It fails the test, naming the apt package that has it, when neither.
func program(t testing.TB, env, name, pkg string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("redistest: %s is not on PATH (install the %s apt package, or set %s): %v", name, pkg, env, err)
	}
	return p
}

// start is Start with extra redis-server flags. Under go test -short it
// skips the test: real servers are for the long run.
func start(t testing.TB, extra []string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("redistest: the tests on a real redis-server are skipped with -short")
	}
	s := &Server{bin: program(t, "REDIS_SERVER", "redis-server", "redis-server"), dir: t.TempDir(), extra: extra}
	t.Cleanup(s.Stop)
	// Another process may take the free port between our probe and the
	// server's bind, so try a few.
	var err error
	for range 3 {
		if s.port, err = freePort(); err != nil {
			t.Fatalf("redistest: %v", err)
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	s.URL = "redis://" + s.Addr + "/0"
	return s
}

// StartPersistent is Start with an append-only file synced on every
// write, so that Restart brings back what the server held when it was
// killed.
func StartPersistent(t testing.TB) *Server {
	t.Helper()
	return start(t, persistent)
}

// persistent are the flags of a server that keeps an append-only file,
// synced on every write.
var persistent = []string{"--appendonly", "yes", "--appendfsync", "always"}

// Stop kills the server, as a crash would. Stopping a stopped server
// does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		s.proc.kill()
		s.proc = nil
	}
}

// Restart starts the server again on the same port, empty (a Cluster's
// node keeps its place in the Cluster). It stops a running one first.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatalf("redistest: restart: %v", err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	args := []string{
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--loglevel", "warning",
	}
	cmd := exec.Command(s.bin, append(args, s.extra...)...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	deadline := time.Now().Add(startTimeout)
	for !ping(addr) {
		select {
		case <-p.exited:
			return fmt.Errorf("redis-server exited: %s", out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return fmt.Errorf("redis-server did not answer PING on %s within %v: %s", addr, startTimeout, out.String())
		}
	}
	s.proc = p
	return nil
}

// kill kills the process group of p and waits for the server to exit.
func (p *process) kill() {
	killGroup(p.cmd.Process)
	<-p.exited
}

// ping reports whether a Redis at addr answers PING.
func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return false
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("find a free port: not a TCP address")
	}
	return addr.Port, nil
}

// syncBuffer is a bytes.Buffer the server's output can be written to
// while a failing Start reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
