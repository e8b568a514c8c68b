package specter

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/internal/refusal"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/internal/task"
	"github.com/specter-mcp/specter/internal/transport"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/principal"
)

// HTTP headers of the Streamable HTTP transport.
const (
	HeaderSessionID       = transport.HeaderSessionID
	HeaderProtocolVersion = transport.HeaderProtocolVersion
)

// host is the router as the transport's Host: a connect result is a
// *Context, and its grant what sessions and listeners keep.
type host struct{ r *Router }

func (host) Principal(c *Context) string { return c.grant.principal }

func (host) Grant(c *Context) any { return c.grant }

func (h host) Dispatch(c *Context, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message, call *stateless.Call) {
	h.r.dispatch(c, sess, ob, m, call)
}

// Refuse answers m with e as its own outcome, with the connection's
// caller and grants and m's own fields.
func (h host) Refuse(conn *Context, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message, e *jsonrpc.Error) {
	c := *conn
	c.req, c.sess = newRequest(m, sess, nil), sess
	x := &exchange{r: h.r, c: &c, sess: sess, ob: ob, start: time.Now()}
	x.respond(methods.Failed(e), false)
}

// StartSession runs OnSessionStart; an error ends the session.
func (h host) StartSession(c *Context, s *session.Session) (*mcp.InitializeResult, error) {
	r := h.r
	if r.onStart != nil {
		if err := r.onStart(c, &Session{s: s}); err != nil {
			r.report(c.ctx, fmt.Errorf("session start: %w", err), nil)
			_ = r.cluster.End(s, EndError)
			return nil, err
		}
	}
	caps := methods.Capabilities()
	cat := r.catalog.Load()
	if s.Version() >= mcp.Version20251125 && hasTaskTools(cat) {
		caps.Tasks = task.Capability
	}
	caps.Extensions = r.extensions(cat, false)
	return &mcp.InitializeResult{ProtocolVersion: s.Version(), Capabilities: caps, ServerInfo: r.info, Instructions: r.instructionsFor(c.grant)}, nil
}

// CheckParamHeaders verifies the Mcp-Param-* headers of a tool whose
// params are mirrored into headers (x-mcp-header): each present value
// must be sent, and match.
func (h host) CheckParamHeaders(hd http.Header, c *Context, tool string, args json.RawMessage) *jsonrpc.Error {
	d := h.r.catalog.Load().ByTool[tool]
	if d == nil || len(d.headers) == 0 || !c.grant.allowsTool(tool) {
		return nil
	}
	return stateless.CheckParams(hd, d.headers, args)
}

func (h host) ServeTask(w http.ResponseWriter, c *Context, m *jsonrpc.Message, call *stateless.Call, p *stateless.Params) {
	x := &exchange{r: h.r, c: &Context{grant: c.grant, http: c.http, echo: c.echo, req: newRequest(m, nil, call)}}
	h.r.tasks.ServeHTTP(w, m, p, x.owner(), x.tasksDeclared(), x.decorateInMeta)
}

// Holder names who a request counts against (transport.CallerKey): its
// principal, or its client address, which the Echo's IPExtractor
// decides when the router is mounted on an Echo that sets one.
func (host) Holder(c *Context) string {
	ip := c.http.RemoteAddr
	if c.echo != nil && c.echo.Echo().IPExtractor != nil {
		ip = c.echo.RealIP()
	}
	return transport.CallerKey(c.grant.principal, ip)
}

// Connect runs the connect function; on refusal it writes the answer.
func (h host) Connect(w http.ResponseWriter, req *http.Request, id jsonrpc.ID, client *mcp.ClientCapabilities) (c *Context, ok bool) {
	r := h.r
	ec, _ := req.Context().Value(echoKey{}).(echo.Context)
	// The grant is its own allocation: sessions and listeners keep it long
	// after the request, and must not keep the request with it. A caller
	// nobody named shares the empty grant until connect writes to it, so
	// an open router keeps nothing per session.
	c = &Context{ctx: req.Context(), r: r, echo: ec, http: req, grant: &noGrant, shared: true, client: client}
	if p, ok := principal.FromContext(req.Context()); ok {
		// Authentication middleware ran before: its caller is the
		// principal unless connect says otherwise.
		c.grant, c.shared = &grant{principal: p.ID, caller: p}, false
	}
	if r.connect != nil {
		if err := guard.Err(func() error { return r.connect(c) }); err != nil {
			r.refuse(w, req, id, err)
			return nil, false
		}
	}
	c.shared = true
	return c, true
}

func (r *Router) refuse(w http.ResponseWriter, req *http.Request, id jsonrpc.ID, err error) {
	var he *mcp.HTTPError
	if !errors.As(err, &he) {
		r.report(req.Context(), fmt.Errorf("connect: %w", err), nil)
		refusal.Write(w, id, refusal.Internal)
		return
	}
	if c := bearer.Refusal(req, he.Status, he.Scope, r.cfg.resourceMeta); c != "" {
		w.Header().Set("WWW-Authenticate", c)
	}
	refusal.Write(w, id, refusal.Status(he.Status, he.Message))
}
