package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// fanoutStreams is how many streams one resource update reaches in the
// fan-out benchmarks.
const fanoutStreams = 10_000

const fanoutURI = "test://static-text"

// BenchmarkNotifyResourceUpdated measures how long one
// NotifyResourceUpdated takes to reach every one of 10,000 subscribed
// streams: from the call until the last client has read the
// notification. The clients live in a child process, so each process
// holds one end of the 10,000 connections. An op is one notification
// delivered to all of them.
func BenchmarkNotifyResourceUpdated(b *testing.B) {
	b.Run("listen-10000", func(b *testing.B) {
		benchFanout(b, func(url string) [][]byte {
			c := mcptest.NewStatelessClient(url)
			r := c.Request(mcp.MethodSubscriptionsListen, map[string]any{
				"notifications": mcp.SubscriptionFilter{ResourceSubscriptions: []string{fanoutURI}}})
			raw := rawPost(b, url, r.Header, r)
			reqs := make([][]byte, fanoutStreams)
			for i := range reqs {
				reqs[i] = raw
			}
			return reqs
		})
	})
	b.Run("get-10000", func(b *testing.B) {
		benchFanout(b, func(url string) [][]byte {
			ids := openSessions(b, url, fanoutStreams)
			subscribeAll(b, url, ids)
			host := strings.TrimPrefix(url, "http://")
			reqs := make([][]byte, len(ids))
			for i, id := range ids {
				reqs[i] = fmt.Appendf(nil, "GET / HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n", host, id)
			}
			return reqs
		})
	})
}

// benchFanout serves the fixture, has the child process open a stream
// with each request streams builds, and times notifications reaching all.
func benchFanout(b *testing.B, streams func(url string) [][]byte) {
	// One client opens every stream: no per-caller caps.
	r := fixture.New(quiet, specter.KeepAlive(0), specter.MaxSessionsPerPrincipal(0),
		specter.MaxStreamsPerPrincipal(0), specter.MaxListenersPerPrincipal(0))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())
	reqs := streams(srv.URL)

	cmd := exec.Command(os.Args[0], "-test.run=^TestFanoutClientProcess$")
	cmd.Env = append(os.Environ(), "SPECTER_FANOUT_ADDR="+srv.Listener.Addr().String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	w := bufio.NewWriter(stdin)
	fmt.Fprintln(w, len(reqs))
	for _, q := range reqs {
		fmt.Fprintln(w, base64.StdEncoding.EncodeToString(q))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	// The child says "ready" once every stream is open and acknowledged.
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("fan-out client: %q, %v", line, err)
	}
	lines, done := make(chan string), make(chan struct{})
	defer close(done)
	go func() {
		defer close(lines)
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case lines <- line:
			case <-done: // the child's last words (its test's PASS)
				return
			}
		}
	}()
	b.ResetTimer()
	for i := range b.N {
		r.NotifyResourceUpdated(fanoutURI)
		select {
		case line, ok := <-lines:
			if got, _ := strconv.Atoi(strings.TrimSpace(line)); !ok || got != i+1 {
				b.Fatalf("fan-out client reports round %q, want %d", line, i+1)
			}
		case <-time.After(time.Minute):
			// A notification that never arrives is a bug, not a slow round.
			b.Fatalf("round %d: not every stream got the update within a minute", i+1)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(reqs)), "streams")
}

// rawPost renders a POST of r with its headers as HTTP/1.1 bytes.
func rawPost(b *testing.B, url string, h http.Header, r *mcptest.StatelessRequest) []byte {
	body, err := r.Body()
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header = h.Clone()
	var buf bytes.Buffer
	if err := req.Write(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// subscribeAll subscribes every session to fanoutURI.
func subscribeAll(b *testing.B, url string, ids []string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":%q}}`, fanoutURI)
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < len(ids); i += 8 {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", ids[i])
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				hr, err := client.Do(req)
				if err != nil {
					failed.Store(err)
					return
				}
				got, _ := io.ReadAll(hr.Body)
				hr.Body.Close()
				if hr.StatusCode != http.StatusOK || !bytes.Contains(got, []byte(`"result"`)) {
					failed.Store(fmt.Errorf("subscribe: HTTP %d %s", hr.StatusCode, got))
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

// TestFanoutClientProcess is the child process of the fan-out benchmarks:
// it opens a stream with each request it is given and, each time every
// stream has read one more resource update, prints the count. It does
// nothing in a normal run.
func TestFanoutClientProcess(t *testing.T) {
	addr := os.Getenv("SPECTER_FANOUT_ADDR")
	if addr == "" {
		t.Skip("helper process for BenchmarkNotifyResourceUpdated")
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	line, _ := in.ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int64
	var closing atomic.Bool
	var mu sync.Mutex
	report := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(os.Stdout, s)
	}
	var opened sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	for range n {
		line, err := in.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		req, err := base64.StdEncoding.DecodeString(strings.TrimSpace(line))
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		opened.Add(1)
		go func() {
			br := bufio.NewReaderSize(c, 1024)
			status, err := br.ReadString('\n')
			if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
				fmt.Fprintf(os.Stderr, "fan-out stream: %q %v\n", status, err)
				os.Exit(1)
			}
			first := true
			for {
				l, err := br.ReadSlice('\n')
				if err != nil {
					if !closing.Load() {
						fmt.Fprintf(os.Stderr, "fan-out stream ended early: %v\n", err)
					}
					return
				}
				// Open once the headers ended (GET) or the listen stream's
				// acknowledgement arrived.
				if first && (bytes.Equal(l, []byte("\r\n")) && bytes.HasPrefix(req, []byte("GET")) ||
					bytes.Contains(l, []byte("notifications/subscriptions/acknowledged"))) {
					first = false
					opened.Done()
				}
				if bytes.Contains(l, []byte("notifications/resources/updated")) {
					if k := seen.Add(1); k%int64(n) == 0 {
						report(strconv.FormatInt(k/int64(n), 10))
					}
				}
			}
		}()
	}
	opened.Wait()
	report("ready")
	_, _ = io.Copy(io.Discard, in) // hold until the parent closes stdin
	closing.Store(true)
	for _, c := range conns {
		c.Close()
	}
}
