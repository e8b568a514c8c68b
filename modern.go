package specter

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/specter-mcp/specter/handlers"
	"github.com/specter-mcp/specter/internal/modern"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// HTTP headers of the 2026-07-28 Streamable HTTP transport.
const (
	HeaderMethod      = modern.HeaderMethod
	HeaderName        = modern.HeaderName
	HeaderParamPrefix = modern.HeaderParamPrefix
)

// serveModern serves a 2026-07-28 POST: validation in the order the
// revision prescribes, then connect, then dispatch on the request's own
// response stream.
func (r *Router) serveModern(w http.ResponseWriter, req *http.Request, msgs []*jsonrpc.Message, batch bool) {
	if batch {
		refusal.Write(w, nil, refusal.ModernBatch)
		return
	}
	m := msgs[0]
	switch m.Kind() {
	case jsonrpc.KindNotification:
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResponse, jsonrpc.KindErrorResponse:
		refusal.Write(w, nil, refusal.ModernResponse)
		return
	}
	if e := handlers.CheckParams(m.Params); e != nil {
		refusal.Write(w, m.ID, refusal.BadRequest(e))
		return
	}
	p, call, refused := modern.Read(req.Header, m)
	if refused != nil {
		refusal.Write(w, m.ID, refused)
		return
	}
	c, ok := r.runConnect(w, req, m.ID)
	if !ok {
		return
	}
	if m.Method == mcp.MethodToolsCall {
		if jerr := r.checkParamHeaders(req.Header, c.grant, p.Name, p.Arguments); jerr != nil {
			refusal.Write(w, m.ID, refusal.BadRequest(jerr))
			return
		}
	}
	if m.Method == mcp.MethodSubscriptionsListen {
		r.serveListen(w, req, c, m)
		return
	}
	if modern.TaskMethod(m.Method) {
		r.serveTaskMethod(w, c, m, call, p)
		return
	}
	if _, found := handlers.LookupModern(m.Method); !found {
		refusal.Write(w, m.ID, refusal.MethodNotFound(m.Method))
		return
	}
	ob := r.streams.New(stream.Options{Pending: 1})
	gen := ob.AttachPOST(w)
	r.dispatch(c, nil, ob, m, call)
	if ob.Await(w, req, gen, false) {
		ob.Drop()
	}
}

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
