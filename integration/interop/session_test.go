package interop

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// connect opens a client and closes it at the test's end.
func connect(t *testing.T, tr client.Transport, opts *client.Options) *client.Client {
	t.Helper()
	c, err := client.Connect(ctx(t), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// textOf returns a check of a tool result that returns the text of its
// first content.
func textOf(t *testing.T) func(*mcp.CallToolResult, error) string {
	return func(res *mcp.CallToolResult, err error) string {
		t.Helper()
		return text(t, res, err)
	}
}

func text(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("result %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	return tc.Text
}

// TestSessionRenewedAfter404: a server of the TypeScript SDK ends the
// session (as an idle timeout would) and answers the next request 404
// Session not found. The client must start a new session, as the
// specification says it MUST, and the request goes through on it.
func TestSessionRenewedAfter404(t *testing.T) {
	c := ctx(t)
	srv := serve(t, nil, ours, "session-http")
	// Listening opens the session's GET stream, which the new session
	// gets too.
	cl := connect(t, &client.HTTPTransport{URL: srv.URL()}, &client.Options{OnNotification: func(string, json.RawMessage) {}})
	if cl.Stateless() {
		t.Fatalf("the server speaks %s: the test needs a session", cl.Version())
	}
	if got := textOf(t)(cl.CallTool(c, "expire", nil)); got != "expired" {
		t.Fatalf("expire: %q", got)
	}
	if got := textOf(t)(cl.CallTool(c, "echo", nil)); got != "hello" {
		t.Fatalf("echo after the session ended: %q", got)
	}
	if got := textOf(t)(cl.CallTool(c, "initialized", nil)); got != "2" {
		t.Errorf("%s sessions initialized, want 2", got)
	}
}

// TestHTTPErrors: server-everything restarts and answers the old session
// 400 (a status that asks for no new session); the caller sees the status
// and the JSON-RPC error, and the text says "mcp client" once. Once the
// server is gone for good, the network error reads the same way.
func TestHTTPErrors(t *testing.T) {
	c := ctx(t)
	port := freePort(t)
	srv := serve(t, []string{"PORT=" + port}, everything, "streamableHttp")
	cl := connect(t, &client.HTTPTransport{URL: srv.URL()}, nil)
	if got := textOf(t)(cl.CallTool(c, "echo", map[string]string{"message": "hi"})); got != "Echo: hi" {
		t.Fatalf("echo: %q", got)
	}
	srv.stop()
	srv = serve(t, []string{"PORT=" + port}, everything, "streamableHttp")
	_, err := cl.CallTool(c, "echo", map[string]string{"message": "hi"})
	var he *mcp.HTTPError
	var rpc *jsonrpc.Error
	if !errors.As(err, &he) || he.Status != http.StatusBadRequest || !errors.As(err, &rpc) || rpc.Code != -32000 {
		t.Fatalf("a call in the forgotten session: %v (HTTPError %+v, JSON-RPC error %+v)", err, he, rpc)
	}
	if n := strings.Count(err.Error(), "mcp client"); n != 1 {
		t.Errorf("%q says mcp client %d times", err, n)
	}
	srv.stop()
	_, err = cl.CallTool(c, "echo", map[string]string{"message": "hi"})
	if err == nil || strings.Count(err.Error(), "mcp client") != 1 || strings.Count(err.Error(), srv.URL()) != 1 || !strings.Contains(err.Error(), "tools/call") {
		t.Errorf("a call to a server that is gone: %v", err)
	}
}
