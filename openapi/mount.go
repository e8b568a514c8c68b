package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/transform"
)

// Kind is what an operation becomes.
type Kind int

const (
	// AsTool makes the operation a tool.
	AsTool Kind = iota
	// AsResource makes a GET without required parameters a resource.
	AsResource
	// AsResourceTemplate makes a GET whose required parameters are all
	// path parameters a resource template, its variables those
	// parameters.
	AsResourceTemplate
	// Exclude leaves the operation out.
	Exclude
)

// RouteMap chooses what the operations it matches become. Every condition
// set must hold; an empty RouteMap matches everything. A map of kind
// AsResource or AsResourceTemplate matches only operations that can be
// one.
type RouteMap struct {
	Methods      []string       // upper case, any of
	Path         *regexp.Regexp // matched against the path as written: "/pets/{petId}"
	Tags         []string       // any of
	OperationIDs []string       // any of
	Kind         Kind
}

func (m RouteMap) matches(op *Operation) bool {
	if len(m.Methods) > 0 && !slices.Contains(m.Methods, op.Method) {
		return false
	}
	if m.Path != nil && !m.Path.MatchString(op.Path) {
		return false
	}
	if len(m.Tags) > 0 && !slices.ContainsFunc(op.Tags, func(t string) bool { return slices.Contains(m.Tags, t) }) {
		return false
	}
	if len(m.OperationIDs) > 0 && !slices.Contains(m.OperationIDs, op.OperationID) {
		return false
	}
	switch m.Kind {
	case AsResource:
		return op.Method == http.MethodGet && len(op.required) == 0
	case AsResourceTemplate:
		return op.Method == http.MethodGet && op.onlyPathParams()
	}
	return true
}

// ResourceRouteMaps makes GETs resources and resource templates where
// they can be, as FastMCP's semantic route maps do; the rest stay tools.
var ResourceRouteMaps = []RouteMap{
	{Methods: []string{http.MethodGet}, Kind: AsResourceTemplate},
	{Methods: []string{http.MethodGet}, Kind: AsResource},
}

// Classify says what the first of maps to match op makes it: a tool when
// none does.
func Classify(op *Operation, maps []RouteMap) Kind {
	for _, m := range maps {
		if m.matches(op) {
			return m.Kind
		}
	}
	return AsTool
}

// Credentials sets the credentials of the call c makes on req: an
// Authorization header, an API key. It runs per call, so that each caller
// can use its own; c.Caller() is the MCP caller. A returned error fails
// the call.
type Credentials func(c *specter.Context, req *http.Request) error

// Options configure Mount.
type Options struct {
	// BaseURL is where calls go; the document's first server when empty.
	BaseURL string
	// Client sends the calls; a client without a timeout of its own when
	// nil (Timeout bounds each call).
	Client *http.Client
	// Timeout bounds each call, retries included; 30 s when zero.
	Timeout time.Duration
	// MaxResponseBytes bounds a response's body; a larger one fails the
	// call. 10 MiB when zero.
	MaxResponseBytes int64
	// Retries is how many times a call of an idempotent method (GET,
	// HEAD, OPTIONS, PUT, DELETE) is tried again after a network error or
	// a 429, 502, 503 or 504; 2 when zero, none when negative. Other
	// methods are never retried.
	Retries int
	// Credentials set each call's credentials.
	Credentials Credentials
	// ForwardCallerToken, when set, forwards the MCP request's own
	// Authorization header to the API, but only for a caller whose token
	// names this audience in its "aud" claim: a token is never passed on
	// to a service it was not issued for. Empty (the default) never
	// forwards it.
	ForwardCallerToken string
	// RouteMaps choose what each operation becomes; every operation is a
	// tool when nil.
	RouteMaps []RouteMap
	// ResourceScheme is the URI scheme of resources: "openapi" when empty,
	// so that GET /pets/{petId} is openapi://pets/{petId}.
	ResourceScheme string
	// Transform reshapes tools, by their names in the document (rename
	// the tool, rename, hide or fix arguments, rewrite the description,
	// post-process results): the gateway's mechanism.
	Transform map[string]transform.Tool
	// Declare adds declaration options to an operation's tool or resource
	// (scopes, a policy, middleware, tasks, a time limit, other
	// annotations), after the defaults, so that they override them.
	Declare func(op *Operation) []specter.Option
}

// Mount declares the document's operations on r, as its route maps say.
// Tools are annotated by method (GET read-only, DELETE destructive, PUT
// idempotent; all open-world) unless Declare says otherwise, and reshaped
// by their Transform, if any.
func Mount(r *specter.Router, doc *Document, o Options) error {
	c, err := newClient(doc, o)
	if err != nil {
		return err
	}
	var errs []error
	// One batch: the tools appear together, with one list_changed.
	r.Declare(func() {
		for _, op := range doc.Operations {
			var extra []specter.Option
			if o.Declare != nil {
				extra = o.Declare(op)
			}
			switch Classify(op, o.RouteMaps) {
			case AsTool:
				call := func(sc *specter.Context, args map[string]any) (*mcp.CallToolResult, error) {
					res, uri, err := c.call(sc, op, args)
					if err != nil {
						return nil, err
					}
					return res.toolResult(uri), nil
				}
				errs = append(errs, declareTool(r, op, o.Transform[op.Name], call, extra))
			case AsResource, AsResourceTemplate:
				uri := c.scheme + "://" + strings.TrimPrefix(op.Path, "/")
				opts := append([]specter.Option{specter.Name(op.Name), specter.Description(describe(op))}, extra...)
				errs = append(errs, declare("resource", uri, func() { r.Resource(uri, c.resource(op), opts...) }))
			}
		}
	})
	return errors.Join(errs...)
}

// callFunc calls an operation with a tool's arguments.
type callFunc func(sc *specter.Context, args map[string]any) (*mcp.CallToolResult, error)

// declareTool declares op's tool on r, reshaped by tr when it is not
// the zero Tool: the tool calls the operation with the arguments mapped
// back to the operation's, and its result post-processed.
func declareTool(r *specter.Router, op *Operation, tr transform.Tool, call callFunc, extra []specter.Option) error {
	tool := op.Tool()
	if !reflect.ValueOf(tr).IsZero() {
		x, err := transform.Apply(tool, tr)
		if err != nil {
			return fmt.Errorf("openapi: %w", err)
		}
		inner := call
		tool, call = x.Tool(), func(sc *specter.Context, args map[string]any) (*mcp.CallToolResult, error) {
			args, err := x.Arguments(args)
			if err != nil {
				return nil, specter.NewToolError(err.Error())
			}
			res, err := inner(sc, args)
			if err != nil {
				return nil, err
			}
			return x.Result(sc, res)
		}
	}
	h := func(p specter.Params, _ *specter.Request, sc *specter.Context) specter.Result {
		res, err := call(sc, p)
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(res)
	}
	opts := toolOptions(tool)
	if tool.OutputSchema != nil {
		opts = append(opts, specter.OutputMismatch(nonconforming))
	}
	return declare("tool", tool.Name, func() { r.Tool(tool.Name, h, append(opts, extra...)...) })
}

// nonconforming answers an API's successful answer that breaks the
// output schema its document promises (the router checks it, once): an
// isError result saying how, with the answer itself, for the model to
// read. The document is a third party's word, and MCP lets no
// structuredContent out that does not match its tool's outputSchema.
func nonconforming(res *mcp.CallToolResult, why error) *mcp.CallToolResult {
	reason := why.Error()
	if errors.Is(why, specter.ErrNoStructuredContent) {
		reason = "it is not a JSON object"
	}
	msg := "the API answered, but not as its document says (" + reason + ")"
	return &mcp.CallToolResult{Content: append([]mcp.Content{mcp.Text(msg)}, res.Content...), IsError: true}
}

// Tool is op's MCP tool: its name, its summary as title, its description
// (the summary when it has none), its schemas and the annotations of its
// method: GET, HEAD and OPTIONS read-only; DELETE destructive and
// idempotent; PUT idempotent; all open-world.
func (op *Operation) Tool() mcp.Tool {
	t, f := true, false
	a := &mcp.ToolAnnotations{OpenWorldHint: &t}
	switch op.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		a.ReadOnlyHint = &t
	case http.MethodDelete:
		a.DestructiveHint, a.IdempotentHint = &t, &t
	case http.MethodPut:
		a.DestructiveHint, a.IdempotentHint = &f, &t
	default:
		a.DestructiveHint = &f
	}
	return mcp.Tool{Name: op.Name, Title: op.Summary, Description: describe(op),
		InputSchema: op.InputSchema, OutputSchema: op.OutputSchema, Annotations: a}
}

// toolOptions declares t.
func toolOptions(t mcp.Tool) []specter.Option {
	opts := []specter.Option{specter.Description(t.Description), specter.InputSchema(t.InputSchema)}
	if t.OutputSchema != nil {
		opts = append(opts, specter.OutputSchema(t.OutputSchema))
	}
	if t.Title != "" {
		opts = append(opts, specter.Title(t.Title))
	}
	if a := t.Annotations; a != nil {
		// ReadOnly and Idempotent say true; false is their default.
		if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
			opts = append(opts, specter.ReadOnly())
		}
		if a.IdempotentHint != nil && *a.IdempotentHint {
			opts = append(opts, specter.Idempotent())
		}
		if a.DestructiveHint != nil {
			opts = append(opts, specter.Destructive(*a.DestructiveHint))
		}
		if a.OpenWorldHint != nil {
			opts = append(opts, specter.OpenWorld(*a.OpenWorldHint))
		}
	}
	return opts
}

func describe(op *Operation) string {
	switch {
	case op.Description != "" && op.Summary != "" && !strings.HasPrefix(op.Description, op.Summary):
		return op.Summary + "\n\n" + op.Description
	case op.Description != "":
		return op.Description
	case op.Summary != "":
		return op.Summary
	}
	return op.Method + " " + op.Path
}

// declare runs a declaration, turning the router's panic over a bad one
// into an error.
func declare(kind, name string, f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("openapi: %s %s: %v", kind, name, v)
		}
	}()
	f()
	return nil
}

// client makes the calls of one Mount.
type client struct {
	base     *url.URL
	http     *http.Client
	timeout  time.Duration
	max      int64
	retries  int
	creds    Credentials
	audience string
	scheme   string
}

func newClient(doc *Document, o Options) (*client, error) {
	base := o.BaseURL
	if base == "" && len(doc.Servers) > 0 {
		base = doc.Servers[0]
	}
	if base == "" {
		return nil, errNoBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("openapi: base URL %q is not an absolute http(s) URL", base)
	}
	c := &client{base: u, http: o.Client, timeout: o.Timeout, max: o.MaxResponseBytes, retries: o.Retries,
		creds: o.Credentials, audience: o.ForwardCallerToken, scheme: orDefault(o.ResourceScheme, "openapi")}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	if c.max <= 0 {
		c.max = 10 << 20
	}
	switch {
	case c.retries == 0:
		c.retries = 2
	case c.retries < 0:
		c.retries = 0
	}
	return c, nil
}

func (c *client) resource(op *Operation) specter.Handler {
	return func(p specter.Params, req *specter.Request, sc *specter.Context) specter.Result {
		res, _, err := c.call(sc, op, p)
		if err != nil {
			return specter.Error(err)
		}
		switch {
		case res.status == http.StatusNotFound:
			return specter.Error(specter.ResourceNotFound(req.Name))
		case res.status >= 400:
			return specter.Error(fmt.Errorf("openapi: %s %s: HTTP %d: %s", op.Method, op.Path, res.status, excerpt(res.body)))
		}
		return specter.Reply(res.resourceContents(req.Name))
	}
}

// call sends op's request with args and reads the response. An error the
// model can act on (a missing argument, a response too large) is a
// *specter.ToolError.
func (c *client) call(sc *specter.Context, op *Operation, args map[string]any) (*response, string, error) {
	hr, err := op.request(args)
	if err != nil {
		return nil, "", specter.NewToolError(err.Error())
	}
	req, err := hr.toHTTP(c.base)
	if err != nil {
		return nil, "", specter.NewToolError(err.Error())
	}
	if err := c.authorize(sc, req); err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(sc, c.timeout)
	defer cancel()
	req = req.WithContext(ctx)
	uri := req.URL.String()
	for attempt := 0; ; attempt++ {
		res, err := c.once(req)
		retry := attempt < c.retries && idempotent(op.Method) && ctx.Err() == nil &&
			(err != nil && !errors.Is(err, errTooLarge) || res != nil && retryable(res.status))
		if !retry {
			if errors.Is(err, errTooLarge) {
				return nil, uri, specter.NewToolError(fmt.Sprintf("the response is larger than %d bytes", c.max))
			}
			if err != nil {
				// The model may try again, or otherwise.
				return nil, uri, specter.NewToolError(fmt.Sprintf("%s %s failed: %v", op.Method, op.Path, err))
			}
			return res, uri, nil
		}
		t := time.NewTimer(backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, uri, fmt.Errorf("openapi: %s %s: %w", op.Method, op.Path, ctx.Err())
		case <-t.C:
		}
		if req.GetBody != nil {
			body, _ := req.GetBody()
			req.Body = body
		}
	}
}

var errTooLarge = errors.New("response too large")

func (c *client) once(req *http.Request) (*response, error) {
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(res.Body, c.max+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if n > c.max {
		return nil, errTooLarge
	}
	return &response{status: res.StatusCode, contentType: res.Header.Get("Content-Type"), body: buf.Bytes()}, nil
}

// authorize sets the call's credentials, and the caller's own token only
// where Options.ForwardCallerToken allows it.
func (c *client) authorize(sc *specter.Context, req *http.Request) error {
	if c.audience != "" {
		if hr := sc.HTTPRequest(); hr != nil && hr.Header.Get("Authorization") != "" && audienceOf(sc, c.audience) {
			req.Header.Set("Authorization", hr.Header.Get("Authorization"))
		}
	}
	if c.creds != nil {
		if err := c.creds(sc, req); err != nil {
			return fmt.Errorf("openapi: credentials: %w", err)
		}
	}
	return nil
}

// audienceOf reports whether the caller's token names aud in its "aud"
// claim (a string or a list).
func audienceOf(sc *specter.Context, aud string) bool {
	p := sc.Caller()
	if p == nil {
		return false
	}
	switch v := p.Claims["aud"].(type) {
	case string:
		return v == aud
	case []string:
		return slices.Contains(v, aud)
	case []any:
		return slices.Contains(v, any(aud))
	}
	return false
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusBadGateway ||
		status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// backoff is the pause before retry attempt+1: 100 ms, doubling, at most
// 2 s.
func backoff(attempt int) time.Duration {
	return min(100*time.Millisecond<<attempt, 2*time.Second)
}

// HeaderCredentials sets the same headers on every call: an API key or a
// token of the application's own, not the caller's.
func HeaderCredentials(h http.Header) Credentials {
	return func(_ *specter.Context, req *http.Request) error {
		for k, v := range h {
			req.Header[k] = v
		}
		return nil
	}
}
