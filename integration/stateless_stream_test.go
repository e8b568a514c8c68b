package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// logs returns the notifications/message params of a response.
func logs(t *testing.T, resp *mcptest.Response) []mcp.LoggingMessageParams {
	t.Helper()
	var out []mcp.LoggingMessageParams
	for _, n := range resp.Notifications {
		if n.Method != "notifications/message" {
			t.Errorf("unexpected notification %s", n.Method)
			continue
		}
		var p mcp.LoggingMessageParams
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestStatelessLogsOnlyWhenTheRequestAsks(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		tool  string
		level mcp.LoggingLevel
		want  []string
	}{
		{"test_logging_tool", "", nil},
		{"test_logging_tool", mcp.LevelDebug, []string{"test_logging_tool ran"}},
		{"test_logging_tool", mcp.LevelInfo, []string{"test_logging_tool ran"}},
		{"test_logging_tool", mcp.LevelWarning, nil},
		{"test_logging_tool", mcp.LevelEmergency, nil},
		{"test_tool_with_logging", "", nil},
		{"test_tool_with_logging", mcp.LevelDebug, []string{"Tool execution started", "Tool processing data", "Tool execution completed"}},
		{"test_tool_with_logging", mcp.LevelNotice, nil},
	} {
		c := e.stateless()
		c.LogLevel = tc.level
		resp := callTool(t, c, tc.tool, map[string]any{}, nil)
		toolText(t, resp)
		var got []string
		for _, l := range logs(t, resp) {
			if l.Level != mcp.LevelInfo {
				t.Errorf("%s at %q: a log at %s", tc.tool, tc.level, l.Level)
			}
			s, _ := l.Data.(string)
			got = append(got, s)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s at %q: logs %q, want %q", tc.tool, tc.level, got, tc.want)
		}
		if streamed := len(tc.want) > 0; resp.Streamed != streamed {
			t.Errorf("%s at %q: streamed %v, want %v", tc.tool, tc.level, resp.Streamed, streamed)
		}
	}
}

func TestStatelessProgressIsStreamedBeforeTheResult(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	for _, token := range []any{"progress-test-1", 7} {
		resp := call(t, c, "tools/call", map[string]any{"name": "test_tool_with_progress", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": token}})
		if !resp.Streamed || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("token %v: not streamed (%q)", token, resp.Header.Get("Content-Type"))
		}
		if got := toolText(t, resp); got != mustJSON(token) {
			t.Errorf("token %v: the handler saw %s", token, got)
		}
		var progress []float64
		for _, n := range resp.Notifications {
			var p struct {
				ProgressToken json.RawMessage `json:"progressToken"`
				Progress      float64         `json:"progress"`
				Total         float64         `json:"total"`
			}
			if n.Method != "notifications/progress" || json.Unmarshal(n.Params, &p) != nil {
				t.Fatalf("notification %s %s", n.Method, n.Params)
			}
			if string(p.ProgressToken) != mustJSON(token) || p.Total != 100 {
				t.Errorf("progress %s, want token %s of 100", n.Params, mustJSON(token))
			}
			progress = append(progress, p.Progress)
		}
		if mustJSON(progress) != `[0,50,100]` {
			t.Errorf("token %v: progress %v before the result, want 0, 50, 100", token, progress)
		}
		if len(resp.Requests) != 0 {
			t.Errorf("server requests on the stream: %v", resp.Requests)
		}
	}
	resp := callTool(t, c, "test_tool_with_progress", map[string]any{}, nil)
	if toolText(t, resp); len(resp.Notifications) != 0 || resp.Streamed {
		t.Errorf("without a token: %d notifications, streamed %v", len(resp.Notifications), resp.Streamed)
	}
}

func TestStatelessStreamsCarryNoServerRequests(t *testing.T) {
	e := newEnv(t, nil)
	c := e.stateless()
	c.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	c.LogLevel = mcp.LevelDebug
	resp := callTool(t, c, "test_streaming_elicitation", map[string]any{}, nil)
	if got := toolText(t, resp); got != "Streaming elicitation test completed" || len(resp.Requests) != 0 {
		t.Errorf("%q, server requests %v", got, resp.Requests)
	}
	// A handler that would block on the client in a session answers
	// input_required here, on a stream that also carries its logs.
	for _, tool := range []string{"test_elicitation", "test_input_required_result_elicitation", "test_tool_with_logging"} {
		resp := callTool(t, c, tool, map[string]any{"message": "Who?"}, nil)
		if len(resp.Requests) != 0 {
			t.Errorf("%s: server requests on the stream: %v", tool, resp.Requests)
		}
	}
}

// tap records what a router writes to its HTTP responses.
type tap struct {
	mu       sync.Mutex
	written  bytes.Buffer
	returned bool
	late     int // writes after ServeHTTP returned
	done     chan struct{}
}

func (tp *tap) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&tappedWriter{ResponseWriter: w, tap: tp}, r)
		tp.mu.Lock()
		tp.returned = true
		tp.mu.Unlock()
		close(tp.done)
	})
}

type tappedWriter struct {
	http.ResponseWriter
	tap *tap
}

func (w *tappedWriter) Write(b []byte) (int, error) {
	w.tap.mu.Lock()
	if w.tap.returned {
		w.tap.late++
	}
	w.tap.written.Write(b)
	w.tap.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and SetWriteDeadline.
func (w *tappedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func within(t *testing.T, what string, d time.Duration, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s did not happen within %v", what, d)
	}
}

func TestStatelessClosingTheStreamCancelsTheHandler(t *testing.T) {
	var reported atomic.Int32
	r := specter.NewRouter("cancel", "1.0", quiet, specter.OnError(func(context.Context, error, *specter.Request) { reported.Add(1) }))
	cancelled, release := make(chan struct{}), make(chan struct{})
	finished := make(chan error, 1)
	r.Tool("watch", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			if err := s.Progress(1, 0, "started"); err != nil {
				return specter.Error(err)
			}
			<-s.Done()
			close(cancelled)
			<-release
			finished <- errors.Join(s.Progress(2, 0, "after-cancel"), s.Log(mcp.LevelError, "after-cancel"))
			return specter.Reply("should-not-arrive")
		})
	}, specter.Description("Streams until its client goes away"))
	tp := &tap{done: make(chan struct{})}
	srv := httptest.NewServer(tp.wrap(r.Handler()))
	t.Cleanup(srv.Close)
	e := &env{t: t, r: r, srv: srv}
	c := e.stateless()
	c.URL = srv.URL
	c.LogLevel = mcp.LevelDebug

	sub, err := c.Open(ctx(t), c.Request("tools/call", map[string]any{"name": "watch", "_meta": map[string]any{"progressToken": "w"}}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := sub.Next(ctx(t))
	if err != nil || m.Method != "notifications/progress" {
		t.Fatalf("first message %+v, %v", m, err)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	within(t, "the handler's cancellation", 2*time.Second, cancelled)
	within(t, "the end of the HTTP exchange", 2*time.Second, tp.done)
	close(release)
	if err := <-finished; err != nil {
		t.Errorf("sending on a cancelled request: %v", err)
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Shutdown(shutdown); err != nil { // waits for the Async work
		t.Fatal(err)
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	out := tp.written.String()
	if !strings.Contains(out, `"started"`) {
		t.Errorf("the first progress never reached the response: %q", out)
	}
	if strings.Contains(out, "after-cancel") || strings.Contains(out, "should-not-arrive") || tp.late != 0 {
		t.Errorf("written after the client left (%d writes after the handler returned):\n%s", tp.late, out)
	}
	if n := reported.Load(); n != 0 {
		t.Errorf("a cancelled request was reported as %d error(s)", n)
	}
}

func TestStatelessCancellingTheRequestCancelsABlockedHandler(t *testing.T) {
	r := specter.NewRouter("cancel", "1.0", quiet)
	started, cancelled := make(chan struct{}), make(chan struct{})
	r.Tool("block", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		close(started)
		<-c.Done()
		close(cancelled)
		return specter.Error(c.Err())
	}, specter.Description("Blocks until its request ends"))
	e := newEnv(t, r)
	c := e.stateless()
	cctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	if _, _, err := c.CallTool(cctx, "block", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v, want the client's cancellation", err)
	}
	within(t, "the handler's cancellation", 2*time.Second, cancelled)
}
