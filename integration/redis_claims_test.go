package integration

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/backplane/redisbp"
	"github.com/specter-mcp/specter/backplane/redisbp/redistest"
	"github.com/specter-mcp/specter/integration/conformance/fixture"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcptest"
)

// deaf is a node's backplane that hears none of the other nodes' changes
// to a session's fields (backplane.KindField, KindMember), as a node
// whose subscription lags behind or lost them while it reconnected.
type deaf struct{ backplane.Backplane }

func (d deaf) Subscribe(handle func(*backplane.Message)) (func(), error) {
	return d.Backplane.Subscribe(func(m *backplane.Message) {
		if m.Kind != backplane.KindField && m.Kind != backplane.KindMember {
			handle(m)
		}
	})
}

// redisNode serves the fixture, with declare's tools, on the Redis at
// url, its backplane wrapped by wrap (nil: as it is).
func redisNode(t *testing.T, url, prefix string, declare func(*specter.Router), wrap func(backplane.Backplane) backplane.Backplane) (*specter.Router, *httptest.Server) {
	t.Helper()
	bp, err := redisbp.New(context.Background(), url, redisbp.Prefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	var b backplane.Backplane = bp
	if wrap != nil {
		b = wrap(bp)
	}
	r := fixture.New(quiet, specter.Backplane(b), specter.StateKey([]byte("claims")))
	if declare != nil {
		declare(r)
	}
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(func() {
		_ = r.Shutdown(context.Background())
		srv.Close()
		_ = bp.Close()
	})
	return r, srv
}

// TestRedisCallsSeeOtherNodesChanges: a request reads the session back
// only when another node changed it, which it learns from the session's
// revision, not from the other node's message: session data and the log
// level set through one node hold at once on a node that never hears of
// the change.
func TestRedisCallsSeeOtherNodesChanges(t *testing.T) {
	rs := redistest.Start(t)
	prefix := fmt.Sprintf("seen%d", time.Now().UnixNano())
	_, a := redisNode(t, rs.URL, prefix, shop, nil)
	_, b := redisNode(t, rs.URL, prefix, shop, func(bp backplane.Backplane) backplane.Backplane { return deaf{bp} })
	ca := mcptest.NewClient(a.URL)
	ca.HTTP = a.Client()
	if _, err := ca.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	cb := ca.At(b.URL)
	cb.HTTP = b.Client()
	for i, c := range []*mcptest.Client{cb, ca, cb, ca, cb} {
		res, _, err := c.CallTool(ctx(t), "add_item", nil)
		if err != nil || !strings.Contains(string(res.StructuredContent), fmt.Sprintf(`"items":%d`, i+1)) {
			t.Fatalf("call %d: %s %v, want %d items", i, res.StructuredContent, err, i+1)
		}
	}
	if _, err := ca.Call(ctx(t), "logging/setLevel", map[string]string{"level": "error"}); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := cb.CallTool(ctx(t), "test_tool_with_logging", nil); err != nil || len(resp.Notifications) != 0 {
		t.Errorf("B ignored the log level set through A: %d messages, %v", len(resp.Notifications), err)
	}
}

// TestRedisRequestIDFreeOnceNodeLetsGo: a node keeps the claims of the
// requests that ended on it for a while, so that a request of the same
// id there takes its claim over without a call; when the node lets go of
// the session (here, as it shuts down) it gives them back, and another
// node takes the same id at once.
func TestRedisRequestIDFreeOnceNodeLetsGo(t *testing.T) {
	rs := redistest.Start(t)
	prefix := fmt.Sprintf("free%d", time.Now().UnixNano())
	ra, a := redisNode(t, rs.URL, prefix, nil, nil)
	_, b := redisNode(t, rs.URL, prefix, nil, nil)
	ca := mcptest.NewClient(a.URL)
	ca.HTTP = a.Client()
	if _, err := ca.Initialize(ctx(t), "2025-11-25"); err != nil {
		t.Fatal(err)
	}
	call := func(c *mcptest.Client, what string) {
		t.Helper()
		resp, err := c.CallID(ctx(t), jsonrpc.IntID(7), "tools/call", map[string]any{"name": "test_simple_text"})
		if err != nil || resp.Error != nil {
			t.Fatalf("%s: %v %v", what, resp.Error, err)
		}
	}
	call(ca, "id 7 on A")
	call(ca, "id 7 again on A")
	if err := ra.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	cb := ca.At(b.URL)
	cb.HTTP = b.Client()
	call(cb, "id 7 on B once A let go")
}
