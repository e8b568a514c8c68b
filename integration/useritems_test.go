package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcptest"
)

// eraClient is one protocol era's schema-checked client of a router.
type eraClient struct {
	name string
	c    mcptest.Caller
	// call sends any request; header is added to the client's own.
	call func(ctx context.Context, method string, params map[string]any) (*mcptest.Response, error)
	// header is sent with every request of c and call.
	header http.Header
}

// bothEras serves r and returns a 2025-11-25 session client and a
// 2026-07-28 client, each checking every message against its schema.
// header, when given, goes with every request, initialize included.
func bothEras(t *testing.T, r *specter.Router, header ...http.Header) []eraClient {
	t.Helper()
	e := newEnv(t, r)
	h := http.Header{}
	if len(header) > 0 {
		h = header[0]
	}
	sc := e.newClient(nil)
	sc.Header = h.Clone()
	e.session(sc, "2025-11-25")
	st := e.stateless()
	st.Header = h.Clone()
	return []eraClient{
		{name: "2025-11-25", c: sc, header: sc.Header, call: func(ctx context.Context, method string, params map[string]any) (*mcptest.Response, error) {
			return sc.Call(ctx, method, params)
		}},
		{name: "2026-07-28", c: st, header: st.Header, call: func(ctx context.Context, method string, params map[string]any) (*mcptest.Response, error) {
			return st.Send(ctx, st.Request(method, params))
		}},
	}
}
