package interop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/client"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// ctx bounds a test: real servers start in about a second, and no test
// here should need more than a minute.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// node is the pinned Node of the harness.
func node(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the interop tests run real Node servers; skipped with -short")
	}
	p, err := filepath.Abs(filepath.Join("node_modules", ".bin", "node"))
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		t.Fatalf("the interop harness is not installed (%v): run `make test`, or `npm ci --prefix integration/interop` in the module root", err)
	}
	return p
}

// script is the path of an npm package's file in the harness, or of a
// file of this folder.
func script(t testing.TB, path ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(path...))
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		t.Fatalf("%s: %v", filepath.Join(path...), err)
	}
	return p
}

// The servers of the harness.
var (
	everything = []string{"node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"}
	filesystem = []string{"node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js"}
	memory     = []string{"node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js"}
	ours       = []string{"servers.mjs"}
)

// logWriter passes a server's standard error to the test log, line by
// line, until the test ends.
type logWriter struct {
	t    testing.TB
	name string

	mu   sync.Mutex
	done bool
	buf  []byte
}

func newLog(t testing.TB, name string) *logWriter {
	w := &logWriter{t: t, name: name}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return w
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.t.Logf("%s: %s", w.name, w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

// stdio returns a transport that starts a server of the harness over
// stdio, with env added to the environment.
func stdio(t testing.TB, env []string, path []string, args ...string) *client.CommandTransport {
	t.Helper()
	cmd := exec.Command(node(t), append([]string{script(t, path...)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = newLog(t, filepath.Base(filepath.Dir(filepath.Dir(script(t, path...)))))
	return &client.CommandTransport{Cmd: cmd}
}

// process is a server of the harness listening on loopback.
type process struct {
	t    testing.TB
	cmd  *exec.Cmd
	done chan struct{}
	Port string
}

// listening matches the line a server prints once it accepts connections.
var listening = regexp.MustCompile(`listening (?:on port )?(\d+)`)

// serve starts a server of the harness that listens on loopback and waits
// until it says so; the test's end stops it.
func serve(t testing.TB, env []string, path []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(node(t), append([]string{script(t, path...)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = newLog(t, "stdout")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{t: t, cmd: cmd, done: make(chan struct{})}
	port := make(chan string, 1)
	log := newLog(t, "server")
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case port <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
	}()
	t.Cleanup(p.stop)
	select {
	case p.Port = <-port:
	case <-p.done:
		t.Fatalf("%s exited before listening", strings.Join(cmd.Args, " "))
	case <-time.After(30 * time.Second):
		p.stop()
		t.Fatalf("%s did not start listening", strings.Join(cmd.Args, " "))
	}
	return p
}

// URL is the server's MCP endpoint.
func (p *process) URL() string { return "http://127.0.0.1:" + p.Port + "/mcp" }

// stop kills the server and waits until it exited.
func (p *process) stop() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// freePort returns a loopback port nobody listens on now, for servers
// that take their port from the environment.
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
