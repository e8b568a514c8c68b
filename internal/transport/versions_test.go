package transport

import (
	"slices"
	"testing"

	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

func TestPinVersions(t *testing.T) {
	v, err := PinVersions(mcp.Version20250326, mcp.Version20260728, mcp.Version20251125)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first, whatever the order given.
	if !slices.Equal(v.Session, []string{mcp.Version20251125, mcp.Version20250326}) || !slices.Equal(v.Stateless, []string{mcp.Version20260728}) {
		t.Fatalf("PinVersions = %+v", v)
	}
	if got, e := v.Negotiate(mcp.Version20250618); e != nil || got != mcp.Version20251125 {
		t.Errorf("Negotiate(2025-06-18) = %q, %v; want the newest pinned", got, e)
	}
	if len(AllVersions().Session) != len(mcp.SessionVersions) || &v.Session[0] == &mcp.SessionVersions[0] {
		t.Error("pinning changed or shares the list of every revision")
	}
	for _, bad := range [][]string{nil, {"2030-01-01"}, {mcp.Version20251125, "latest"}} {
		if _, err := PinVersions(bad...); err == nil {
			t.Errorf("PinVersions(%q) did not fail", bad)
		}
	}
	stateless, _ := PinVersions(mcp.Version20260728)
	if _, e := stateless.Negotiate(mcp.Version20251125); e == nil || e.RPC.Code != jsonrpc.CodeInvalidParams || e.Status != 400 {
		t.Errorf("Negotiate with no session-era revision: %v", e)
	}
}
