package integration

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/params"
)

// A session subscribes to an application topic through node B while its
// GET stream is open on node A; a publish on B runs the session's event
// handler once, on A, which notifies the client and updates the
// session's data, which B then reads.
func TestClusterEventReachesSessionOnAnotherNode(t *testing.T) {
	redis := redistest.Start(t)
	var ran atomic.Int64
	onEvent := specter.OnEvent(func(s *specter.Session, topic string, data json.RawMessage) {
		ran.Add(1)
		var order struct{ ID string }
		_ = json.Unmarshal(data, &order)
		_ = s.Store("last_order", order.ID)
		_ = s.Notify(mcp.NotificationResourceUpdated, map[string]string{"uri": "app://orders/" + order.ID})
	})
	nodes := newCluster(t, redis.URL, 2, func(r *specter.Router) {
		r.Tool("follow", func(p specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			if err := c.Session().Subscribe(p.String("topic")); err != nil {
				return specter.Error(err)
			}
			return specter.Reply("following " + p.String("topic"))
		}, specter.Description("Follows a topic"), params.String("topic", params.Required()))
		r.Tool("last_order", func(_ specter.Params, _ *specter.Request, c *specter.Context) specter.Result {
			var id string
			_, _ = c.Session().Load("last_order", &id)
			return specter.Reply("last order: " + id)
		}, specter.Description("Reads the session's last order"))
	}, onEvent)
	a := join(t, nodes[0])
	get, err := a.Listen(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Close()
	b := on(t, a, nodes[1])
	if res, _, err := b.CallTool(ctx(t), "follow", map[string]any{"topic": "orders"}); err != nil || res.IsError {
		t.Fatalf("follow through B: %+v %v", res, err)
	}
	if err := nodes[1].r.Publish("orders", map[string]string{"id": "o-42"}); err != nil {
		t.Fatal(err)
	}
	m, _, err := get.Next()
	for err == nil && m.Method == mcp.NotificationToolsChanged { // the nodes' own declarations may still be on their way
		m, _, err = get.Next()
	}
	if err != nil || m.Method != mcp.NotificationResourceUpdated || !strings.Contains(string(m.Params), "app://orders/o-42") {
		t.Fatalf("on A's GET stream: %+v %v", m, err)
	}
	if res, _, err := b.CallTool(ctx(t), "last_order", nil); err != nil || text(t, res) != "last order: o-42" {
		t.Fatalf("the session's data read on B: %+v %v", res, err)
	}
	if err := nodes[0].r.Publish("prices", 1); err != nil { // nobody follows it
		t.Fatal(err)
	}
	// An event published after it reaches A after it; once that one
	// arrived, A's Shutdown waits for every handler A started, one for
	// "prices" included if it wrongly reached the session.
	if err := nodes[0].r.Publish("orders", map[string]string{"id": "o-43"}); err != nil {
		t.Fatal(err)
	}
	m, _, err = get.Next()
	for err == nil && m.Method == mcp.NotificationToolsChanged {
		m, _, err = get.Next()
	}
	if err != nil || !strings.Contains(string(m.Params), "app://orders/o-43") {
		t.Fatalf("the second order on A's GET stream: %+v %v", m, err)
	}
	if err := nodes[0].r.Shutdown(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 2 {
		t.Fatalf("the handler ran %d times, want twice (once per order)", n)
	}
}

// The subscribe hook allows or denies resources/subscribe, and the
// unsubscribe hook runs on resources/unsubscribe and when the session
// ends with subscriptions left.
func TestClusterSubscribeHooks(t *testing.T) {
	redis := redistest.Start(t)
	watching := make(chan string, 8)
	nodes := newCluster(t, redis.URL, 2, nil,
		specter.OnSubscribe(func(c *specter.Context, uri string, _ specter.Params) error {
			if uri == "test://static-binary" {
				return errors.New("binary resources cannot be watched")
			}
			watching <- "start " + uri
			return nil
		}),
		specter.OnUnsubscribe(func(s *specter.Session, uri string) { watching <- "stop " + uri }))
	a := join(t, nodes[0])
	b := on(t, a, nodes[1])
	resp, err := a.Call(ctx(t), "resources/subscribe", map[string]string{"uri": "test://static-binary"})
	if err != nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(resp.Error.Message, "cannot be watched") {
		t.Fatalf("a denied subscription: %+v %v", resp.Error, err)
	}
	for _, uri := range []string{"test://static-text", "test://watched-resource"} {
		if resp, err := a.Call(ctx(t), "resources/subscribe", map[string]string{"uri": uri}); err != nil || resp.Error != nil {
			t.Fatalf("subscribe %s: %+v %v", uri, resp.Error, err)
		}
	}
	if resp, err := b.Call(ctx(t), "resources/unsubscribe", map[string]string{"uri": "test://static-text"}); err != nil || resp.Error != nil {
		t.Fatalf("unsubscribe through B: %+v %v", resp.Error, err)
	}
	if _, err := b.Delete(ctx(t)); err != nil {
		t.Fatal(err)
	}
	want := []string{"start test://static-text", "start test://watched-resource", "stop test://static-text", "stop test://watched-resource"}
	for _, w := range want {
		select {
		case got := <-watching:
			if got != w {
				t.Fatalf("hook %q, want %q", got, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("hook %q never ran", w)
		}
	}
}

// A tool's time limit stops its async work and tells the client; a
// client whose connection drops while work runs is reported.
func TestClusterTimeLimitAndDisconnect(t *testing.T) {
	redis := redistest.Start(t)
	stopped := make(chan error, 1)
	dropped := make(chan string, 1)
	release := make(chan struct{})
	nodes := newCluster(t, redis.URL, 2, func(r *specter.Router) {
		r.Tool("stuck", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				<-s.Done()
				stopped <- s.Err()
				return specter.Reply("too late")
			})
		}, specter.Description("Never finishes on its own"), specter.TimeLimit(150*time.Millisecond))
		r.Tool("hold", func(specter.Params, *specter.Request, *specter.Context) specter.Result {
			return specter.NoReply(func(s *specter.Stream) specter.Result {
				_ = s.Progress(1, 2, "holding") // the answer becomes a stream
				<-release
				return specter.Reply("released")
			})
		}, specter.Description("Runs until released"))
	}, specter.OnDisconnect(func(c *specter.Context) { dropped <- c.Request().Name + " " + c.Session().ID() }))
	a := join(t, nodes[0])

	res, _, err := a.CallTool(ctx(t), "stuck", nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "time limit of 150ms") {
		t.Fatalf("a call past its time limit: %+v %v", res, err)
	}
	if err := <-stopped; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the work's context ended with %v", err)
	}

	callCtx, cancel := context.WithCancel(ctx(t))
	a.OnMessage = func(string, []byte) { cancel() } // drop the connection at the first event
	_, _ = a.Call(callCtx, "tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": 1}})
	select {
	case got := <-dropped:
		if got != "hold "+a.SessionID {
			t.Fatalf("disconnect reported for %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the dropped connection was not reported")
	}
	close(release)
}

// A session whose shared state Redis lost while a client used it ends
// with EndError, told once across the nodes.
func TestClusterLostSessionEndsWithError(t *testing.T) {
	redis := redistest.Start(t)
	ended := make(chan string, 4)
	nodes := newCluster(t, redis.URL, 2, nil, specter.OnTerminate(func(reason string, _ *specter.Session) { ended <- reason }))
	a := join(t, nodes[0])
	b := on(t, a, nodes[1])
	if resp, err := b.Call(ctx(t), "ping", nil); err != nil || resp.Error != nil {
		t.Fatal(err, resp.Error)
	}
	redis.Stop()
	redis.Restart(t) // it kept nothing
	for _, c := range []interface {
		Call(context.Context, string, any) (*mcptest.Response, error)
	}{a, b} {
		waitUntil(t, "the lost session is refused", func() bool {
			resp, _ := c.Call(ctx(t), "ping", nil)
			return resp != nil && resp.Status == http.StatusNotFound
		})
	}
	select {
	case reason := <-ended:
		if reason != specter.EndError {
			t.Fatalf("reason %q, want %q", reason, specter.EndError)
		}
	case <-testCtx(t).Done():
		t.Fatal("OnTerminate was not told by the test's deadline")
	}
	select {
	case reason := <-ended:
		t.Fatalf("told twice: %q", reason)
	case <-time.After(300 * time.Millisecond):
	}
}
