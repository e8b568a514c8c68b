package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
	"github.com/specter-mcp/specter/middleware"
)

// The per-caller quotas and the rate limit count across the nodes of a
// deployment sharing one Redis: a caller spread over three nodes is
// refused where one node would refuse it, not at three times the limit.

// sharedNodes starts n task servers (taskServer: X-User names the
// caller) on the Redis at redisURL, under one key prefix: the nodes of
// one deployment.
func sharedNodes(t *testing.T, redisURL string, n int, opts ...specter.RouterOption) []*httptest.Server {
	t.Helper()
	prefix := fmt.Sprintf("q%d", clusterPrefix.Add(1))
	srvs := make([]*httptest.Server, n)
	for i := range srvs {
		bp, err := redisbp.New(context.Background(), redisURL, redisbp.Prefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = bp.Close() })
		srvs[i] = taskServer(t, append([]specter.RouterOption{specter.Backplane(bp), specter.StateKey([]byte("shared limits"))}, opts...)...)
	}
	return srvs
}

// refusedStream checks that err is a GET stream refused with a 429
// naming limit.
func refusedStream(t *testing.T, what string, err error, limit string) {
	t.Helper()
	se, ok := err.(*mcptest.StatusError)
	if !ok {
		t.Fatalf("%s: %v, want a refusal", what, err)
	}
	m, _ := decodeMessage(se.Body)
	if m == nil {
		t.Fatalf("%s: HTTP %d %s", what, se.Status, se.Body)
	}
	wantRefused(t, what, se.Status, m.Error, limit)
}

// A caller's sessions count on every node: with a limit of 3, one
// session on each of three nodes leaves no room on any, another caller
// is not held back, and a session deleted through any node frees a slot.
func TestSharedSessionsPerPrincipal(t *testing.T) {
	sharedSessions(t, redistest.Start(t).URL)
}

// The same on a 6-node Redis Cluster, where a caller's sessions live on
// other slots than the set that counts them.
func TestSharedSessionsPerPrincipalCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 6-node Redis Cluster")
	}
	sharedSessions(t, redistest.StartCluster(t).URL)
}

func sharedSessions(t *testing.T, redisURL string) {
	nodes := sharedNodes(t, redisURL, 3, specter.MaxSessionsPerPrincipal(3))
	var first *mcptest.Client
	for i, n := range nodes {
		c := quotaClient(n, "X-User", "alice")
		if resp := initialize(t, c); resp.Status != http.StatusOK {
			t.Fatalf("initialize on node %d: HTTP %d %s", i, resp.Status, resp.Body)
		}
		if i == 0 {
			first = c
		}
	}
	for i, n := range nodes {
		resp := initialize(t, quotaClient(n, "X-User", "alice"))
		wantRefused(t, fmt.Sprintf("a 4th session, on node %d", i), resp.Status, resp.Error, "3 sessions")
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatal("a refused initialize named a session")
		}
	}
	if resp := initialize(t, quotaClient(nodes[1], "X-User", "bob")); resp.Status != http.StatusOK {
		t.Fatalf("bob's initialize: HTTP %d %s", resp.Status, resp.Body)
	}
	// The session made on node 0, deleted through node 2.
	del := first.At(nodes[2].URL)
	del.HTTP = nodes[2].Client()
	if status, err := del.Delete(ctx(t)); err != nil || status != http.StatusNoContent {
		t.Fatalf("DELETE through node 2: %d %v", status, err)
	}
	c := quotaClient(nodes[1], "X-User", "alice")
	if resp := initialize(t, c); resp.Status != http.StatusOK {
		t.Fatalf("initialize on node 1 after a DELETE on node 2: HTTP %d %s", resp.Status, resp.Body)
	}
	if resp := initialize(t, quotaClient(nodes[0], "X-User", "alice")); resp.Status != http.StatusTooManyRequests {
		t.Fatalf("a 4th session again: HTTP %d, want 429", resp.Status)
	}
}

// A caller's GET streams count on every node, and a stream that closes
// on one node frees a slot on another.
func TestSharedStreamsPerPrincipal(t *testing.T) {
	redis := redistest.Start(t)
	nodes := sharedNodes(t, redis.URL, 3, specter.MaxStreamsPerPrincipal(2))
	var streams []*mcptest.Stream
	defer func() {
		for _, s := range streams {
			s.Close()
		}
	}()
	for i := range 2 {
		c := quotaClient(nodes[i], "X-User", "alice")
		initialize(t, c)
		s, err := c.Listen(ctx(t), "")
		if err != nil {
			t.Fatalf("GET stream on node %d: %v", i, err)
		}
		streams = append(streams, s)
	}
	c := quotaClient(nodes[2], "X-User", "alice")
	initialize(t, c)
	_, err := c.Listen(ctx(t), "")
	refusedStream(t, "a 3rd GET stream, on node 2", err, "2 GET streams")
	streams[0].Close()
	eventually(t, "a GET stream opens on node 2 after one closed on node 0", func() bool {
		s, err := c.Listen(ctx(t), "")
		if err == nil {
			streams[0] = s
		}
		return err == nil
	})
}

// A caller's subscriptions/listen streams (2026-07-28) count on every
// node.
func TestSharedListenersPerPrincipal(t *testing.T) {
	redis := redistest.Start(t)
	nodes := sharedNodes(t, redis.URL, 3, specter.MaxListenersPerPrincipal(2))
	filter := mcp.SubscriptionFilter{ToolsListChanged: true}
	var subs []*mcptest.Subscription
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	for i := range 2 {
		s, err := taskClient(nodes[i], "alice").Listen(ctx(t), filter)
		if err != nil {
			t.Fatalf("listen on node %d: %v", i, err)
		}
		subs = append(subs, s)
	}
	alice := taskClient(nodes[2], "alice")
	resp, err := alice.Send(ctx(t), alice.Request(mcp.MethodSubscriptionsListen, map[string]any{"notifications": filter}))
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "a 3rd listen, on node 2", resp.Status, resp.Error, "2 subscriptions/listen streams")
	s, err := taskClient(nodes[2], "bob").Listen(ctx(t), filter)
	if err != nil {
		t.Fatalf("bob's listen: %v", err)
	}
	subs = append(subs, s)
}

// A caller's tasks count on every node: the next task-augmented call, on
// any node, is refused naming the limit.
func TestSharedTasksPerPrincipal(t *testing.T) {
	redis := redistest.Start(t)
	nodes := sharedNodes(t, redis.URL, 3, specter.MaxTasksPerPrincipal(2))
	big := map[string]any{"name": "big", "arguments": map[string]any{"size": 1}}
	for i := range 2 {
		if s, e := callState(t, taskClient(nodes[i], "alice"), mcp.MethodToolsCall, big); e != nil || s.TaskID == "" {
			t.Fatalf("task on node %d: %+v %v", i, s, e)
		}
	}
	_, e := callState(t, taskClient(nodes[2], "alice"), mcp.MethodToolsCall, big)
	if e == nil || e.Code != -32000 || !strings.Contains(e.Message, "2 tasks") {
		t.Errorf("a 3rd task, on node 2: %v; want -32000 naming the limit of 2", e)
	}
	if s, e := callState(t, taskClient(nodes[2], "bob"), mcp.MethodToolsCall, big); e != nil || s.TaskID == "" {
		t.Errorf("another caller's task: %+v %v", s, e)
	}
}

// A rate limit on a RateStore is one bucket for every node: with a burst
// of 3, the 4th request is refused on whichever node it reaches, and the
// requests of a JSON-RPC batch take their tokens from that bucket too.
func TestSharedRateLimit(t *testing.T) {
	redis := redistest.Start(t)
	nodes := newCluster(t, redis.URL, 3, nil)
	store, err := redisbp.New(context.Background(), redis.URL, redisbp.Prefix(fmt.Sprintf("rl%d", clusterPrefix.Add(1))))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	limit := middleware.RateLimitWithConfig(middleware.RateLimitConfig{Rate: 0.001, Burst: 3, Store: store.RateStore(),
		Key: func(r *http.Request) string { return r.Header.Get("X-User") }})
	srvs := make([]*httptest.Server, len(nodes))
	for i, n := range nodes {
		srvs[i] = httptest.NewServer(limit(n.r.Handler()))
		defer srvs[i].Close()
	}
	list := func(i int, user string) *mcptest.Response {
		t.Helper()
		c := mcptest.NewStatelessClient(srvs[i].URL)
		c.HTTP = srvs[i].Client()
		c.Header.Set("X-User", user)
		resp, err := c.Call(ctx(t), mcp.MethodToolsList, nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for i := range 3 {
		if resp := list(i, "alice"); resp.Status != http.StatusOK {
			t.Fatalf("request %d, on node %d: HTTP %d %s", i+1, i, resp.Status, resp.Body)
		}
	}
	for i := range 3 {
		if resp := list(i, "alice"); resp.Status != http.StatusTooManyRequests {
			t.Errorf("a 4th request, on node %d: HTTP %d, want 429", i, resp.Status)
		}
	}

	// bob opens a 2025-03-26 session on node 0 (a token), sends a batch
	// of three pings on node 1 (one token for the HTTP request, one for
	// its second ping, none left for the third) and is refused on node 2.
	bob := quotaClient(srvs[0], "X-User", "bob")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
	resp, err := bob.PostRaw(ctx(t), []byte(body), jsonrpc.ID(`1`))
	if err != nil || resp.Status != http.StatusOK {
		t.Fatalf("bob's initialize: %v %+v", err, resp)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`
	req, _ := http.NewRequestWithContext(ctx(t), http.MethodPost, srvs[1].URL, strings.NewReader(batch))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	req.Header.Set("X-User", "bob")
	hr, err := srvs[1].Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(hr.Body)
	hr.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if hr.StatusCode != http.StatusOK || strings.Count(string(raw), `"result":{}`) != 2 || !strings.Contains(string(raw), "rate limit exceeded") {
		t.Errorf("bob's batch of 3 with 2 tokens left: HTTP %d %s; want two answers and one refusal", hr.StatusCode, raw)
	}
	if resp := list(2, "bob"); resp.Status != http.StatusTooManyRequests {
		t.Errorf("bob's request after the batch, on node 2: HTTP %d, want 429", resp.Status)
	}
}

// While Redis is down a shared rate limit lets requests through by
// default and refuses them with 503 under FailClosed; once Redis is back
// it counts again.
func TestSharedRateLimitRedisDown(t *testing.T) {
	redis := redistest.Start(t)
	bp, err := redisbp.New(context.Background(), redis.URL, redisbp.Prefix("down"))
	if err != nil {
		t.Fatal(err)
	}
	defer bp.Close()
	r := specter.NewRouter("limited", "1.0.0", quiet)
	defer r.Shutdown(context.Background())
	key := func(r *http.Request) string { return r.Header.Get("X-User") }
	nop := zerolog.Nop()
	open := httptest.NewServer(middleware.RateLimitWithConfig(middleware.RateLimitConfig{Rate: 0.001, Burst: 1,
		Store: bp.RateStore(), Key: key, Logger: &nop})(r.Handler()))
	defer open.Close()
	closed := httptest.NewServer(middleware.RateLimitWithConfig(middleware.RateLimitConfig{Rate: 0.001, Burst: 1,
		Store: bp.RateStore(), Key: key, Logger: &nop, FailClosed: true})(r.Handler()))
	defer closed.Close()
	list := func(srv *httptest.Server) int {
		t.Helper()
		c := mcptest.NewStatelessClient(srv.URL)
		c.HTTP = srv.Client()
		c.Header.Set("X-User", "alice")
		resp, err := c.Call(ctx(t), mcp.MethodToolsList, nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Status
	}
	if got := []int{list(open), list(open)}; got[0] != 200 || got[1] != 429 {
		t.Fatalf("with Redis up: %v, want [200 429]", got)
	}
	redis.Stop()
	if got := []int{list(open), list(open), list(closed)}; got[0] != 200 || got[1] != 200 || got[2] != 503 {
		t.Errorf("with Redis down: %v, want [200 200] failing open and 503 failing closed", got)
	}
	redis.Restart(t) // empty: it kept nothing on disk
	eventually(t, "Redis answers the limit again", func() bool { return list(closed) != http.StatusServiceUnavailable })
	if got := list(open); got != http.StatusTooManyRequests {
		t.Errorf("after the restart, the bucket just taken: %d, want 429", got)
	}
}
