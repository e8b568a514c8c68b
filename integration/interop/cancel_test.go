package interop

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/specter-mcp/specter/client"
	"github.com/specter-mcp/specter/mcp"
)

// TestCancelStateless: a 2026-07-28 call over stdio that the caller gives
// up on must be cancelled at the server, with notifications/cancelled
// (stdio has no stream to close). The TypeScript SDK v2 server's tool
// works until cancelled, and counts.
func TestCancelStateless(t *testing.T) {
	c := ctx(t)
	cl := connect(t, stdio(t, nil, ours, "v2-stdio"), nil)
	if cl.Version() != mcp.Version20260728 {
		t.Fatalf("the server speaks %s: the test needs 2026-07-28", cl.Version())
	}
	call, cancel := context.WithCancel(c)
	_, err := cl.CallTool(call, "block", nil, client.WithProgress(func(mcp.ProgressParams) { cancel() }))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	res, err := cl.CallTool(c, "stats", nil)
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ Started, Cancelled int }
	if err := json.Unmarshal(res.StructuredContent, &stats); err != nil || stats.Started != 1 || stats.Cancelled != 1 {
		t.Errorf("the server saw %s, want the call started and cancelled (%v)", res.StructuredContent, err)
	}
}
