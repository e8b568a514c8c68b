package mcptest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// NewServer serves h (a router's Handler) at /mcp on a loopback httptest
// server, closed when the test ends, and returns a client for it.
func NewServer(t testing.TB, h http.Handler) (*httptest.Server, *Client) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := NewClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	return srv, c
}
