package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a server running in a process of its own: this binary started
// with -serve.
type child struct {
	srv  server
	cmd  *exec.Cmd
	out  *bufio.Reader
	addr string // host:port
}

// startChild starts srv in a child process and waits for its address.
func startChild(srv server, redisURL, cpuProfile string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", srv.name, err)
	}
	args := []string{"-serve", srv.name}
	if srv.redis {
		args = append(args, "-redis", redisURL)
	}
	if cpuProfile != "" {
		args = append(args, "-cpuprofile", cpuProfile)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	// Linux kills the child should the harness die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", srv.name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", srv.name, err)
	}
	c := &child{srv: srv, cmd: cmd, out: bufio.NewReader(stdout)}
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("start %s: no address: %w", srv.name, err)
	}
	c.addr = strings.TrimSpace(line)
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// url is the address of the child's endpoint for path.
func (c *child) url(path string) string { return "http://" + c.addr + path }

// collect has the child collect garbage and return freed memory to the
// OS, and returns its VmRSS afterwards.
func (c *child) collect() (int64, error) {
	if err := c.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return 0, fmt.Errorf("%s: gc: %w", c.srv.name, err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "gc" {
		return 0, fmt.Errorf("%s: gc: answer %q: %v", c.srv.name, line, err)
	}
	return rssBytes(c.pid())
}

// stop ends the child and waits for it (it writes its CPU profile on the
// way out).
func (c *child) stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		return fmt.Errorf("%s did not stop in 10s: %w", c.srv.name, <-done)
	}
}

// redisServer is a redis-server child on a free loopback port, keeping
// nothing on disk.
type redisServer struct {
	cmd *exec.Cmd
	url string
}

func startRedis() (*redisServer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("the Redis row needs redis-server on PATH (or run with -skip specter-redis): %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("redis-server: %w", err)
	}
	r := &redisServer{cmd: cmd, url: fmt.Sprintf("redis://127.0.0.1:%d/0", port)}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if ping(addr) == nil {
			return r, nil
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, fmt.Errorf("redis-server on %s did not answer PING in 10s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *redisServer) pid() int { return r.cmd.Process.Pid }

// URL is the server's redis:// URL, "" for none (a nil r).
func (r *redisServer) URL() string {
	if r == nil {
		return ""
	}
	return r.url
}

func (r *redisServer) stop() {
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
}

// commands returns how many commands Redis executed since it started,
// from INFO commandstats, the INFO commands that read them left out.
func (r *redisServer) commands() (int64, error) {
	u, err := url.Parse(r.url)
	if err != nil {
		return 0, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return 0, fmt.Errorf("redis commandstats: %w", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("INFO commandstats\r\n")); err != nil {
		return 0, fmt.Errorf("redis commandstats: %w", err)
	}
	rd := bufio.NewReader(conn)
	head, err := rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		return 0, fmt.Errorf("redis commandstats: answered %q: %v", head, err)
	}
	size, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil {
		return 0, fmt.Errorf("redis commandstats: %w", err)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(rd, body); err != nil {
		return 0, fmt.Errorf("redis commandstats: %w", err)
	}
	return sumCalls(string(body)), nil
}

// sumCalls adds the calls= of every cmdstat_ line but INFO's.
func sumCalls(stats string) int64 {
	var n int64
	for _, line := range strings.Split(stats, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		for _, f := range strings.Split(fields, ",") {
			if v, ok := strings.CutPrefix(f, "calls="); ok {
				c, _ := strconv.ParseInt(v, 10, 64)
				n += c
			}
		}
	}
	return n
}

func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return errors.New("redis answered " + line)
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
