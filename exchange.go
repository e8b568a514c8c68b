package specter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/specter-mcp/specter/backplane"
	"github.com/specter-mcp/specter/internal/bearer"
	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/methods"
	"github.com/specter-mcp/specter/internal/probe"
	"github.com/specter-mcp/specter/internal/reqctx"
	"github.com/specter-mcp/specter/internal/session"
	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/stream"
	"github.com/specter-mcp/specter/internal/task"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
	"github.com/specter-mcp/specter/params"
)

// exchange is one JSON-RPC request as the method handlers see the router:
// it implements methods.Server over the catalog snapshot taken when the
// request arrived, filtered by what connect allowed.
type exchange struct {
	r      *Router
	cat    *catalog.Catalog[*declaration]
	c      *Context
	sess   *session.Session // nil on the 2026-07-28 wire
	ob     *stream.Stream
	start  time.Time
	cancel context.CancelFunc // ends a 2026-07-28 request's context
	end    func(observe.End)  // the probe's, when there is one
	hid    bool               // scopes or a policy hid an item from this caller
}

func (x *exchange) stateless() bool { return x.c.req.stateless != nil }

// EnvelopeName is the name or URI the request's params gave.
func (x *exchange) EnvelopeName() string { return x.c.req.Name }

var _ methods.Server = (*exchange)(nil)

// inflight is one request's Context, Stream and exchange: they live and
// die together, so they are one allocation. (With the Request too it
// would fall into a larger size class and cost more bytes than it saves.)
type inflight struct {
	c Context
	s Stream
	x exchange
}

// dispatch answers one request on ob: in a session, or, with call set,
// statelessly on the 2026-07-28 wire.
func (r *Router) dispatch(conn *Context, sess *session.Session, ob *stream.Stream, m *jsonrpc.Message, call *stateless.Call) {
	req := newRequest(m, sess, call)
	in := &inflight{}
	in.c = Context{r: r, echo: conn.echo, http: conn.http, grant: conn.grant, shared: true, req: req, sess: sess, stream: &in.s}
	var (
		ctx    context.Context
		cancel context.CancelFunc
	)
	if sess != nil {
		// A dropped connection is no cancellation in a session: the
		// client may resume the stream.
		ctx, cancel = context.WithCancel((*sessionParent)(&in.c))
	} else {
		// On the 2026-07-28 wire closing the stream cancels the request.
		ctx, cancel = context.WithCancel(conn.http.Context())
	}
	ctx, end := probe.Start(r.cfg.probe, ctx, observe.Op{Method: m.Method, Name: req.Name, ID: m.ID, Version: req.Version,
		Stateless: call != nil, SessionID: req.SessionID, Header: conn.http.Header, Meta: req.Meta})
	in.c.ctx = ctx
	in.s = Stream{ctx: ctx, ob: ob, sess: sess, req: req, timeout: r.cfg.stateTTL}
	in.x = exchange{r: r, cat: r.catalog.Load(), c: &in.c, sess: sess, ob: ob, start: time.Now(), end: end}
	x := &in.x
	if sess == nil {
		x.cancel = cancel
		if err := call.Open(r.sealer, x.binding); err != nil {
			x.respond(methods.Failed(err), false)
			return
		}
	} else if !sess.Begin(m.ID, cancel) {
		cancel()
		x.respond(methods.Failed(jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: request id %s is already in flight in this session", m.ID)), false)
		return
	}
	if sess != nil {
		sess.Hold(m.ID, ob.ID())
	}
	f, e := methods.Find(m.Method, m.Params, sess != nil)
	if e != nil {
		x.respond(methods.Failed(e), true)
		return
	}
	if reply := x.call(f, m.Params); !reply.Pending {
		x.respond(reply, true)
	}
}

// call answers the request with f, its method, a panic becoming an
// internal error. A tools/call whose params read plainly goes to CallTool
// at once, as f would send it, so that the hottest method is one call
// deep from dispatch.
func (x *exchange) call(f methods.Func, params json.RawMessage) (reply methods.Outcome) {
	defer func() {
		if v := recover(); v != nil {
			reply = methods.Failed(x.internal(guard.Recovered(v)))
		}
	}()
	if x.c.req.Method == mcp.MethodToolsCall {
		if name, args, ok := methods.ReadCallTool(params, x.c.req.Name); ok {
			return x.CallTool(name, args)
		}
	}
	return f(x, params)
}

// respond encodes the reply as the request's response and ends the request.
func (x *exchange) respond(reply methods.Outcome, registered bool) {
	req := x.c.req
	var data []byte
	code := 0
	if buf, je := x.encode(reply); je != nil {
		code = je.Code
		data = jsonrpc.AppendError(nil, req.ID, je)
	} else {
		data = jsonrpc.AppendResult(nil, req.ID, buf.result)
		buf.free()
	}
	// The client cancelled the request: it wants no answer (MCP
	// cancellation), but the stream still ends.
	cancelled := registered && x.sess != nil && x.sess.End(req.ID)
	if cancelled {
		code = jsonrpc.CodeRequestCancelled
	}
	// Record first, then answer: a client that has its answer may look at
	// what the probe and the request log heard of it.
	if x.end != nil {
		e := observe.End{Outcome: probe.Outcome(reply.Result, code), Code: code}
		if d := x.c.req.Declaration; d != nil {
			e.Declaration = d.Name
		}
		x.end(e)
	}
	reqctx.Note(x.c.http.Context(), reqctx.Message{Method: req.Method, Name: req.Name, ID: string(req.ID),
		Session: req.SessionID, Principal: x.c.grant.principal, Code: code, Duration: time.Since(x.start)})
	switch {
	case cancelled:
		x.ob.Send(nil, true)
	case x.stateless():
		if code != 0 {
			x.ob.SetStatus(stateless.Status(code))
		}
		x.ob.Send(data, true)
		x.cancel()
	default:
		x.ob.Send(data, true)
	}
}

// outcome encodes a reply: its result as JSON (with what the 2026-07-28
// wire adds), or the JSON-RPC error a client may see.
func (x *exchange) outcome(reply methods.Outcome) (json.RawMessage, *jsonrpc.Error) {
	buf, je := x.encode(reply)
	if je != nil {
		return nil, je
	}
	defer buf.free()
	return bytes.Clone(buf.result), nil
}

// encode encodes a reply as outcome does, into a pooled buffer that the
// caller frees once it copied the result into the response.
func (x *exchange) encode(reply methods.Outcome) (*resultBuffer, *jsonrpc.Error) {
	if reply.Err != nil {
		var je *jsonrpc.Error
		if !errors.As(reply.Err, &je) {
			je = x.internal(reply.Err)
		}
		if x.stateless() {
			je = stateless.Error(je)
		}
		return nil, je
	}
	appendInfo := x.stateless() && x.decorate(reply.Result)
	buf := resultBuffers.Get().(*resultBuffer)
	buf.b.Reset()
	if err := buf.enc.Encode(reply.Result); err != nil {
		buf.free()
		return nil, x.internal(fmt.Errorf("encode %s result: %w", x.c.req.Method, err))
	}
	if appendInfo {
		buf.b.Grow(len(x.r.serverInfo) + 1)
	}
	buf.result = bytes.TrimSuffix(buf.b.Bytes(), []byte{'\n'})
	if appendInfo && len(buf.result) > 1 && buf.result[0] == '{' {
		buf.result = stateless.AppendInfo(buf.result, x.r.serverInfo)
	}
	return buf, nil
}

// resultBuffer is where a result is encoded before it is copied into its
// response; pooled, with its encoder, so that encoding allocates nothing
// of its own.
type resultBuffer struct {
	b      bytes.Buffer
	enc    *json.Encoder
	result []byte
}

var resultBuffers = sync.Pool{New: func() any {
	buf := &resultBuffer{}
	buf.enc = json.NewEncoder(&buf.b)
	return buf
}}

// maxPooledResult is the largest buffer put back in resultBuffers.
const maxPooledResult = 64 << 10

func (buf *resultBuffer) free() {
	if buf.b.Cap() <= maxPooledResult && cap(buf.result) <= maxPooledResult {
		buf.result = nil
		resultBuffers.Put(buf)
	}
}

// internal reports err in full and returns the generic error a client sees.
func (x *exchange) internal(err error) *jsonrpc.Error {
	x.r.report(x.c.ctx, err, x.c.req)
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error")
}

func (r *Router) report(ctx context.Context, err error, req *Request) {
	ev := r.log.Error().Err(err)
	if req != nil {
		ev = ev.Str("method", req.Method).Str("name", req.Name).Str("session", req.SessionID)
	}
	ev.Msg("mcp handler failed")
	if r.cfg.onError != nil {
		r.cfg.onError(ctx, err, req)
	}
}

// safely runs user code, turning a panic into an error Result so that a
// handler can never take the server down.
func safely(f func() Result) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Error(guard.Recovered(v))
		}
	}()
	return f()
}

// invoke runs a declaration's middleware and handler.
func (x *exchange) invoke(d *declaration) Result {
	x.c.req.Declaration = d.info
	return d.limit(safely(func() Result { return d.call(x.c.req, x.c) }))
}

// run invokes d and shapes its result, starting NoReply's work.
func (x *exchange) run(d *declaration) methods.Outcome {
	res := x.invoke(d)
	if d.tasks != TaskNone && x.taskable() && (res.kind == resultNoReply || x.sess != nil) {
		return x.startTask(d, res) // in a session, a task-augmented call always answers with a task
	}
	if res.kind != resultNoReply {
		return x.finish(d, res)
	}
	if !x.r.work.begin() {
		return methods.Failed(errShuttingDown)
	}
	dropped := x.r.watchDrop(x.c)
	go func() {
		defer x.r.work.done()
		res := x.work(res.work, x.c.stream)
		dropped()
		if res.kind == resultNoReply {
			res = Error(fmt.Errorf("%s %q: the work of NoReply returned NoReply; it must return the final reply", d.kind, d.name))
		}
		x.respond(x.finish(d, res), true)
	}()
	return methods.Outcome{Pending: true}
}

// finish turns a handler's Result into the method's reply.
func (x *exchange) finish(d *declaration, res Result) methods.Outcome {
	if res.kind == resultError {
		return x.failure(d, res.err)
	}
	var (
		v   any
		err error
	)
	switch d.kind {
	case kindTool:
		v, err = d.toolResult(res.value, mcp.HasStructuredContent(x.c.req.Version))
	case kindPrompt:
		v, err = methods.PromptResult(res.value, d.description)
	default:
		v, err = methods.ResourceResult(res.value, x.c.req.Name, d.mimeType)
	}
	if err != nil {
		return methods.Failed(x.internal(err))
	}
	return methods.Answer(v)
}

// failure maps a handler error: model-facing errors become tool results,
// invalid prompt arguments -32602, explicit JSON-RPC errors pass, and the
// rest become a generic internal error.
func (x *exchange) failure(d *declaration, err error) methods.Outcome {
	var (
		te *ToolError
		ve *params.ValidationError
		je *jsonrpc.Error
		ce *CapabilityError
	)
	switch {
	case x.stateless() && errors.Is(err, ErrInputRequired):
		return x.inputRequired(d)
	case errors.As(err, &je):
		return methods.Failed(je)
	case errors.As(err, &ce):
		return methods.Failed(stateless.MissingCapability(ce.Capability, ce.Error()))
	case x.c.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		// Work that stopped because its request ended is no failure to report.
		return methods.Failed(jsonrpc.Errorf(jsonrpc.CodeRequestCancelled, "Request cancelled"))
	case d.kind == kindTool && errors.Is(err, ErrInputTimeout):
		// The model can decide to ask again, or to go on without.
		return methods.Answer(methods.ToolError(err.Error()))
	case d.kind == kindTool && errors.As(err, &te):
		return methods.Answer(methods.ToolError(te.Message))
	case d.kind == kindTool && errors.As(err, &ve):
		return methods.Answer(methods.ToolError(ve.Error()))
	case errors.As(err, &ve):
		return methods.Failed(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", ve.Error()).WithData(map[string]any{"fields": ve.Fields}))
	}
	return methods.Failed(x.internal(err))
}

func (x *exchange) PageSize() int { return x.r.cfg.pageSize }

func (x *exchange) SetLogLevel(l mcp.LoggingLevel) {
	if x.sess == nil {
		return
	}
	if err := x.sess.SetLevel(l); err != nil {
		x.r.report(x.c.ctx, fmt.Errorf("logging/setLevel: %w", err), x.c.req)
	}
}

func (x *exchange) Discover() *mcp.DiscoverResult {
	caps := methods.Capabilities()
	caps.Extensions = x.r.extensions(x.cat, true)
	return &mcp.DiscoverResult{SupportedVersions: x.r.cfg.versions.Stateless, Capabilities: caps, Instructions: x.r.instructionsFor(x.c.grant)}
}

func (x *exchange) Tools() []*mcp.Tool {
	wanted := x.listFilter()
	return catalog.Visible(x.cat.Tools, func(d *declaration) bool { return wanted(d) && x.c.grant.allowsTool(d.name) && x.visible(d) },
		func(d *declaration) *mcp.Tool { return d.tool })
}

func (x *exchange) CallTool(name string, args json.RawMessage) methods.Outcome {
	d := x.cat.ByTool[name]
	if d == nil || !x.c.grant.allowsTool(name) {
		return methods.Failed(unknownTool(name))
	}
	if ok, missing := x.c.grant.permits(d); !ok {
		return methods.Failed(x.refuseUse(d, missing))
	}
	if e := task.Refusal(d.name, taskSupports[d.tasks], x.stateless(), x.tasksDeclared()); e != nil {
		return methods.Failed(e)
	}
	if d.tasks == TaskRequired && !x.taskable() {
		return methods.Failed(jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"Invalid Request: tool %q runs only as a task, and this server keeps tasks only for authenticated callers", name))
	}
	return x.run(d)
}

func unknownTool(name string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown tool: %s", name)
}

func (x *exchange) Prompts() []*mcp.Prompt {
	wanted := x.listFilter()
	return catalog.Visible(x.cat.Prompts, func(d *declaration) bool { return wanted(d) && x.c.grant.allowsPrompt(d.name) && x.visible(d) },
		func(d *declaration) *mcp.Prompt { return d.prompt })
}

func (x *exchange) GetPrompt(name string, _ map[string]string) methods.Outcome {
	d := x.cat.ByPrompt[name]
	if d == nil || !x.c.grant.allowsPrompt(name) {
		return methods.Failed(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown prompt: %s", name))
	}
	if ok, missing := x.c.grant.permits(d); !ok {
		return methods.Failed(x.refuseUse(d, missing))
	}
	return x.run(d) // validates req.Arguments, which handlers found to be strings
}

func (x *exchange) Resources() []*mcp.Resource {
	wanted := x.listFilter()
	return catalog.Visible(x.cat.Resources, func(d *declaration) bool {
		return wanted(d) && x.c.grant.allowsResource(d, d.resource.URI) && x.visible(d)
	},
		func(d *declaration) *mcp.Resource { return d.resource })
}

func (x *exchange) ResourceSources() []methods.ResourceSource {
	wanted := x.listFilter()
	return catalog.Visible(x.cat.Templates, func(d *declaration) bool { return d.list != nil && wanted(d) && x.seesFamily(d) },
		func(d *declaration) methods.ResourceSource {
			return func(cursor string) ([]mcp.Resource, string, bool, error) { return x.list(d, cursor) }
		})
}

// list runs a template's List handler for one page. A handler pages by
// itself when it names a next page (PutNextCursor) or is asked for one by
// its cursor; one that does neither listed everything at once.
func (x *exchange) list(d *declaration, cursor string) (page []mcp.Resource, next string, paged bool, err error) {
	req, c := *x.c.req, *x.c
	req.cursor = cursor
	c.req, c.next, c.hasNext = &req, "", false
	res := safely(func() Result { return d.list(nil, &req, &c) })
	page, ok := res.value.([]mcp.Resource)
	var je *jsonrpc.Error
	switch {
	case res.kind == resultError && errors.As(res.err, &je):
		return nil, "", false, je
	case res.kind == resultError:
		return nil, "", false, x.internal(fmt.Errorf("list %q: %w", d.name, res.err))
	case res.kind == resultNoReply:
		return nil, "", false, x.internal(fmt.Errorf("list %q: List handlers answer with Reply, not NoReply", d.name))
	case !ok && res.value != nil:
		return nil, "", false, x.internal(fmt.Errorf("list %q: replied %T; want []mcp.Resource", d.name, res.value))
	}
	return page, c.next, c.hasNext || cursor != "", nil
}

func (x *exchange) Templates() []*mcp.ResourceTemplate {
	wanted := x.listFilter()
	return catalog.Visible(x.cat.Templates, func(d *declaration) bool { return wanted(d) && x.seesFamily(d) },
		func(d *declaration) *mcp.ResourceTemplate { return d.template })
}

// seesFamily reports whether the caller may see a template or skill as a
// whole (not one URI of it).
func (x *exchange) seesFamily(d *declaration) bool {
	return x.c.grant.allowsResource(d, "") && x.visible(d)
}

// longURI refuses a URI longer than MaxURIBytes, before any template is
// matched against it.
func (x *exchange) longURI(uri string) *jsonrpc.Error {
	if len(uri) <= x.r.cfg.maxURI {
		return nil
	}
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: the resource URI is %d bytes long; this server accepts at most %d", len(uri), x.r.cfg.maxURI)
}

// resourceFor finds the declaration serving uri, and the one spelling of
// uri that access checks, the handler and subscriptions all see: its
// escapes normalized (RFC 3986 §6.2.2), then, under a template, the URI
// the values it holds expand to (escapes of reserved characters decoded,
// {+path} cleaned). Checking one spelling and serving another would let
// "app://docs/%73ecret" past HideResources("app://docs/secret"), or a
// template serve what a fixed URI with Scopes guards.
func resourceFor(cat *catalog.Catalog[*declaration], uri string) (*declaration, string) {
	uri = uripattern.Normalize(uri)
	for range 3 { // the canonical URI may belong to another declaration
		d, vals := cat.ResourceFor(uri)
		if d == nil || !d.pattern.IsTemplate() || d.IsSkill() {
			return d, uri
		}
		canonical, err := d.pattern.Canonical(vals)
		if err != nil {
			return nil, uri
		}
		if canonical == uri {
			return d, uri
		}
		uri = canonical
	}
	return nil, uri // spellings that do not settle name nothing
}

func (x *exchange) ReadResource(uri string) methods.Outcome {
	if je := x.longURI(uri); je != nil {
		return methods.Failed(je)
	}
	d, canonical := resourceFor(x.cat, uri)
	if d == nil || !x.c.grant.allowsResource(d, canonical) {
		return methods.Failed(ResourceNotFound(uri))
	}
	if ok, missing := x.c.grant.permits(d); !ok {
		return methods.Failed(x.refuseUse(d, missing))
	}
	x.c.req.Name = canonical
	return x.run(d)
}

func (x *exchange) Subscribe(uri string, on bool) error {
	if je := x.longURI(uri); je != nil {
		return je
	}
	d, canonical := resourceFor(x.cat, uri)
	var p Params
	if on {
		if d == nil || !x.c.grant.allowsResource(d, canonical) || !x.visible(d) {
			return ResourceNotFound(uri)
		}
		var err error
		if p, err = d.templateParams(canonical); err != nil {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %s", err)
		}
	}
	uri = canonical
	if limit := x.r.cfg.maxSubs; on && limit > 0 && !x.sess.Subscribed(uri) && len(x.sess.Subscriptions()) >= limit {
		return tooManySubscriptions(limit)
	}
	var err error // OnSubscribe may refuse; OnUnsubscribe may not
	if perr := guard.Run(func() {
		if on && x.r.onSubscribe != nil {
			err = x.r.onSubscribe(x.c, uri, p)
		} else if !on {
			x.r.unsubscribed(x.sess, uri)
		}
	}); perr != nil {
		return x.internal(perr)
	}
	if je := (*jsonrpc.Error)(nil); err != nil && !errors.As(err, &je) {
		err = jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Subscription refused: %s", err)
	}
	if err != nil {
		return err
	}
	if err := x.sess.Subscribe(uri, on); errors.Is(err, backplane.ErrTooMany) {
		// Another node took the last place meanwhile: OnSubscribe's
		// watcher is not wanted after all.
		_ = guard.Run(func() { x.r.unsubscribed(x.sess, uri) })
		return tooManySubscriptions(x.r.cfg.maxSubs)
	} else if err != nil {
		return x.internal(fmt.Errorf("resources/subscribe: %w", err))
	}
	return nil
}

// tooManySubscriptions refuses a subscription past
// MaxSubscriptionsPerSession.
func tooManySubscriptions(limit int) *jsonrpc.Error {
	return jsonrpc.Errorf(-32000, "Too many subscriptions: this session already follows %d resources, the most allowed; unsubscribe from one first", limit)
}

func (x *exchange) Complete(p *mcp.CompleteParams) (*mcp.Completion, error) {
	var d *declaration
	switch p.Ref.Type {
	case mcp.RefPrompt:
		if d = x.cat.ByPrompt[p.Ref.Name]; d == nil || !x.c.grant.allowsPrompt(d.name) || !x.visible(d) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown prompt: %s", p.Ref.Name)
		}
	default:
		if d = x.cat.ByURI[p.Ref.URI]; d == nil || d.template == nil || !x.seesFamily(d) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown resource template: %s", p.Ref.URI)
		}
	}
	comp := d.completers[p.Argument.Name]
	if comp == nil {
		return &mcp.Completion{Values: []string{}}, nil
	}
	var args map[string]string
	if p.Context != nil {
		args = p.Context.Arguments
	}
	x.c.req.Declaration = d.info
	call := d.chain(func(_ *Request, c *Context) Result {
		vals, err := comp.Complete(c, p.Argument.Value, args)
		if err != nil {
			return Error(err)
		}
		return Reply(vals)
	})
	res := safely(func() Result { return call(x.c.req, x.c) })
	vals, ok := res.value.([]string)
	if je := (*jsonrpc.Error)(nil); errors.As(res.err, &je) {
		return nil, je
	} else if !ok {
		return nil, x.internal(errors.Join(fmt.Errorf("complete %s %q argument %q: answered %T", d.kind, d.name, p.Argument.Name, res.value), res.err))
	}
	total := len(vals)
	return &mcp.Completion{Values: vals, Total: &total}, nil
}

// visible reports whether the caller's scopes and the declaration's
// policy let it see d, and remembers when they hid something: the answer
// then depends on the caller and must not be cached publicly.
func (x *exchange) visible(d *declaration) bool {
	ok, _ := x.c.grant.permits(d)
	if !ok {
		x.hid = true
	}
	return ok
}

func (g *grant) allowsTool(name string) bool { return g.tools.Permits(name) }

func (g *grant) allowsPrompt(name string) bool { return g.prompts.Permits(name) }

// allowsResource: a resource is named by its URI, or by its declaration
// (pattern as written or as RFC 6570 template).
func (g *grant) allowsResource(d *declaration, uri string) bool {
	return g.resources.Permits(d.name, d.pattern.Template(), uri)
}

// binding is what a requestState of this request belongs to.
func (x *exchange) binding() stateless.Binding {
	return stateless.Bind(x.c.grant.principal, x.c.req.Method, x.c.req.Name, x.c.req.Arguments)
}

// inputRequired is the input_required result of a run that asked.
func (x *exchange) inputRequired(d *declaration) methods.Outcome {
	res, err := x.c.req.stateless.InputRequired(x.r.sealer, x.binding())
	if err != nil {
		return methods.Failed(x.internal(fmt.Errorf("%s %q: %w", d.kind, d.name, err)))
	}
	return methods.Answer(res)
}

// work runs NoReply's work on s, as an Op of its own for the probe.
func (x *exchange) work(work func(*Stream) Result, s *Stream) Result {
	ws := *s
	ctx, end := probe.Work(s.ctx)
	ws.ctx = ctx
	res := safely(func() Result { return work(&ws) })
	end(probe.Err(res.err))
	return res
}

func (x *exchange) refuseUse(d *declaration, missing []string) *jsonrpc.Error {
	x.ob.SetStatus(http.StatusForbidden)
	msg := "Forbidden: you may not use this " + d.kind.String()
	if len(missing) > 0 {
		x.ob.SetHeader("WWW-Authenticate", bearer.Refusal(x.c.http, http.StatusForbidden, strings.Join(missing, " "), x.r.cfg.resourceMeta))
		msg += "; it needs the scope " + strings.Join(missing, " ")
	}
	return jsonrpc.Errorf(CodeForbidden, "%s", msg)
}

// Skills and SkillAt serve the methods of the skills extension, which
// exist only while at least one skill is declared.
func (x *exchange) Skills() ([]*mcp.Skill, error) {
	if len(x.cat.Skills) == 0 {
		return nil, x.noSkills()
	}
	return catalog.Visible(x.cat.Skills, x.seesFamily, func(d *declaration) *mcp.Skill { return &d.skill.Entry }), nil
}

func (x *exchange) SkillAt(uri string) (*skills.Skill, error) {
	if len(x.cat.Skills) == 0 {
		return nil, x.noSkills()
	}
	d, ok := x.cat.SkillFor(uri)
	if !ok || !x.seesFamily(d) {
		return nil, nil
	}
	return d.skill, nil
}

func (x *exchange) noSkills() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s (this server declares no skills)", x.c.req.Method)
}

// decorate adds what the 2026-07-28 revision puts on results, with the
// caching hint of the router or of the resource read.
func (x *exchange) decorate(result any) (appendInfo bool) {
	base, appendInfo := stateless.Decorate(result, x.r.info, x.c.req.Method)
	if base == nil {
		return appendInfo
	}
	hint := x.r.cfg.cache
	if m := x.c.req.Method; m == mcp.MethodResourcesRead || m == mcp.MethodSkillsGet {
		if d, _ := x.cat.ResourceFor(x.c.req.Name); d != nil && d.cache != nil {
			hint = *d.cache
		}
	}
	// What this caller sees depends on who it is.
	stateless.Cache(base, hint.ttl, hint.visibility, x.c.grant.filtered() || x.c.grant.principal != "" || x.hid)
	return appendInfo
}

// decorateInMeta is decorate for a result encoded elsewhere: the server's
// identity goes in its _meta map.
func (x *exchange) decorateInMeta(result any) {
	if x.decorate(result) {
		result.(interface{ Base() *mcp.ResultBase }).Base().Meta = mcp.Meta{mcp.MetaServerInfo: x.r.info}
	}
}

// tasksDeclared reports whether this request asks for a task.
func (x *exchange) tasksDeclared() bool {
	if !x.stateless() {
		return x.c.req.task != nil && x.c.req.Version >= mcp.Version20251125
	}
	_, ok := x.c.req.ClientCapabilities.Extensions[mcp.ExtensionTasks]
	return ok
}

// taskable reports whether this request's work may become a task: it
// asks for one, and its tasks can be bound to its caller.
func (x *exchange) taskable() bool {
	return x.tasksDeclared() && (x.sess != nil || x.c.grant.principal != "" || x.r.cfg.anonymousTasks)
}

// owner is who may see the tasks this request creates: its session in
// the session era; on the 2026-07-28 wire its principal, or, anonymous,
// its client address (see AnonymousTasks).
func (x *exchange) owner() string {
	switch {
	case x.sess != nil:
		return "s:" + x.sess.ID()
	case x.c.grant.principal != "":
		return "p:" + x.c.grant.principal
	}
	return "a:" + host{x.r}.Holder(x.c)
}

// listedOwner reports whether owner's tasks are ever listed: a session's
// are (tasks/list of 2025-11-25); a principal's are not, as the 2026-07-28
// wire has no tasks/list.
func listedOwner(owner string) bool { return strings.HasPrefix(owner, "s:") }

// startTask runs a tool's work as a task and answers with the task; a
// session's tasks end with it.
func (x *exchange) startTask(d *declaration, res Result) methods.Outcome {
	base, sess := context.WithoutCancel(x.c.ctx), x.sess
	var notify func([]byte)
	if sess != nil {
		// A session's task ends with the session, not with its request.
		base, notify = (*sessionParent)(x.c), sess.Notify
	}
	// Holding a place in the work group while the table adds the task's
	// keeps Shutdown from beginning its wait in between.
	if !x.r.work.begin() {
		return methods.Failed(errShuttingDown)
	}
	defer x.r.work.done()
	created, err := x.r.tasks.Start(base, x.owner(), host{x.r}.Holder(x.c), task.TTL(x.c.req.task, x.r.cfg.taskTTL), notify, &x.r.work.wg,
		func(ctx context.Context, t *task.Task) (json.RawMessage, *jsonrpc.Error) {
			tx, c := *x, *x.c
			tx.c, c.ctx = &c, ctx
			c.stream = &Stream{ctx: ctx, ob: x.ob, req: x.c.req, task: t}
			if sess != nil {
				c.stream.ob, c.stream.sess, c.stream.timeout = sess.GetStream(), sess, x.r.cfg.stateTTL
			}
			if res.kind == resultNoReply {
				res = x.work(res.work, c.stream)
			}
			return tx.outcome(tx.finish(d, res))
		})
	if je := (*jsonrpc.Error)(nil); errors.As(err, &je) {
		return methods.Failed(je) // over the caller's limit
	} else if err != nil {
		return methods.Failed(x.internal(err))
	}
	return methods.Answer(created.Reply(sess != nil))
}

// Task answers tasks/get, tasks/result and tasks/cancel in a session;
// tasks/result waits for the task to end.
func (x *exchange) Task(method, id string) methods.Outcome {
	answer := func() methods.Outcome {
		body, err := x.r.tasks.Answer(x.c.ctx, method, id, x.owner())
		return methods.Outcome{Result: body, Err: err}
	}
	if method != mcp.MethodTasksResult {
		return answer()
	}
	go func() { x.respond(answer(), true) }()
	return methods.Outcome{Pending: true}
}

// Tasks lists the tasks of the session (tasks/list).
func (x *exchange) Tasks() ([]*mcp.SessionTask, error) { return x.r.tasks.Wires(x.owner()) }
