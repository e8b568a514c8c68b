package openapi_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// routeServerEnv makes TestRouteServerChild serve instead of skipping.
const routeServerEnv = "OPENAPI_ROUTE_SERVER_CHILD"

// TestRouteServerChild is BenchmarkRouteCallServerCPU's server: the
// notes app with its GET /notes/{id} route mounted as a tool, on a
// loopback port it prints, plus GET /_cpu answering the process's CPU
// time in nanoseconds. It serves until its standard input closes, with a
// CPU profile written to $OPENAPI_ROUTE_SERVER_CHILD_PROFILE if set.
func TestRouteServerChild(t *testing.T) {
	if os.Getenv(routeServerEnv) != "1" {
		t.Skip("the server of BenchmarkRouteCallServerCPU")
	}
	e, r := notesServer(t)
	if path := os.Getenv(routeServerEnv + "_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_cpu", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strconv.FormatInt(int64(cpuTime()), 10))
	})
	mux.Handle("/", e)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("listening http://%s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	_ = r.Shutdown(ctx)
}

// BenchmarkRouteCallServerCPU measures the server's CPU alone (server-
// cpu-ns/op, read from the server process) for a plain HTTP request to a
// route and for a tools/call of the same route as an in-process tool,
// each over real HTTP on a keep-alive connection from this process. The
// server runs in a child process so that the client's CPU is not counted.
// The target: mcp-tools-call at most 1.3× plain.
func BenchmarkRouteCallServerCPU(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestRouteServerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), routeServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	var base string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
			base = u
			break
		}
	}
	if base == "" {
		b.Fatal("the server printed no address")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	get := func(b *testing.B, req *http.Request, want string) []byte {
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(out), want) {
			b.Fatalf("%s: %d %s", req.URL, res.StatusCode, out)
		}
		return out
	}
	serverCPU := func(b *testing.B) time.Duration {
		req, _ := http.NewRequest(http.MethodGet, base+"/_cpu", nil)
		n, err := strconv.ParseInt(string(get(b, req, "")), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		return time.Duration(n)
	}
	body, hdr := statelessRequest("tools/call", "get_note", `"name":"get_note","arguments":{"id":3},`)
	hdr.Set("X-User", "alice")
	for _, tc := range []struct {
		name string
		req  func() *http.Request
	}{
		{"plain", func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, base+"/notes/3", nil)
			req.Header.Set("X-User", "alice")
			return req
		}},
		{"mcp-tools-call", func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(body))
			req.Header = hdr.Clone()
			return req
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			get(b, tc.req(), "alice")
			start := serverCPU(b)
			for b.Loop() {
				get(b, tc.req(), "alice")
			}
			b.ReportMetric(float64(serverCPU(b)-start)/float64(b.N), "server-cpu-ns/op")
		})
	}
}
