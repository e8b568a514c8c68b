package specter

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/specter-mcp/specter/internal/modern"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderMethod      = modern.HeaderMethod
	HeaderName        = modern.HeaderName
	HeaderParamPrefix = modern.HeaderParamPrefix
)

// checkParamHeaders verifies the Mcp-Param-* headers of a tool whose
// params are mirrored into headers (x-mcp-header): each present value
// must be sent, and match.
func (r *Router) checkParamHeaders(h http.Header, sc *grant, tool string, args json.RawMessage) *jsonrpc.Error {
	d := r.catalog.Load().ByTool[tool]
	if d == nil || len(d.headers) == 0 || !sc.allowsTool(tool) {
		return nil
	}
	return modern.CheckParams(h, d.headers, args)
}

// decorate adds what the 2026-07-28 revision puts on results, with the
// caching hint of the router or of the resource read.
func (x *exchange) decorate(result any) {
	base := modern.Decorate(result, x.r.info, x.c.req.Method)
	if base == nil {
		return
	}
	hint := x.r.cfg.cache
	if m := x.c.req.Method; m == mcp.MethodResourcesRead || m == mcp.MethodSkillsGet {
		if d, _ := x.cat.ResourceFor(x.c.req.Name); d != nil && d.cache != nil {
			hint = *d.cache
		}
	}
	// What this caller sees depends on who it is.
	modern.Cache(base, hint.ttl, hint.visibility, x.c.grant.filtered() || x.c.grant.principal != "" || x.hid)
}

// cacheHint is how long and by whom a result may be cached.
type cacheHint struct {
	ttl        time.Duration
	visibility string // mcp.CachePublic or mcp.CachePrivate (the wire's cacheScope)
}
