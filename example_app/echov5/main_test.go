package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestGreetThroughEchoV5InBothEras(t *testing.T) {
	e, r := newApp(zerolog.New(zerolog.NewTestWriter(t)))
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })

	c := mcptest.NewClient(srv.URL + "/mcp")
	c.HTTP = srv.Client()
	c.Header.Set("X-Tenant", "acme")
	if _, err := c.Initialize(context.Background(), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	res, _, err := c.CallTool(context.Background(), "greet", map[string]any{"name": "Ada"})
	if err != nil || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "Hello, Ada, from acme!" {
		t.Fatalf("session: %+v %v", res, err)
	}

	m := mcptest.NewStatelessClient(srv.URL + "/mcp")
	m.HTTP = srv.Client()
	res, _, err = m.CallTool(context.Background(), "greet", map[string]any{"name": "Ada"})
	if err != nil || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "Hello, Ada, from the default tenant!" {
		t.Fatalf("2026-07-28: %+v %v", res, err)
	}
}
