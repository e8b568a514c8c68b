package integration

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
)

// memorySessions is how many sessions the memory measurements use.
const memorySessions = 10_000

// memStats returns live heap plus goroutine stacks, after collecting.
func memStats() uint64 {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// openSessions initializes n sessions over keep-alive connections and
// returns their ids.
func openSessions(t testing.TB, url string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"m","version":"1"}}}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				hr, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, hr.Body)
				hr.Body.Close()
				if ids[i] = hr.Header.Get("Mcp-Session-Id"); ids[i] == "" {
					errs <- fmt.Errorf("initialize %d: HTTP %d", i, hr.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return ids
}

// TestSessionMemory measures what an idle session-era session costs this
// server, without and with an open GET stream, over 10,000 sessions. The
// client ends of the streams live in a child process, so only the
// server's side is counted. Skipped under the race detector, which
// changes what memory costs.
func TestSessionMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory is measured without -race and -short (make test runs it separately)")
	}
	// One client opens every session and stream: no per-caller caps.
	r := fixture.New(quiet, specter.KeepAlive(0), specter.MaxSessionsPerPrincipal(0), specter.MaxStreamsPerPrincipal(0))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())

	before := memStats()
	ids := openSessions(t, srv.URL, memorySessions)
	idle := memStats()
	perIdle := float64(idle-before) / memorySessions

	holder := startStreamHolder(t, srv.Listener.Addr().String(), ids)
	defer holder.stop()
	waitUntil(t, fmt.Sprintf("all %d GET streams attached", memorySessions), func() bool { return r.StreamsAttached() >= memorySessions })
	streaming := memStats()
	perStream := float64(streaming-before) / memorySessions
	t.Logf("per idle session: %.0f bytes without a stream, %.0f bytes with an open GET stream (%d sessions)", perIdle, perStream, memorySessions)
	if perIdle > 1024 {
		t.Errorf("an idle session costs %.0f bytes; the budget is 1 KiB", perIdle)
	}
	if perStream > 4096 {
		t.Errorf("an idle session with a GET stream costs %.0f bytes; the budget is 4 KiB", perStream)
	}
}

// streamHolder is a child process holding open GET streams.
type streamHolder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func (h *streamHolder) stop() {
	h.stdin.Close()
	_ = h.cmd.Wait()
}

// startStreamHolder re-runs this test binary as a client that opens a GET
// stream per session id and holds them until its stdin closes.
func startStreamHolder(t *testing.T, addr string, ids []string) *streamHolder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStreamHolderProcess$")
	cmd.Env = append(os.Environ(), "SPECTER_HOLD_ADDR="+addr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, strings.Join(ids, " "))
	return &streamHolder{cmd: cmd, stdin: stdin}
}

// TestStreamHolderProcess is the child process of startStreamHolder; it
// does nothing in a normal run.
func TestStreamHolderProcess(t *testing.T) {
	addr := os.Getenv("SPECTER_HOLD_ADDR")
	if addr == "" {
		t.Skip("helper process for TestSessionMemory")
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	line, _ := in.ReadString('\n')
	var conns []net.Conn
	for _, id := range strings.Fields(line) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n\r\n", addr, id)
		conns = append(conns, c)
	}
	_, _ = io.Copy(io.Discard, in) // hold until the parent closes stdin
	for _, c := range conns {
		c.Close()
	}
}

// TestAbandonedSessionsAreReclaimed abandons 10,000 sessions and checks
// that, after the idle timeout, sessions, goroutines and heap return to
// where they were.
func TestAbandonedSessionsAreReclaimed(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 10,000 sessions")
	}
	r := fixture.New(quiet, specter.SessionTimeout(time.Second), specter.MaxSessionsPerPrincipal(0))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(context.Background())
	goroutines := runtime.NumGoroutine()
	before := memStats()
	// Every initialize got a session id; some expire while the rest are
	// still being created.
	openSessions(t, srv.URL, memorySessions)
	waitUntil(t, "every session expired", func() bool { return r.Sessions() == 0 })
	srv.CloseClientConnections()
	// Until goroutines and heap are back, or the test's deadline; the
	// checks below say which is not.
	var after uint64
reclaim:
	for done := testCtx(t).Done(); ; {
		after = memStats()
		if runtime.NumGoroutine() <= goroutines && after < before+(1<<20) {
			break
		}
		select {
		case <-done:
			break reclaim
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Logf("reclaimed %d sessions: goroutines %d → %d, heap+stacks %d → %d bytes", memorySessions, goroutines, runtime.NumGoroutine(), before, after)
	if runtime.NumGoroutine() > goroutines {
		t.Errorf("goroutines %d, baseline %d", runtime.NumGoroutine(), goroutines)
	}
	if after > before+(1<<20) {
		t.Errorf("heap+stacks grew by %d bytes after every session was reclaimed", after-before)
	}
}
