package integration

import "github.com/specter-mcp/specter/mcptest"

// testCtx returns a context that ends with the test, or shortly before
// the test binary's deadline; waitUntil (or eventually, its older name)
// polls a condition until it holds or that deadline comes (see
// mcptest.Context, mcptest.WaitUntil).
var (
	testCtx    = mcptest.Context
	waitUntil  = mcptest.WaitUntil
	eventually = mcptest.WaitUntil
)
