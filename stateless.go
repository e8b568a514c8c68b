package specter

import (
	"time"

	"github.com/specter-mcp/specter/internal/stateless"
)

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderMethod      = stateless.HeaderMethod
	HeaderName        = stateless.HeaderName
	HeaderParamPrefix = stateless.HeaderParamPrefix
)

// cacheHint is how long and by whom a result may be cached.
type cacheHint struct {
	ttl        time.Duration
	visibility string // mcp.CachePublic or mcp.CachePrivate (the wire's cacheScope)
}
