package integration

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// quotaServer serves a router whose callers are named by X-User; without
// it a caller is anonymous and counted by its address, which X-Peer
// stands in for.
func quotaServer(t *testing.T, opts ...specter.RouterOption) (*specter.Router, *httptest.Server) {
	t.Helper()
	r := specter.NewRouter("quotas", "1.0.0", append([]specter.RouterOption{quiet}, opts...)...)
	r.Connect(func(c *specter.Context) error {
		c.SetPrincipal(c.HTTPRequest().Header.Get("X-User"))
		return nil
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if peer := req.Header.Get("X-Peer"); peer != "" {
			req.RemoteAddr = peer
		}
		r.ServeHTTP(w, req)
	}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		srv.Close()
	})
	return r, srv
}

// quotaClient is a session-era client of srv sending header: value.
func quotaClient(srv *httptest.Server, header, value string) *mcptest.Client {
	c := mcptest.NewClient(srv.URL)
	c.HTTP = srv.Client()
	if value != "" {
		c.Header.Set(header, value)
	}
	return c
}

// initialize sends initialize and returns the raw answer; on success the
// client holds the new session.
func initialize(t *testing.T, c *mcptest.Client) *mcptest.Response {
	t.Helper()
	c.SessionID, c.Version = "", ""
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"caps","version":"1"}}}`
	resp, err := c.PostRaw(ctx(t), []byte(body), jsonrpc.ID(`1`))
	if err != nil {
		t.Fatal(err)
	}
	c.SessionID = resp.Header.Get("Mcp-Session-Id")
	c.Version = "2025-11-25"
	return resp
}

// wantRefused checks a 429 whose JSON-RPC error names the limit.
func wantRefused(t *testing.T, what string, status int, e *jsonrpc.Error, limit string) {
	t.Helper()
	if status != http.StatusTooManyRequests || e == nil || e.Code != -32000 || !strings.Contains(e.Message, limit) {
		t.Fatalf("%s: HTTP %d %+v; want 429 naming %q", what, status, e, limit)
	}
}

// One principal cannot take every session: the 101st initialize is
// refused while another principal still gets one, and ending a session
// frees its slot.
func TestSessionsPerPrincipal(t *testing.T) {
	r, srv := quotaServer(t) // the default: 100
	alice := quotaClient(srv, "X-User", "alice")
	var first string
	for i := range 100 {
		if resp := initialize(t, alice); resp.Status != http.StatusOK || alice.SessionID == "" {
			t.Fatalf("initialize %d: HTTP %d %s", i+1, resp.Status, resp.Body)
		}
		if i == 0 {
			first = alice.SessionID
		}
	}
	resp := initialize(t, alice)
	wantRefused(t, "the 101st initialize", resp.Status, resp.Error, "100 sessions")
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatal("a refused initialize named a session")
	}
	bob := quotaClient(srv, "X-User", "bob")
	if resp := initialize(t, bob); resp.Status != http.StatusOK {
		t.Fatalf("bob's initialize: HTTP %d %s", resp.Status, resp.Body)
	}
	if n := r.Sessions(); n != 101 {
		t.Fatalf("%d sessions, want 101", n)
	}
	alice.SessionID = first
	if status, err := alice.Delete(ctx(t)); err != nil || status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %v", status, err)
	}
	if resp := initialize(t, alice); resp.Status != http.StatusOK {
		t.Fatalf("initialize after a DELETE: HTTP %d %s", resp.Status, resp.Body)
	}
}

// Anonymous callers are counted by address: one address at its limit
// does not hold back another, nor a named caller.
func TestAnonymousSessionsPerAddress(t *testing.T) {
	_, srv := quotaServer(t, specter.MaxSessionsPerPrincipal(2))
	tests := []struct {
		name, header, value string
		want                []int
	}{
		{"first address", "X-Peer", "192.0.2.1:1000", []int{200, 200, 429}},
		{"same address, another port", "X-Peer", "192.0.2.1:2000", []int{429}},
		{"another address", "X-Peer", "192.0.2.2:1000", []int{200, 200, 429}},
		{"an IPv6 client", "X-Peer", "[2001:db8::1]:1000", []int{200, 200}},
		{"the same /64", "X-Peer", "[2001:db8::2]:1000", []int{429}},
		{"a principal named like an address", "X-User", "ip:192.0.2.1", []int{200}},
	}
	for _, tt := range tests {
		c := quotaClient(srv, tt.header, tt.value)
		for i, want := range tt.want {
			if resp := initialize(t, c); resp.Status != want {
				t.Errorf("%s: initialize %d: HTTP %d, want %d", tt.name, i+1, resp.Status, want)
			}
		}
	}
}

// A principal's session-era GET streams are capped across its sessions.
func TestStreamsPerPrincipal(t *testing.T) {
	_, srv := quotaServer(t, specter.MaxStreamsPerPrincipal(2))
	var streams []*mcptest.Stream
	for i := range 3 {
		c := quotaClient(srv, "X-User", "alice")
		if resp := initialize(t, c); resp.Status != http.StatusOK {
			t.Fatalf("initialize: HTTP %d", resp.Status)
		}
		s, err := c.Listen(ctx(t), "")
		if i < 2 {
			if err != nil {
				t.Fatalf("GET stream %d: %v", i+1, err)
			}
			streams = append(streams, s)
			continue
		}
		se, ok := err.(*mcptest.StatusError)
		if !ok {
			t.Fatalf("the third GET stream: %v", err)
		}
		var e *jsonrpc.Message
		e, _ = decodeMessage(se.Body)
		wantRefused(t, "the third GET stream", se.Status, e.Error, "2 GET streams")
		bob := quotaClient(srv, "X-User", "bob")
		initialize(t, bob)
		bs, err := bob.Listen(ctx(t), "")
		if err != nil {
			t.Fatalf("bob's GET stream: %v", err)
		}
		defer bs.Close()
		streams[0].Close()
		eventually(t, "a GET stream opens after another closed", func() bool {
			s, err := c.Listen(ctx(t), "")
			if err == nil {
				streams[0] = s
			}
			return err == nil
		})
	}
	for _, s := range streams {
		s.Close()
	}
}

// A principal's subscriptions/listen streams (2026-07-28) are capped.
func TestListenersPerPrincipal(t *testing.T) {
	r, srv := quotaServer(t) // the default: 16
	client := func(user string) *mcptest.StatelessClient {
		c := mcptest.NewStatelessClient(srv.URL)
		c.HTTP = srv.Client()
		c.Header.Set("X-User", user)
		return c
	}
	filter := mcp.SubscriptionFilter{ToolsListChanged: true}
	alice := client("alice")
	var subs []*mcptest.Subscription
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	for i := range 16 {
		s, err := alice.Listen(ctx(t), filter)
		if err != nil {
			t.Fatalf("listen %d: %v", i+1, err)
		}
		subs = append(subs, s)
	}
	resp, err := alice.Send(ctx(t), alice.Request(mcp.MethodSubscriptionsListen, map[string]any{"notifications": filter}))
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "the 17th listen", resp.Status, resp.Error, "16 subscriptions/listen streams")
	bs, err := client("bob").Listen(ctx(t), filter)
	if err != nil {
		t.Fatalf("bob's listen: %v", err)
	}
	subs = append(subs, bs)
	if n := r.Listeners(); n != 17 {
		t.Fatalf("%d listeners, want 17", n)
	}
	subs[0].Close()
	eventually(t, "a listen opens after another closed", func() bool {
		s, err := alice.Listen(ctx(t), filter)
		if err == nil {
			subs[0] = s
		}
		return err == nil
	})
}

func decodeMessage(b []byte) (*jsonrpc.Message, error) {
	msgs, _, err := jsonrpc.Parse(b)
	if err != nil {
		return &jsonrpc.Message{}, err
	}
	return msgs[0], nil
}
