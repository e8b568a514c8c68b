package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/specter-mcp/specter"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/transform"
)

// Select chooses routes of an Echo app. Every condition set must hold.
type Select struct {
	Methods []string       // upper case, any of
	Path    *regexp.Regexp // matched against Echo's path: "/api/studies/:id"
	Names   []string       // Echo route names, any of
	Tags    []string       // tags of the route's operation in the document, any of
}

func (s Select) matches(rt *echo.Route, op *Operation) bool {
	if len(s.Methods) > 0 && !slices.Contains(s.Methods, rt.Method) {
		return false
	}
	if s.Path != nil && !s.Path.MatchString(rt.Path) {
		return false
	}
	if len(s.Names) > 0 && !slices.Contains(s.Names, rt.Name) {
		return false
	}
	if len(s.Tags) > 0 && (op == nil || !slices.ContainsFunc(op.Tags, func(t string) bool { return slices.Contains(s.Tags, t) })) {
		return false
	}
	return true
}

// RouteOptions configure MountRoutes.
type RouteOptions struct {
	// Select chooses the routes: those any Select matches. It may not be
	// empty: an app's routes become tools only when asked for.
	Select []Select
	// Transform reshapes tools, by their names in the document (give a
	// route a name or description of its own here).
	Transform map[string]transform.Tool
	// Declare adds declaration options to a route's tool.
	Declare func(op *Operation) []specter.Option
	// MaxResponseBytes bounds a route's response; 10 MiB when zero.
	MaxResponseBytes int64
}

// MountRoutes declares routes of e, the app r is mounted in, as tools
// whose schemas, names and descriptions come from doc, the app's OpenAPI
// document (as swaggo, huma or oapi-codegen write it). A route is found
// in doc by method and path ("/studies/:id" is "/studies/{id}"), with or
// without the path of the document's first server as a prefix.
//
// A call runs the route in process, through e's router and middleware
// (e.Pre, e.Use, the group's and the route's own), as the MCP request's
// caller: the route's request has the MCP request's context (its
// principal and the values HTTP middleware put there), its Authorization
// and Cookie headers, Host and remote address, so that the app's own
// authentication and authorization apply unchanged. Nothing goes over the
// network. The response is mapped as Mount maps an API's; a panic in the
// route fails the call with an internal error.
func MountRoutes(r *specter.Router, e *echo.Echo, doc *Document, o RouteOptions) error {
	if len(o.Select) == 0 {
		return errors.New("openapi: MountRoutes selects no routes")
	}
	ops := map[string]*Operation{}
	prefix := ""
	if len(doc.Servers) > 0 {
		if u, err := url.Parse(doc.Servers[0]); err == nil {
			prefix = strings.TrimSuffix(u.Path, "/")
		}
	}
	for _, op := range doc.Operations {
		ops[op.Method+" "+op.Path] = op
		if prefix != "" {
			ops[op.Method+" "+prefix+op.Path] = op
		}
	}
	p := newInProcess(e, o.MaxResponseBytes)
	var errs []error
	seen := map[string]bool{}
	for _, rt := range e.Routes() {
		key := rt.Method + " " + openAPIPath(rt.Path)
		if seen[key] {
			continue
		}
		op := ops[key]
		if !slices.ContainsFunc(o.Select, func(s Select) bool { return s.matches(rt, op) }) {
			continue
		}
		seen[key] = true
		if op == nil {
			errs = append(errs, fmt.Errorf("openapi: route %s %s has no operation in the document; declare it with RouteTool", rt.Method, rt.Path))
			continue
		}
		var extra []specter.Option
		if o.Declare != nil {
			extra = o.Declare(op)
		}
		// The route's own path, with the server's prefix.
		routeOp := *op
		routeOp.Path = openAPIPath(rt.Path)
		op = &routeOp
		errs = append(errs, declareTool(r, op, o.Transform[op.Name], func(sc *specter.Context, args map[string]any) (*mcp.CallToolResult, error) {
			return p.call(sc, op, args)
		}, extra))
	}
	if len(seen) == 0 {
		errs = append(errs, errors.New("openapi: MountRoutes: no route matches"))
	}
	return errors.Join(errs...)
}

// RouteTool declares the route of e at method and path as the tool name,
// its arguments the fields of T, as Echo binds them: a field tagged
// `param:"id"` fills the path parameter, `query:"q"` the query, `header:"X"`
// a header, and the others, by their json names, the JSON body. The input
// schema is T's, as specter.Tool derives it (json, validate and
// description tags); opts describe the tool (specter.Description, scopes,
// annotations). A call runs the route in process, as MountRoutes does.
func RouteTool[T any](r *specter.Router, e *echo.Echo, method, path, name string, opts ...specter.Option) error {
	schema, err := params.For[T]()
	if err != nil {
		return fmt.Errorf("openapi: route tool %s: %w", name, err)
	}
	found := slices.ContainsFunc(e.Routes(), func(rt *echo.Route) bool { return rt.Method == method && rt.Path == path })
	if !found {
		return fmt.Errorf("openapi: route tool %s: e has no route %s %s", name, method, path)
	}
	op := &Operation{Method: method, Path: openAPIPath(path), Name: name, InputSchema: schema.JSON(), mediaType: "application/json"}
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("openapi: route tool %s: %s is not a struct", name, t)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if jsonName == "-" {
			continue
		}
		if jsonName == "" {
			jsonName = f.Name
		}
		a := Argument{Name: jsonName, In: "body", Param: jsonName}
		for _, in := range []struct{ tag, in string }{{"param", "path"}, {"query", "query"}, {"header", "header"}} {
			if v := f.Tag.Get(in.tag); v != "" {
				a.In, a.Param = in.in, v
			}
		}
		op.args = append(op.args, a)
	}
	p := newInProcess(e, 0)
	call := func(sc *specter.Context, args map[string]any) (*mcp.CallToolResult, error) {
		return p.call(sc, op, args)
	}
	h := func(v specter.Params, _ *specter.Request, sc *specter.Context) specter.Result {
		res, err := call(sc, v)
		if err != nil {
			return specter.Error(err)
		}
		return specter.Reply(res)
	}
	tool := op.Tool()
	return declare("tool", name, func() {
		r.Tool(name, h, append(toolOptions(mcp.Tool{InputSchema: tool.InputSchema, Description: method + " " + path, Annotations: tool.Annotations}), opts...)...)
	})
}

var echoParam = regexp.MustCompile(`:([^/]+)`)

// openAPIPath writes an Echo path as OpenAPI does: "/a/:id" is "/a/{id}".
func openAPIPath(p string) string { return echoParam.ReplaceAllString(p, "{$1}") }

// inProcess calls routes of an Echo app in process.
type inProcess struct {
	e   *echo.Echo
	max int64
}

func newInProcess(e *echo.Echo, max int64) *inProcess {
	if max <= 0 {
		max = 10 << 20
	}
	return &inProcess{e: e, max: max}
}

// forwarded are the MCP request's headers a route's request gets: the
// caller's credentials, which the app's own middleware reads. They do not
// leave the process.
var forwarded = []string{"Authorization", "Cookie"}

func (p *inProcess) call(sc *specter.Context, op *Operation, args map[string]any) (res *mcp.CallToolResult, err error) {
	hr, err := op.request(args)
	if err != nil {
		return nil, specter.NewToolError(err.Error())
	}
	target := hr.path
	if len(hr.query) > 0 {
		target += "?" + hr.query.Encode()
	}
	req, err := http.NewRequestWithContext(sc, hr.method, target, bodyReader(hr.body))
	if err != nil {
		return nil, specter.NewToolError(err.Error())
	}
	req.RequestURI = target
	hr.setHeaders(req)
	if mr := sc.HTTPRequest(); mr != nil {
		for _, h := range forwarded {
			if v := mr.Header.Values(h); len(v) > 0 {
				req.Header[h] = append(req.Header[h], v...)
			}
		}
		req.Host, req.RemoteAddr, req.TLS = mr.Host, mr.RemoteAddr, mr.TLS
	}
	w := &recorder{header: http.Header{}, max: p.max}
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("openapi: route %s %s panicked: %v", op.Method, op.Path, v)
		}
	}()
	p.e.ServeHTTP(w, req)
	if w.over {
		return nil, specter.NewToolError(fmt.Sprintf("the response is larger than %d bytes", p.max))
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	resp := &response{status: w.status, contentType: w.header.Get("Content-Type"), body: w.body.Bytes()}
	return resp.toolResult(target), nil
}

// recorder is the ResponseWriter of an in-process call: it keeps the
// status, headers and body, up to max bytes.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	max    int64
	over   bool
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if int64(w.body.Len()+len(b)) > w.max {
		w.over = true
		return 0, errors.New("openapi: response too large")
	}
	return w.body.Write(b)
}

// Flush lets routes that stream write through Echo's Response.Flush.
func (w *recorder) Flush() {}
