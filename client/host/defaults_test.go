package host_test

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/client/host"
	"github.com/specter-mcp/specter/mcp"
)

// TestHostDefaults: the Host's Info, Version and Roots reach every server
// whose own Options leave them unset, and only those.
func TestHostDefaults(t *testing.T) {
	ctx := t.Context()
	r := specter.NewRouter("who", "1.0.0", specter.Logger(zerolog.Nop()))
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	r.Tool("who", func(_ specter.Params, req *specter.Request, c *specter.Context) specter.Result {
		roots, err := c.ListRoots()
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(req.ClientInfo.Name + " " + req.Version + " " + roots[0].Name)
	}, specter.Description("Says who calls"))
	hostRoots := func(context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///host", Name: "host-root"}}, nil
	}
	ownRoots := func(context.Context) ([]mcp.Root, error) {
		return []mcp.Root{{URI: "file:///own", Name: "own-root"}}, nil
	}
	h, err := host.New(ctx, []host.Server{
		{Name: "plain", Transport: client.InMemory(r.Handler())},
		{Name: "own", Transport: client.InMemory(r.Handler()), Options: &client.Options{
			Info: mcp.Implementation{Name: "own-client", Version: "2"}, Version: mcp.Version20251125, Roots: ownRoots,
		}},
	}, &host.Options{Info: mcp.Implementation{Name: "host-client", Version: "1"}, Version: mcp.Version20250618, Roots: hostRoots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	for server, want := range map[string]string{
		"plain": "host-client 2025-06-18 host-root",
		"own":   "own-client 2025-11-25 own-root",
	} {
		if got := text(t)(h.CallTool(ctx, server+".who", nil)); got != want {
			t.Errorf("%s.who = %q, want %q", server, got, want)
		}
	}
}
