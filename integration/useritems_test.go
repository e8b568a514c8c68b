package integration

import (
	"testing"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcptest"
)

// era is one protocol era's schema-checked client of a router.
type eraClient struct {
	name string
	c    mcptest.Caller
}

// bothEras serves r and returns a 2025-11-25 session client and a
// 2026-07-28 client, each checking every message against its schema.
func bothEras(t *testing.T, r *specter.Router) []eraClient {
	t.Helper()
	e := newEnv(t, r)
	return []eraClient{{"2025-11-25", e.session(nil, "2025-11-25")}, {"2026-07-28", e.stateless()}}
}
