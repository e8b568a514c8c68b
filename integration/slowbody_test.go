package integration

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/middleware"
)

// slowClient is an HTTP/1.1 client on a raw connection that sends its
// headers at once and then its body a byte at a time, as an attacker
// holding connections open would.
type slowClient struct {
	conn net.Conn
	br   *bufio.Reader
	stop chan struct{}
	done chan struct{}
}

// dialSlow sends a POST to /mcp of addr with header lines (JSON's
// Content-Type and the transport's Accept unless given) and a body of
// 100 bytes that declares its length, and then sends one byte of it
// every interval (never more than the first when interval is 0) until
// the test ends or the server closes the connection.
func dialSlow(t *testing.T, addr string, header ...string) *slowClient {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	// Far above every bound under test: a server that waits for the body
	// fails the test instead of hanging it.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	head := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 100\r\n"
	for _, h := range append(header, "Content-Type: application/json", "Accept: application/json, text/event-stream") {
		name, _, _ := strings.Cut(h, ":")
		if !strings.Contains(head, "\n"+name+":") {
			head += h + "\r\n"
		}
	}
	if _, err := io.WriteString(conn, head+"\r\n{"); err != nil {
		t.Fatal(err)
	}
	return &slowClient{conn: conn, br: bufio.NewReader(conn), stop: make(chan struct{}), done: make(chan struct{})}
}

// trickle sends a byte every interval in the background.
func (c *slowClient) trickle(interval time.Duration) {
	go func() {
		defer close(c.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-tick.C:
				if _, err := c.conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
}

// answer reads the server's answer and then what follows it, which must
// be the end of the connection: the server let it go without waiting for
// the rest of the body.
func (c *slowClient) answer(t *testing.T) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	if _, err := io.Copy(io.Discard, c.br); err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("after the answer: %v, want the server to close the connection", err)
	}
	return resp, string(body)
}

func (c *slowClient) close() {
	select {
	case <-c.done:
	default:
		close(c.stop)
		if c.done != nil {
			<-c.done
		}
	}
	c.conn.Close()
}

// TestSlowBodyIsCutAtBodyReadTimeout: a body trickled a byte at a time
// gets 408 once BodyReadTimeout passes, and the connection and its
// goroutines are released (issue 9 item 10).
func TestSlowBodyIsCutAtBodyReadTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := specter.NewRouter("slow", "1.0.0", quiet, specter.BodyReadTimeout(300*time.Millisecond))
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	defer r.Shutdown(t.Context())

	c := dialSlow(t, srv.Listener.Addr().String())
	defer c.close()
	c.trickle(50 * time.Millisecond) // 100 bytes would take 5 s
	resp, body := c.answer(t)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("status %d, Connection: close %v; want 408 and close", resp.StatusCode, resp.Close)
	}
	want := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request Timeout: the body did not arrive within 300ms"}}`
	if body != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
}

// TestRefusalsDoNotWaitForTheBody: requests refused before their body is
// read (authentication, the DNS-rebinding guard, the rate limit, the
// transport's header checks) are answered at once and their connection
// let go, however slowly the body comes.
func TestRefusalsDoNotWaitForTheBody(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out slow bodies; skipped with -short")
	}
	const burst = 10
	as := newAuthServer(t, authSetup{rate: &middleware.RateLimitConfig{Rate: 0.001, Burst: burst}})
	addr := as.srv.Listener.Addr().String()
	token := "Authorization: Bearer " + as.token(t, "slow", "")
	spent := "Authorization: Bearer " + as.token(t, "spent", "")
	for range burst {
		as.post(t, "", http.Header{"Authorization": {strings.TrimPrefix(spent, "Authorization: ")}}, strings.NewReader(authInitialize))
	}
	for _, tc := range []struct {
		name   string
		header []string
		status int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"bad token", []string{"Authorization: Bearer not.a.token"}, http.StatusUnauthorized},
		{"over the rate limit", []string{spent}, http.StatusTooManyRequests},
		{"foreign Origin", []string{token, "Origin: http://evil.example"}, http.StatusForbidden},
		{"Accept without event streams", []string{token, "Accept: application/json"}, http.StatusNotAcceptable},
		{"Content-Type not JSON", []string{token, "Content-Type: text/plain"}, http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialSlow(t, addr, tc.header...)
			defer c.close()
			close(c.done) // nothing in the background: one byte, then nothing
			resp, body := c.answer(t)
			if resp.StatusCode != tc.status || !resp.Close {
				t.Errorf("status %d, Connection: close %v; want %d and close", resp.StatusCode, resp.Close, tc.status)
			}
			if authErrorCode(t, []byte(body)) == 0 {
				t.Errorf("body %s", body)
			}
		})
	}
}

// TestStreamsOutliveBodyReadTimeout: the bound is on the body only; an
// answer that streams for longer, and a GET stream, stay open.
func TestStreamsOutliveBodyReadTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	release := make(chan struct{})
	r := specter.NewRouter("slow", "1.0.0", quiet, specter.BodyReadTimeout(timeout))
	r.Tool("wait", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			_ = s.Log(mcp.LevelInfo, "waiting")
			<-release
			return specter.Reply("released")
		})
	}, specter.Description("Answers when the test releases it"))
	e := newEnv(t, r)
	c := e.session(nil, mcp.LatestSessionVersion)

	stream, err := c.Listen(ctx(t), "")
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	defer stream.Close()
	// A plain POST, not the test client, which would resume a cut stream.
	req, err := c.NewRequest(ctx(t), http.MethodPost, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	time.Sleep(5 * timeout) // both streams are now older than the bound
	close(release)
	body, err := io.ReadAll(resp.Body)
	if err != nil || !strings.Contains(string(body), `"released"`) {
		t.Errorf("the streamed answer after %v: %v, body %s", 5*timeout, err, body)
	}
	r.NotifyToolsChanged()
	m, _, err := stream.Next()
	if err != nil || m.Method != "notifications/tools/list_changed" {
		t.Errorf("the GET stream after %v: %v %+v", 5*timeout, err, m)
	}
}
