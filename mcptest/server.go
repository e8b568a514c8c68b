package mcptest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// NewServer serves h on a loopback httptest server, closed when the test
// ends, and returns a session-era client for the MCP endpoint at path
// (such as "/mcp"). h is served as it is, on every path: a whole Echo app
// with its middleware and well-known URLs, or a router's Handler. For a
// 2026-07-28 client of the same endpoint use
// NewStatelessClient(c.URL) with HTTP set to the server's Client().
func NewServer(t testing.TB, h http.Handler, path string) (*httptest.Server, *Client) {
	t.Helper()
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := NewClient(srv.URL + path)
	c.HTTP = srv.Client()
	return srv, c
}
