package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcptest"
)

// countTo is how many numbered events a call of count_slowly sends.
const countTo = 30

// nodeProc is a fixture node in a process of its own, which the test can
// kill -9 as a crash would.
type nodeProc struct {
	addr  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startNodeProc re-runs this test binary (built once, by go test) as a
// fixture node on addr sharing the Redis at redisURL under prefix, with
// env added to its environment, and waits until it serves.
func startNodeProc(t *testing.T, redisURL, prefix, addr string, env ...string) *nodeProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNodeProcess$")
	cmd.Env = append(os.Environ(), "SPECTER_NODE_REDIS="+redisURL, "SPECTER_NODE_PREFIX="+prefix, "SPECTER_NODE_ADDR="+addr)
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &nodeProc{addr: addr, cmd: cmd, stdin: stdin}
	t.Cleanup(p.stop)
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if sc.Text() == "serving" {
				ok = true
				break
			}
		}
		ready <- ok
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the node process ended before it served")
		}
	case <-ctx(t).Done():
		t.Fatal("the node process did not serve in time")
	}
	return p
}

// kill ends the node as a crash does: no shutdown, no goodbye.
func (p *nodeProc) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// stop ends the node cleanly if it still runs.
func (p *nodeProc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// TestNodeProcess is the child process of startNodeProc; it does nothing
// in a normal run.
func TestNodeProcess(t *testing.T) {
	redisURL := os.Getenv("SPECTER_NODE_REDIS")
	if redisURL == "" {
		t.Skip("helper process for TestNodeKillUnderLoad")
	}
	bp, err := redisbp.New(context.Background(), redisURL, redisbp.Prefix(os.Getenv("SPECTER_NODE_PREFIX")))
	if err != nil {
		t.Fatal(err)
	}
	defer bp.Close()
	var shared backplane.Backplane = bp
	if os.Getenv("SPECTER_NODE_UNRECORDED") != "" {
		shared = unrecorded{bp}
	}
	r := fixture.New(quiet, specter.Backplane(shared), specter.StateKey([]byte("cluster secret")))
	lapseTools(r)
	r.Tool("count_slowly", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for i := 1; i <= countTo; i++ {
				if err := s.Notify("notifications/count", map[string]int{"n": i}); err != nil {
					return specter.Error(err)
				}
				select {
				case <-tick.C:
				case <-s.Done():
					return specter.Error(s.Err())
				}
			}
			return specter.Reply(fmt.Sprintf("counted to %d", countTo))
		})
	}, specter.Description("Counts slowly on the stream"))
	ln, err := net.Listen("tcp", os.Getenv("SPECTER_NODE_ADDR"))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("serving")
	_, _ = io.Copy(io.Discard, os.Stdin) // serve until the parent closes stdin
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.Shutdown(ctx)
	_ = srv.Shutdown(ctx)
}

// freeAddr returns a loopback address with a port free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proxyTo starts a round-robin reverse proxy to the base URLs, which
// answers 502 for a node that is down, and returns its URL.
func proxyTo(t *testing.T, bases []string) string {
	t.Helper()
	targets := make([]*url.URL, len(bases))
	for i, b := range bases {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		targets[i] = u
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[(next.Add(1)-1)%uint64(len(targets))])
			r.Out.Host = r.In.Host
		},
		FlushInterval: -1,
		ErrorHandler:  func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) },
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// TestNodeKillUnderLoad runs 3 fixture nodes as processes behind a
// round-robin proxy, on one Redis and on a Redis Cluster, kills one with
// SIGKILL while clients stream numbered events through the proxy, and
// restarts it. Every call ends with its events once and in order and its
// answer, or with an explicit error; the task that ran on the dead node
// fails with a reason; none hangs; the restarted node serves again.
func TestNodeKillUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("kills node processes under load; skipped with -short")
	}
	t.Run("redis", func(t *testing.T) { nodeKillUnderLoad(t, redistest.Start(t).URL) })
	t.Run("cluster", func(t *testing.T) { nodeKillUnderLoad(t, redistest.StartCluster(t).URL) })
}

func nodeKillUnderLoad(t *testing.T, redisURL string) {
	// Nothing may outlast this: a call or a task that hangs fails the test.
	tctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	defer nodeClient.CloseIdleConnections()
	prefix := fmt.Sprintf("k%d", clusterPrefix.Add(1))
	procs := make([]*nodeProc, 3)
	bases := make([]string, 3)
	for i := range procs {
		procs[i] = startNodeProc(t, redisURL, prefix, freeAddr(t))
		bases[i] = "http://" + procs[i].addr
	}
	proxy := proxyTo(t, bases) + "/mcp"
	base := mcptest.NewClient(proxy)
	if _, err := base.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}

	// A task whose work runs on the node that dies.
	victim := procs[1]
	direct := base.At(bases[1] + "/mcp")
	resp, err := direct.Call(ctx(t), "tools/call", map[string]any{"name": "slow_compute",
		"arguments": map[string]any{"seconds": 60, "label": "doomed"}, "task": map[string]any{"ttl": 120000}})
	if err != nil || resp.Error != nil {
		t.Fatalf("starting a task on the node to kill: %+v %v", resp, err)
	}
	var created struct{ Task struct{ TaskID string } }
	if err := json.Unmarshal(resp.Result, &created); err != nil || created.Task.TaskID == "" {
		t.Fatalf("the task: %s %v", resp.Result, err)
	}

	const workers = 6
	var (
		killed   atomic.Bool
		started  sync.WaitGroup // every worker is mid-call before the kill
		mu       sync.Mutex
		complete int
		told     []string
		wg       sync.WaitGroup
	)
	started.Add(workers)
	for w := range workers {
		wg.Go(func() {
			var once sync.Once
			signal := func() { once.Do(started.Done) }
			defer signal()
			first := true
			for run, after := 0, 0; after < 2 && !t.Failed(); run++ {
				if killed.Load() {
					after++
				}
				onEvent := func(n int) {
					if first && n == countTo/2 {
						first = false
						signal()
					}
				}
				got, err := countThrough(tctx, base, w*1000+run, onEvent)
				if first { // the call ended before its middle
					first = false
					signal()
				}
				for i, n := range got {
					if n != i+1 {
						t.Errorf("worker %d run %d: event %d is %d (a gap or a repeat): %v", w, run, i+1, n, got)
						return
					}
				}
				mu.Lock()
				switch {
				case err != nil:
					told = append(told, err.Error())
				case len(got) == countTo:
					complete++
				default:
					t.Errorf("worker %d run %d: answered after %d of %d events, without an error", w, run, len(got), countTo)
				}
				mu.Unlock()
			}
		})
	}
	started.Wait()
	victim.kill()
	killed.Store(true)
	wg.Wait()
	t.Logf("%d calls complete, %d ended with an explicit error: %q", complete, len(told), told)
	if len(told) == 0 {
		t.Error("no call was running on the killed node: the test proved nothing")
	}
	for _, e := range told {
		// A call whose connection broke before its first event has no id
		// to resume from: its client knows at once that it failed. Any
		// later break must end in the dead node's error.
		if !strings.Contains(e, "stopped") && e != errDroppedEarly.Error() {
			t.Errorf("a call ended with %q, want the dead node's error", e)
		}
	}

	// The task that ran there is failed with a reason, on every node.
	for {
		resp, err := base.Call(tctx, "tasks/get", map[string]any{"taskId": created.Task.TaskID})
		switch {
		case err != nil && strings.Contains(err.Error(), "HTTP 502"):
			continue // the proxy chose the dead node
		case err != nil:
			t.Fatal(err)
		}
		var task struct{ Status, StatusMessage string }
		if resp.Error == nil {
			_ = json.Unmarshal(resp.Result, &task)
		}
		if task.Status == "failed" {
			if !strings.Contains(task.StatusMessage, "stopped") {
				t.Errorf("the dead node's task failed with %q, want the reason", task.StatusMessage)
			}
			break
		}
		if task.Status != "working" {
			t.Fatalf("the dead node's task: HTTP %d %+v %s", resp.Status, resp.Error, resp.Result)
		}
		select {
		case <-tctx.Done():
			t.Fatal("the dead node's task stayed working")
		case <-time.After(100 * time.Millisecond): // polling, as a client does
		}
	}

	// The node restarts on its address and serves again.
	procs[1] = startNodeProc(t, redisURL, prefix, victim.addr)
	got, err := countThrough(tctx, base.At(bases[1]+"/mcp"), 99999, nil)
	if err != nil || len(got) != countTo {
		t.Fatalf("a call on the restarted node: %d events, %v", len(got), err)
	}
}

// nodeClient is the HTTP client of the calls to node processes.
var nodeClient = &http.Client{Transport: &http.Transport{}}

// errDroppedEarly is a call whose connection broke before any event.
var errDroppedEarly = errors.New("dropped before any event id")

// countThrough calls count_slowly through c (the proxy) and follows its
// stream to the answer, resuming with Last-Event-ID through c whenever
// the connection ends (its node died, or the proxy sent the resume to a
// node that is down). It returns the numbers seen, and an error that the
// server gave (errCall) or a failure of the test's own.
func countThrough(ctx context.Context, c *mcptest.Client, id int, onEvent func(int)) ([]int, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count_slowly"}}`, id)
	var hr *http.Response
	for {
		req, _ := c.NewRequest(ctx, http.MethodPost, []byte(body))
		var err error
		if hr, err = nodeClient.Do(req); err != nil {
			return nil, err
		}
		if hr.StatusCode != http.StatusBadGateway {
			break
		}
		hr.Body.Close() // the proxy chose the dead node: the next one is up
	}
	cr := &countReader{onEvent: onEvent}
	done, err := cr.read(mcptest.NewEventReader(hr.Body), -1)
	hr.Body.Close()
	for !done && err == nil {
		if cr.last == "" {
			return cr.got, errDroppedEarly
		}
		if ctx.Err() != nil {
			return cr.got, fmt.Errorf("call %d hangs: no answer before the test's deadline", id)
		}
		req, _ := c.NewRequest(ctx, http.MethodGet, nil)
		req.Header.Set("Last-Event-ID", cr.last)
		hr, herr := nodeClient.Do(req)
		if herr != nil {
			return cr.got, herr
		}
		if hr.StatusCode == http.StatusBadGateway {
			hr.Body.Close()
			continue // the proxy chose the dead node: the next one is up
		}
		if hr.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(hr.Body)
			hr.Body.Close()
			return cr.got, fmt.Errorf("resume: HTTP %d: %s", hr.StatusCode, b)
		}
		done, err = cr.read(mcptest.NewEventReader(hr.Body), -1)
		hr.Body.Close()
	}
	return cr.got, err
}
