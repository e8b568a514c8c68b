package specter

import (
	"time"

	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderMethod      = stateless.HeaderMethod
	HeaderName        = stateless.HeaderName
	HeaderParamPrefix = stateless.HeaderParamPrefix
)

// decorate adds what the 2026-07-28 revision puts on results, with the
// caching hint of the router or of the resource read.
func (x *exchange) decorate(result any) {
	base := stateless.Decorate(result, x.r.info, x.c.req.Method)
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
	stateless.Cache(base, hint.ttl, hint.visibility, x.c.grant.filtered() || x.c.grant.principal != "" || x.hid)
}

// cacheHint is how long and by whom a result may be cached.
type cacheHint struct {
	ttl        time.Duration
	visibility string // mcp.CachePublic or mcp.CachePrivate (the wire's cacheScope)
}
