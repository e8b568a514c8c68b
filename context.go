package specter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/principal"
)

// scope is what connect decided for this HTTP request: who the caller is
// and what it may see. Handlers share it read-only.
type scope struct {
	assigns      map[string]any
	instructions *string
	principal    string
	caller       *principal.Principal // from authentication middleware, if any
	tools        map[string]struct{}  // nil: every tool
	prompts      map[string]struct{}
	resources    map[string]struct{}
}

func (s *scope) filtered() bool { return s.tools != nil || s.prompts != nil || s.resources != nil }

// Context is the per-request context handed to connect and to handlers.
// It carries the caller's assigns and allow-lists, the HTTP request, and
// the request's Stream back to the client.
type Context struct {
	ctx     context.Context
	echo    echo.Context
	http    *http.Request
	scope   *scope
	shared  bool // scope belongs to the HTTP request; copy before writing
	req     *Request
	sess    *session.Session
	stream  *Stream
	async   func(ctx context.Context, s *Stream) Result
	next    string
	hasNext bool
}

// Context returns the request's context.Context. It ends when the client
// cancels the request, the session ends, or the router shuts down; not
// when the connection drops, since the client may resume.
func (c *Context) Context() context.Context { return c.ctx }

// Echo returns the Echo context of the HTTP request, or nil when the
// router is served as a plain http.Handler.
func (c *Context) Echo() echo.Context { return c.echo }

// HTTPRequest returns the HTTP request that carried the MCP message.
func (c *Context) HTTPRequest() *http.Request { return c.http }

// Request returns the MCP request being answered; nil inside connect.
func (c *Context) Request() *Request { return c.req }

func (c *Context) writable() *scope {
	if c.shared {
		s := *c.scope
		s.assigns = make(map[string]any, len(c.scope.assigns)+1)
		for k, v := range c.scope.assigns {
			s.assigns[k] = v
		}
		c.scope, c.shared = &s, false
	}
	if c.scope.assigns == nil {
		c.scope.assigns = map[string]any{}
	}
	return c.scope
}

// Assign stores a value for later steps of this request (connect assigns
// the user; handlers read it with Get).
func (c *Context) Assign(key string, value any) { c.writable().assigns[key] = value }

// Get returns an assigned value, or nil.
func (c *Context) Get(key string) any { return c.scope.assigns[key] }

// Get returns the value assigned under key if it has type T.
func Get[T any](c *Context, key string) (T, bool) {
	v, ok := c.scope.assigns[key].(T)
	return v, ok
}

// SetPrincipal names the authenticated caller (a user id). It appears in
// logs and binds the sessions this caller creates.
func (c *Context) SetPrincipal(id string) { c.writable().principal = id }

// Principal returns the authenticated caller's id, or "".
func (c *Context) Principal() string { return c.scope.principal }

// Caller returns the caller that authentication middleware (auth.JWT)
// put in the request context, with its scopes and claims, or nil.
func (c *Context) Caller() *principal.Principal { return c.scope.caller }

// PutInstructions sets the instructions this caller receives at initialize.
func (c *Context) PutInstructions(s string) { c.writable().instructions = &s }

// PutTools allows this caller only the named tools: the others are absent
// from tools/list and calling them fails exactly like an unknown tool.
func (c *Context) PutTools(names ...string) { c.writable().tools = set(names) }

// PutPrompts allows this caller only the named prompts.
func (c *Context) PutPrompts(names ...string) { c.writable().prompts = set(names) }

// PutResources allows this caller only the given resources, named by URI
// or by template as declared. A skill is named by the URI of its SKILL.md,
// which allows every file of the skill.
func (c *Context) PutResources(patterns ...string) { c.writable().resources = set(patterns) }

func set(names []string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

// PutNextCursor sets the cursor of the next page, for a List handler.
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

// Async runs work on its own goroutine after the handler returns NoReply.
// The work may stream progress, logs and server-to-client requests through
// s; the Result it returns is the request's final reply.
func (c *Context) Async(work func(ctx context.Context, s *Stream) Result) { c.async = work }

// Progress reports progress on the request (see Stream.Progress).
func (c *Context) Progress(progress, total float64, message string) error {
	return c.stream.Progress(progress, total, message)
}

// Log sends a log message to the client (see Stream.Log).
func (c *Context) Log(level mcp.LoggingLevel, data any) error { return c.stream.Log(level, data) }

// Elicit asks the user for input (see Stream.Elicit).
func (c *Context) Elicit(ctx context.Context, message string, schema any, opts ...InputOption) (*mcp.ElicitResult, error) {
	return c.stream.Elicit(ctx, message, schema, opts...)
}

// ElicitURL asks the user to visit url (see Stream.ElicitURL).
func (c *Context) ElicitURL(ctx context.Context, message, url, elicitationID string, opts ...InputOption) (*mcp.ElicitResult, error) {
	return c.stream.ElicitURL(ctx, message, url, elicitationID, opts...)
}

// Sample asks the client's LLM for a message (see Stream.Sample).
func (c *Context) Sample(ctx context.Context, p *mcp.CreateMessageParams, opts ...InputOption) (*mcp.CreateMessageResult, error) {
	return c.stream.Sample(ctx, p, opts...)
}

// ListRoots asks the client for its roots (see Stream.ListRoots).
func (c *Context) ListRoots(ctx context.Context, opts ...InputOption) ([]mcp.Root, error) {
	return c.stream.ListRoots(ctx, opts...)
}

// Session is an MCP session as handlers see it: an id, and data that
// lives as long as the session. The data is shared by every node of a
// deployment, so values are stored as JSON.
type Session struct{ s *session.Session }

// ID returns the Mcp-Session-Id.
func (s *Session) ID() string { return s.s.ID() }

// Principal returns the caller that created the session, or "".
func (s *Session) Principal() string { return s.s.Principal() }

// Set stores value (anything that encodes to JSON) under key.
func (s *Session) Set(key string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("specter: session data %q: %w", key, err)
	}
	if err := s.s.Store(key, raw); err != nil {
		return fmt.Errorf("specter: session data %q: %w", key, err)
	}
	return nil
}

// Get decodes the value stored under key into dst and reports whether
// there was one.
func (s *Session) Get(key string, dst any) (bool, error) {
	raw, ok := s.s.Load(key)
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return true, fmt.Errorf("specter: session data %q: %w", key, err)
	}
	return true, nil
}
