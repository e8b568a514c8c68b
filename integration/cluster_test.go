package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// node is one Specter process of a cluster: a router on its own HTTP
// server, sharing a Redis backplane with the others.
type node struct {
	r   *specter.Router
	srv *httptest.Server
	url string
}

var clusterPrefix atomic.Int64

// newCluster starts n fixture nodes on the Redis (or Redis Cluster) at
// redisURL. extra declares more on every node.
func newCluster(t *testing.T, redisURL string, n int, extra func(*specter.Router), opts ...specter.RouterOption) []*node {
	t.Helper()
	prefix := fmt.Sprintf("t%d", clusterPrefix.Add(1))
	nodes := make([]*node, n)
	for i := range nodes {
		bp, err := redisbp.New(context.Background(), redisURL, redisbp.Prefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		all := append([]specter.RouterOption{quiet, specter.Backplane(bp), specter.StateKey([]byte("cluster secret"))}, opts...)
		r := fixture.New(all...)
		if extra != nil {
			extra(r)
		}
		mux := http.NewServeMux()
		mux.Handle("/mcp", r.Handler())
		srv := httptest.NewServer(mux)
		nodes[i] = &node{r: r, srv: srv, url: srv.URL + "/mcp"}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = r.Shutdown(ctx)
			srv.CloseClientConnections()
			srv.Close()
			_ = bp.Close()
		})
	}
	return nodes
}

// join opens a session on n with a client of the session era.
func join(t *testing.T, n *node) *mcptest.Client {
	t.Helper()
	c := mcptest.NewClient(n.url)
	c.HTTP = n.srv.Client()
	if _, err := c.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	return c
}

// on returns a schema-checked client of the session, pointed at n.
func on(t *testing.T, base *mcptest.Client, n *node) *mcptest.Client {
	c := base.At(n.url)
	c.HTTP = n.srv.Client()
	c.OnMessage = (&checker{t: t, c: c, count: new(atomic.Int64)}).observe
	return c
}

func TestClusterSessionMovesBetweenNodes(t *testing.T) {
	redis := redistest.Start(t)
	nodes := newCluster(t, redis.URL, 2, nil)
	a := join(t, nodes[0])
	b := on(t, a, nodes[1])
	if res, _, err := b.CallTool(ctx(t), "test_simple_text", nil); err != nil || res.IsError {
		t.Fatalf("a session created on A, used on B: %+v %v", res, err)
	}
	if _, err := b.Call(ctx(t), "logging/setLevel", map[string]string{"level": "error"}); err != nil {
		t.Fatal(err)
	}
	// The level set through B holds on A.
	if _, resp, _ := on(t, a, nodes[0]).CallTool(ctx(t), "test_tool_with_logging", nil); len(resp.Notifications) != 0 {
		t.Errorf("A ignored the log level set through B: %d messages", len(resp.Notifications))
	}
	if status, _ := b.Delete(ctx(t)); status != http.StatusNoContent {
		t.Fatalf("DELETE on B: %d", status)
	}
	if resp, _ := on(t, a, nodes[0]).Call(ctx(t), "ping", nil); resp.Status != http.StatusNotFound {
		t.Fatalf("A still serves a session deleted on B: %d", resp.Status)
	}
}

// endedEarly starts two nodes on the Redis at redisURL, opens a session
// on the first, and calls a tool whose stream the server ends before the
// answer. It returns the nodes, the session's client and the last event
// id, to resume from.
func endedEarly(t *testing.T, redisURL string) ([]*node, *mcptest.Client, string) {
	t.Helper()
	nodes := newCluster(t, redisURL, 2, nil)
	a := join(t, nodes[0])
	resp, err := a.Call(ctx(t), "tools/call", map[string]any{"name": "test_reconnection"})
	if !errors.Is(err, mcptest.ErrStreamEnded) {
		t.Fatalf("no early close: %v", err)
	}
	return nodes, a, resp.Events[len(resp.Events)-1].ID
}

func TestClusterResumeOnAnotherNode(t *testing.T) {
	nodes, a, last := endedEarly(t, redistest.Start(t).URL)
	s, err := on(t, a, nodes[1]).Listen(ctx(t), last)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _, err := s.Next()
	if err != nil || m.Kind() != jsonrpc.KindResponse || !strings.Contains(string(m.Result), "Reconnection test completed") {
		t.Fatalf("resumed on B: %+v %v", m, err)
	}
}

func TestClusterNotificationsAndAnswersCrossNodes(t *testing.T) {
	redis := redistest.Start(t)
	nodes := newCluster(t, redis.URL, 2, nil)
	a := mcptest.NewClient(nodes[0].url)
	a.HTTP = nodes[0].srv.Client()
	a.Capabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	a.OnRequest = func(method string, _ json.RawMessage) (any, *jsonrpc.Error) {
		return map[string]any{"action": "accept", "content": map[string]any{"username": "ada", "email": "a@b.co"}}, nil
	}
	a.AnswerURL = nodes[1].url // the elicitation answer lands on B; the handler waits on A
	if _, err := a.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	res, _, err := a.CallTool(ctx(t), "test_elicitation", map[string]any{"message": "Who?"})
	if err != nil || !strings.Contains(text(t, res), `"username":"ada"`) {
		t.Fatalf("answer through B to a handler on A: %+v %v", res, err)
	}

	// Subscribed through B, listening on A, notified from B.
	if _, err := on(t, a, nodes[1]).Call(ctx(t), "resources/subscribe", map[string]string{"uri": "test://watched-resource"}); err != nil {
		t.Fatal(err)
	}
	s, err := a.Listen(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nodes[1].r.NotifyToolsChanged()
	nodes[1].r.NotifyResourceUpdated("test://watched-resource")
	for _, want := range []string{"notifications/tools/list_changed", "notifications/resources/updated"} {
		m, _, err := s.Next()
		if err != nil || m.Method != want {
			t.Fatalf("got %+v %v, want %s", m, err, want)
		}
	}
}

// streamer declares a tool that sends 100 numbered notifications, then
// answers.
func streamer(r *specter.Router) {
	r.Tool("count", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
		return specter.NoReply(func(s *specter.Stream) specter.Result {
			for i := 1; i <= 100; i++ {
				if err := s.Notify("notifications/count", map[string]int{"n": i}); err != nil {
					return specter.Error(err)
				}
				if i%10 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			return specter.Reply("counted to 100")
		})
	}, specter.Description("Counts to 100 on the stream"))
}

// TestClusterDropAndResumeAnywhere drops the client's connection at a
// random point of a 100-event stream, 200 times, resuming each time on a
// random node: every event arrives exactly once, in order.
func TestClusterDropAndResumeAnywhere(t *testing.T) {
	redis := redistest.Start(t)
	nodes := newCluster(t, redis.URL, 2, streamer)
	rng := rand.New(rand.NewPCG(1, 2))
	base := join(t, nodes[0])
	tctx, cancel := context.WithTimeout(t.Context(), hangAfter)
	defer cancel()
	for run := range 200 {
		got, err := dropAndResume(tctx, t, base, nodes, rng, run)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if len(got) != 100 {
			t.Fatalf("run %d: %d events, want 100", run, len(got))
		}
		for i, n := range got {
			if n != i+1 {
				t.Fatalf("run %d: event %d is %d: %v", run, i+1, n, got)
			}
		}
	}
}

// errLost is a stream's notice that some of its messages are gone.
var errLost = errors.New("the stream reported lost messages")

// hangAfter bounds a test of many calls: a call that has no answer by
// then hangs.
const hangAfter = 2 * time.Minute

// dropAndResume calls count on a random node, reads a random number of
// events, drops the connection, and resumes on random nodes (dropping
// again at random) until the answer arrives, or ctx ends. It returns the
// numbers seen.
func dropAndResume(ctx context.Context, t *testing.T, base *mcptest.Client, nodes []*node, rng *rand.Rand, run int) ([]int, error) {
	n := nodes[rng.IntN(len(nodes))]
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count"}}`, 1000+run)
	c := on(t, base, n)
	req, _ := c.NewRequest(ctx, http.MethodPost, []byte(body))
	hr, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if hr.StatusCode != http.StatusOK {
		return nil, readStatus(hr)
	}
	cr := &countReader{}
	done, err := cr.read(mcptest.NewEventReader(hr.Body), rng.IntN(120)+1)
	hr.Body.Close()
	for attempt := 0; !done && err == nil; attempt++ {
		if attempt > 50 {
			return cr.got, errors.New("no answer after 50 resumes")
		}
		if cr.last == "" {
			return cr.got, errors.New("dropped before any event id")
		}
		n := nodes[rng.IntN(len(nodes))]
		req, _ := on(t, base, n).NewRequest(ctx, http.MethodGet, nil)
		req.Header.Set("Last-Event-ID", cr.last)
		hr, herr := n.srv.Client().Do(req)
		if herr != nil {
			return cr.got, herr
		}
		if hr.StatusCode != http.StatusOK {
			return cr.got, fmt.Errorf("resume on a node: %w", readStatus(hr))
		}
		budget := -1
		if rng.IntN(3) == 0 {
			budget = rng.IntN(40) + 1 // drop again
		}
		done, err = cr.read(mcptest.NewEventReader(hr.Body), budget)
		hr.Body.Close()
	}
	return cr.got, err
}

// errStatus is a node's answer with an HTTP error status.
type errStatus struct {
	code int
	body string
}

func (e errStatus) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.body) }

// readStatus reads and closes the body of hr, an HTTP error answer.
func readStatus(hr *http.Response) errStatus {
	defer hr.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(hr.Body, 1<<10))
	return errStatus{hr.StatusCode, string(body)}
}

// countReader follows the events of a call that counts: the numbers
// seen, in order, and the last event id, for a resume.
type countReader struct {
	got     []int
	last    string
	onEvent func(n int) // after each number, if set
}

// read reads events until the answer (done; an error response is
// errCall), a notice of lost messages (errLost), the connection's end, or
// budget events (-1: no bound).
func (cr *countReader) read(r *mcptest.EventReader, budget int) (done bool, err error) {
	for budget != 0 {
		ev, err := r.Next()
		if err != nil {
			return false, nil // the connection ended: resume
		}
		if ev.ID != "" {
			cr.last = ev.ID
		}
		if ev.Data == "" {
			continue
		}
		var m jsonrpc.Message
		if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
			return false, err
		}
		switch {
		case m.Method == "notifications/message" && strings.Contains(string(m.Params), "messages of this stream were"):
			return false, errLost // told, not silent
		case m.Method == "notifications/count":
			var p struct{ N int }
			_ = json.Unmarshal(m.Params, &p)
			cr.got = append(cr.got, p.N)
			if cr.onEvent != nil {
				cr.onEvent(p.N)
			}
		case m.Kind() == jsonrpc.KindErrorResponse:
			return true, errCall{m.Error}
		case m.Kind() == jsonrpc.KindResponse:
			return true, nil
		}
		budget--
	}
	return false, nil
}

// errCall is a call's explicit JSON-RPC error.
type errCall struct{ e *jsonrpc.Error }

func (e errCall) Error() string { return e.e.Message }

// TestClusterSurvivesRedisOutage stops Redis mid-run: requests fail with
// clear errors, nothing panics, and service comes back by itself.
func TestClusterSurvivesRedisOutage(t *testing.T) {
	redis := redistest.Start(t)
	nodes := newCluster(t, redis.URL, 2, nil)
	c := join(t, nodes[0])
	redis.Stop()
	resp, err := c.Call(ctx(t), "tools/list", nil)
	if err != nil || resp.Status != http.StatusServiceUnavailable || resp.Error == nil || !strings.Contains(resp.Error.Message, "unreachable") {
		t.Fatalf("while Redis is down: %+v %v", resp, err)
	}
	fresh := mcptest.NewClient(nodes[1].url)
	fresh.HTTP = nodes[1].srv.Client()
	if _, err := fresh.Initialize(ctx(t), "2025-11-25"); err == nil {
		t.Fatal("initialize succeeded without Redis")
	}
	redis.Restart(t)
	// Until the node works again, however long reconnecting takes.
	for done := testCtx(t).Done(); ; {
		_, err := fresh.Initialize(ctx(t), "2025-11-25")
		if err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("no recovery after Redis came back, by the test's deadline: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if res, _, err := on(t, fresh, nodes[0]).CallTool(ctx(t), "test_simple_text", nil); err != nil || res.IsError {
		t.Fatalf("after recovery, across nodes: %+v %v", res, err)
	}
	// The restarted Redis kept nothing: the old session is gone, and the
	// client is told so it can start again.
	if resp, _ := c.Call(ctx(t), "ping", nil); resp.Status != http.StatusNotFound {
		t.Errorf("a session lost with Redis: HTTP %d, want 404", resp.Status)
	}
}

// roundRobin starts a reverse proxy that sends each request to the next
// of nodes in turn, as a load balancer without stickiness does, and
// returns its base URL.
func roundRobin(t *testing.T, nodes []*node) string {
	t.Helper()
	bases := make([]string, len(nodes))
	for i, n := range nodes {
		bases[i] = n.srv.URL
	}
	return proxyTo(t, bases)
}
