package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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

// redisServer is one redis-server child, or the six of a Redis Cluster
// (three masters, a replica each), on free loopback ports, keeping
// nothing on disk but a Cluster's node files, in a temporary directory.
type redisServer struct {
	cmds    []*exec.Cmd
	url     string
	masters []string // the addresses whose commands count
	dir     string   // the servers' working directory
	// cpus, when above 0, caps each redis-server at that many CPUs, with
	// a cgroup of its own: caps holds them, by address.
	cpus float64
	caps map[string]*cpuCap
	// procs are the processes, by address.
	procs map[string]*exec.Cmd
}

// startRedis starts one redis-server, capped at cpus CPUs if cpus > 0.
func startRedis(cpus float64) (*redisServer, error) {
	dir, err := os.MkdirTemp("", "compare-redis-")
	if err != nil {
		return nil, err
	}
	r := &redisServer{dir: dir, cpus: cpus}
	addr, err := r.spawn("--dir", dir)
	if err != nil {
		r.stop()
		return nil, err
	}
	r.url, r.masters = "redis://"+addr+"/0", []string{addr}
	return r, nil
}

// startRedisCluster starts a 6-node Redis Cluster with redis-cli, each
// node capped at cpus CPUs if cpus > 0.
func startRedisCluster(cpus float64) (*redisServer, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("the Cluster row needs redis-cli on PATH (or run with -only without specter-cluster): %w", err)
	}
	dir, err := os.MkdirTemp("", "compare-cluster-")
	if err != nil {
		return nil, err
	}
	r := &redisServer{dir: dir, cpus: cpus}
	var addrs []string
	for i := range 6 {
		nodeDir := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(nodeDir, 0o755); err != nil {
			r.stop()
			return nil, err
		}
		addr, err := r.spawn("--cluster-enabled", "yes", "--cluster-node-timeout", "2000", "--dir", nodeDir)
		if err != nil {
			r.stop()
			return nil, err
		}
		addrs = append(addrs, addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		r.stop()
		return nil, fmt.Errorf("redis-cli --cluster create: %w\n%s", err, out)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ready := true
		for _, a := range addrs {
			out, err := exec.Command(cli, "-u", "redis://"+a, "cluster", "info").Output()
			ready = ready && err == nil && strings.Contains(string(out), "cluster_state:ok")
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, errors.New("the Redis Cluster was not ready in 30s")
		}
	}
	// redis-cli makes the first three the masters.
	r.masters = addrs[:3]
	r.url = "redis://" + addrs[0] + "?addr=" + addrs[1] + "&addr=" + addrs[2]
	return r, nil
}

// spawn starts one redis-server with extra arguments and waits for its
// PING.
func (r *redisServer) spawn(extra ...string) (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("the Redis rows need redis-server on PATH (or run with -only without them): %w", err)
	}
	port, err := freePort()
	for err == nil && port > 55535 { // a Cluster node's bus listens on port+10000
		port, err = freePort()
	}
	if err != nil {
		return "", err
	}
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("redis-server: %w", err)
	}
	r.cmds = append(r.cmds, cmd)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if r.procs == nil {
		r.procs = make(map[string]*exec.Cmd)
	}
	r.procs[addr] = cmd
	if r.cpus > 0 {
		c, err := newCPUCap(r.cpus)
		if err != nil {
			return "", err
		}
		if r.caps == nil {
			r.caps = make(map[string]*cpuCap)
		}
		r.caps[addr] = c
		if err := c.add(cmd.Process.Pid); err != nil {
			return "", err
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if ping(addr) == nil {
			return addr, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("redis-server on %s did not answer PING in 10s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cpuTicks is the CPU time every process of r spent.
func (r *redisServer) cpuTicks() (int64, error) {
	var sum int64
	for _, c := range r.cmds {
		t, err := cpuTicks(c.Process.Pid)
		if err != nil {
			return 0, err
		}
		sum += t
	}
	return sum, nil
}

// URL is the server's redis:// URL, "" for none (a nil r).
func (r *redisServer) URL() string {
	if r == nil {
		return ""
	}
	return r.url
}

func (r *redisServer) stop() {
	for _, c := range r.cmds {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	for addr, c := range r.caps {
		if err := c.remove(); err != nil {
			fmt.Fprintf(os.Stderr, "redis-server on %s: %v\n", addr, err)
		}
	}
	if r.dir != "" {
		_ = os.RemoveAll(r.dir)
	}
}

// commands returns how many commands each master executed since it
// started, from INFO commandstats, the INFO commands that read them left
// out.
func (r *redisServer) commands() ([]int64, error) {
	n := make([]int64, len(r.masters))
	for i, a := range r.masters {
		var err error
		if n[i], err = commandsOf(a); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// masterCPU returns the CPU time each master has spent, in nanoseconds.
func (r *redisServer) masterCPU() ([]int64, error) {
	n := make([]int64, len(r.masters))
	for i, a := range r.masters {
		var err error
		if n[i], err = cpuNanos(r.procs[a].Process.Pid); err != nil {
			return nil, fmt.Errorf("redis-server on %s: %w", a, err)
		}
	}
	return n, nil
}

// throttled returns, summed over the masters' cgroups, how many CFS
// periods they were held back by their cap in, and how many they ran in;
// zeros when r is not capped.
func (r *redisServer) throttled() (throttled, periods int64, err error) {
	for _, a := range r.masters {
		c := r.caps[a]
		if c == nil {
			continue
		}
		t, p, err := c.throttled()
		if err != nil {
			return 0, 0, err
		}
		throttled, periods = throttled+t, periods+p
	}
	return throttled, periods, nil
}

func commandsOf(addr string) (int64, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
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
