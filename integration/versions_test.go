package integration

import (
	"strings"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/mcptest"
)

// specter.Versions pins what the server offers, over real HTTP.
func TestVersionsPinned(t *testing.T) {
	t.Run("session-era only", func(t *testing.T) {
		e := newEnv(t, fixture.New(quiet, specter.Versions(mcp.Version20250618, mcp.Version20250326)))
		// initialize negotiates among the pinned revisions only.
		res, err := e.client.Initialize(ctx(t), mcp.Version20251125)
		if err != nil || res.ProtocolVersion != mcp.Version20250618 {
			t.Fatalf("initialize 2025-11-25 = %+v, %v; want 2025-06-18", res, err)
		}
		res, err = e.newClient(nil).Initialize(ctx(t), mcp.Version20250326)
		if err != nil || res.ProtocolVersion != mcp.Version20250326 {
			t.Fatalf("initialize 2025-03-26 = %+v, %v", res, err)
		}
		// A 2026-07-28 probe is answered as a session-only server does, so
		// that the client falls back to initialize.
		mc := mcptest.NewStatelessClient(e.srv.URL + "/mcp")
		mc.HTTP = e.srv.Client()
		resp, err := mc.Call(ctx(t), mcp.MethodDiscover, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error == nil || resp.Error.Code == jsonrpc.CodeUnsupportedVersion || resp.Status != 400 {
			t.Errorf("server/discover on a session-only server: HTTP %d %+v", resp.Status, resp.Error)
		}
	})
	t.Run("2026-07-28 only", func(t *testing.T) {
		e := newEnv(t, fixture.New(quiet, specter.Versions(mcp.Version20260728)))
		_, err := e.client.Initialize(ctx(t), mcp.Version20251125)
		if err == nil || !strings.Contains(err.Error(), "Unsupported protocol version") || e.r.Sessions() != 0 {
			t.Fatalf("initialize on a stateless-only server: %v, %d sessions", err, e.r.Sessions())
		}
		mc := mcptest.NewStatelessClient(e.srv.URL + "/mcp")
		mc.HTTP = e.srv.Client()
		resp, err := mc.Call(ctx(t), mcp.MethodDiscover, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d mcp.DiscoverResult
		if err := resp.Decode(&d); err != nil || len(d.SupportedVersions) != 1 || d.SupportedVersions[0] != mcp.Version20260728 {
			t.Fatalf("server/discover = %+v, %v", d, err)
		}
	})
	t.Run("a revision Specter does not speak", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Versions(\"2030-01-01\") did not fail at construction")
			}
		}()
		specter.NewRouter("x", "1", specter.Versions("2030-01-01"))
	})
}
