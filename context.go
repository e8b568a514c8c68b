package specter

import (
	"context"
	"maps"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/specter-mcp/specter/internal/access"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/principal"
)

// grant is what connect decided for this HTTP request: who the caller is
// and what it may see. Handlers share it read-only.
type grant struct {
	assigns      map[string]any
	instructions *string
	principal    string
	caller       *principal.Principal // from authentication middleware, if any
	tools        access.Names
	prompts      access.Names
	resources    access.Names
}

// noGrant is the grant of a caller nobody named or limited; it is never
// written (Context.writable copies it first).
var noGrant grant

func (g *grant) filtered() bool {
	return g.tools.Filtered() || g.prompts.Filtered() || g.resources.Filtered()
}

// Context is the per-request context handed to connect and to handlers.
// It carries the caller's assigns and allow-lists, the HTTP request, and
// the request's Stream back to the client.
//
// A Context is a context.Context: pass it to anything that takes one. It
// ends when the client cancels the request, the session ends or the
// router shuts down; not when the connection drops in a session, since
// the client may resume. On the 2026-07-28 wire, closing the request's
// stream ends it.
type Context struct {
	ctx     context.Context
	r       *Router
	echo    echo.Context
	http    *http.Request
	grant   *grant
	shared  bool // grant belongs to the HTTP request; copy before writing
	hasNext bool // beside shared: two bools share a word
	req     *Request
	sess    *session.Session
	stream  *Stream
	client  *mcp.ClientCapabilities // the caller's, for connect (SupportsUI)
	next    string
}

// sessionParent is a session request's Context as the parent of its
// context.Context: it ends with the session, not with the HTTP request
// that carried it (the client may resume the stream), yet it holds the
// values that middleware put on that request. The session's context
// answers Value first, so that a context derived from this one is
// cancelled with the session without a goroutine. It reads only the
// Context's session and HTTP request, which never change.
type sessionParent Context

func (p *sessionParent) Deadline() (time.Time, bool) { return p.sess.Context().Deadline() }

func (p *sessionParent) Done() <-chan struct{} { return p.sess.Context().Done() }

func (p *sessionParent) Err() error { return p.sess.Context().Err() }

func (p *sessionParent) Value(key any) any {
	if v := p.sess.Context().Value(key); v != nil {
		return v
	}
	return p.http.Context().Value(key)
}

// Deadline implements context.Context.
func (c *Context) Deadline() (time.Time, bool) { return c.ctx.Deadline() }

// Done implements context.Context.
func (c *Context) Done() <-chan struct{} { return c.ctx.Done() }

// Err implements context.Context.
func (c *Context) Err() error { return c.ctx.Err() }

// Value implements context.Context: values of the HTTP request's context
// (those Echo and net/http middleware put there, such as the principal and
// claims of auth.JWT) are found here, in both eras.
func (c *Context) Value(key any) any { return c.ctx.Value(key) }

// Echo returns the Echo v4 context of the HTTP request when the router is
// mounted with Router.Mount, and nil otherwise: served as a plain
// http.Handler, over stdio, or mounted on Echo v5 with echov5.Mount, whose
// context echov5.Context returns. HTTPRequest and Value work everywhere.
func (c *Context) Echo() echo.Context { return c.echo }

// HTTPRequest returns the HTTP request that carried the MCP message.
func (c *Context) HTTPRequest() *http.Request { return c.http }

// Request returns the MCP request being answered; nil inside connect.
func (c *Context) Request() *Request { return c.req }

func (c *Context) writable() *grant {
	if c.shared {
		s := *c.grant
		s.assigns = maps.Clone(c.grant.assigns)
		c.grant, c.shared = &s, false
	}
	if c.grant.assigns == nil {
		c.grant.assigns = map[string]any{}
	}
	return c.grant
}

// Assign stores a value for later steps of this request: connect assigns
// the user, handlers read it with Assigned.
func (c *Context) Assign(key string, value any) { c.writable().assigns[key] = value }

// Assigned returns the value assigned under key if there is one of type T.
func Assigned[T any](c *Context, key string) (T, bool) {
	v, ok := c.grant.assigns[key].(T)
	return v, ok
}

// SetPrincipal names the authenticated caller (a user id). It appears in
// logs and binds the sessions this caller creates.
func (c *Context) SetPrincipal(id string) { c.writable().principal = id }

// Principal returns the authenticated caller's id, or "".
func (c *Context) Principal() string { return c.grant.principal }

// Caller returns the caller that authentication middleware (auth.JWT)
// put in the request context, with its scopes and claims, or nil.
func (c *Context) Caller() *principal.Principal { return c.grant.caller }

// PutInstructions sets the instructions this caller receives at initialize.
func (c *Context) PutInstructions(s string) { c.writable().instructions = &s }

// AllowTools allows this caller only the named tools: the others are
// absent from tools/list and calling them fails exactly like calling an
// unknown tool. A name no tool is declared under is logged once, as a
// warning: it is most likely a typo that hides a tool.
func (c *Context) AllowTools(names ...string) {
	c.writable().tools.Allow = c.declaredSet(kindTool, names)
}

// HideTools hides the named tools from this caller, as AllowTools hides
// the tools it does not name; the rest stay visible.
func (c *Context) HideTools(names ...string) {
	c.writable().tools.Deny = c.declaredSet(kindTool, names)
}

// AllowPrompts allows this caller only the named prompts.
func (c *Context) AllowPrompts(names ...string) {
	c.writable().prompts.Allow = c.declaredSet(kindPrompt, names)
}

// HidePrompts hides the named prompts from this caller.
func (c *Context) HidePrompts(names ...string) {
	c.writable().prompts.Deny = c.declaredSet(kindPrompt, names)
}

// AllowResources allows this caller only the given resources, named by
// URI or by template as declared. A skill is named by the URI of its
// SKILL.md, which allows every file of the skill. A requested URI is
// checked in one canonical spelling, the one its handler sees: escapes of
// unreserved characters decoded (RFC 3986 §6.2.2) and, under a template,
// the URI its values expand to, so app://docs/%73ecret is app://docs/secret.
func (c *Context) AllowResources(patterns ...string) {
	c.writable().resources.Allow = c.declaredSet(kindResource, patterns)
}

// HideResources hides the given resources, named as for AllowResources.
func (c *Context) HideResources(patterns ...string) {
	c.writable().resources.Deny = c.declaredSet(kindResource, patterns)
}

// declaredSet makes a set of names, warning once about each name that no
// declaration of kind k answers to.
func (c *Context) declaredSet(k kind, list []string) map[string]struct{} {
	m := make(map[string]struct{}, len(list))
	for _, n := range list {
		if k == kindResource {
			n = uripattern.Normalize(n) // as the URIs checked against it
		}
		m[n] = struct{}{}
		if c.r != nil && !c.r.catalog.Load().Declares(k, n) {
			c.r.warnUndeclared(k, n)
		}
	}
	return m
}

// PutNextCursor sets the cursor of the next page, for a List handler:
// the handler then pages by itself, and each page it returns is listed
// whole (see List). "" says this page is the last.
func (c *Context) PutNextCursor(cursor string) { c.next, c.hasNext = cursor, true }

// Session returns the MCP session, or nil outside one.
func (c *Context) Session() *Session {
	if c.sess == nil {
		return nil
	}
	return &Session{s: c.sess}
}

// Stream returns the request's stream back to the client.
func (c *Context) Stream() *Stream { return c.stream }

// Progress reports progress on the request (see Stream.Progress).
func (c *Context) Progress(progress, total float64, message string) error {
	return c.stream.Progress(progress, total, message)
}

// Log sends a log message to the client (see Stream.Log).
func (c *Context) Log(level mcp.LoggingLevel, data any) error { return c.stream.Log(level, data) }

// Elicit asks the user for input matching schema (see Stream.Elicit).
func (c *Context) Elicit(message string, schema *params.Schema, opts ...InputOption) (Params, ElicitAction, error) {
	return c.stream.Elicit(message, schema, opts...)
}

// ElicitURL asks the user to visit url (see Stream.ElicitURL).
func (c *Context) ElicitURL(message, url, elicitationID string, opts ...InputOption) (ElicitAction, error) {
	return c.stream.ElicitURL(message, url, elicitationID, opts...)
}

// Sample asks the client's LLM for a message (see Stream.Sample).
func (c *Context) Sample(p *mcp.CreateMessageParams, opts ...InputOption) (*mcp.CreateMessageResult, error) {
	return c.stream.Sample(p, opts...)
}

// ListRoots asks the client for its roots (see Stream.ListRoots).
func (c *Context) ListRoots(opts ...InputOption) ([]mcp.Root, error) {
	return c.stream.ListRoots(opts...)
}

func (c *Context) asker() *Stream { return c.stream }

// Session is an MCP session as handlers see it: an id, and data that
// lives as long as the session. The data is shared by every node of a
// deployment, so values are stored as JSON.
type Session struct{ s *session.Session }

// ID returns the Mcp-Session-Id.
func (s *Session) ID() string { return s.s.ID() }

// Principal returns the caller that created the session, or "".
func (s *Session) Principal() string { return s.s.Principal() }

// Store stores value (anything that encodes to JSON) under key, for every
// node of the deployment.
func (s *Session) Store(key string, value any) error { return s.s.StoreJSON(key, value) }

// Load decodes the value stored under key into dst and reports whether
// there was one.
func (s *Session) Load(key string, dst any) (bool, error) { return s.s.LoadJSON(key, dst) }
