package mcptest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/specter-mcp/specter/client"
)

// Connect returns a full MCP client (package client) of the MCP endpoint h
// serves, in process: no port, the era negotiated as a real client would
// (opts.Version pins one), server requests answered by opts' handlers. It
// is closed when the test ends. Use it to test an app as its users' clients
// see it; use Client and StatelessClient to control the wire itself.
func Connect(t testing.TB, h http.Handler, opts *client.Options) *client.Client {
	t.Helper()
	c, err := client.Connect(context.Background(), client.InMemory(h), opts)
	if err != nil {
		t.Fatalf("mcptest: connect: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("mcptest: close: %v", err)
		}
	})
	return c
}
