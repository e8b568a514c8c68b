package specter

import (
	"github.com/specter-mcp/specter/internal/probe"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/observe"
)

// Call answers a tools/call, prompts/get, resources/read or
// completion/complete: the next middleware, or validation and handler.
type Call func(req *Request, c *Context) Result

// Middleware wraps calls, Plug-style. It runs before the arguments are
// validated, sees the declaration (req.Declaration), the raw arguments,
// the request and its Context, and may answer instead of next or change
// its answer (Result.Then). Chains are composed when a declaration is
// made: the router's Use, then the declaration's, the first outermost. A
// NoReply passes through as soon as the handler returns; Then reaches its
// work's reply. A 2026-07-28 handler that asks for input runs again with
// the answer, and so does its chain, once per round. A completion runs
// the chain of its prompt or template, and answers Reply([]string).
type Middleware func(next Call) Call

// Declaration describes a tool, prompt or resource to middleware; read only.
type Declaration struct {
	Kind        string // "tool", "prompt" or "resource"
	Name        string // tool or prompt name; resource URI or template as declared
	Annotations *mcp.ToolAnnotations
	Meta        mcp.Meta
	Scopes      []string
	Tasks       TaskSupport
}

// work runs NoReply's work on s, as an Op of its own for the probe.
func (x *exchange) work(work func(*Stream) Result, s *Stream) Result {
	ws := *s
	var end func(observe.End)
	ws.ctx, end = probe.Child(s.ctx, observe.Op{Kind: observe.Work, Method: x.c.req.Method, Name: x.c.req.Name, ID: x.c.req.ID,
		Version: x.c.req.Version, Stateless: x.modern(), SessionID: x.c.req.SessionID})
	res := safely(func() Result { return work(&ws) })
	end(probe.Err(res.err))
	return res
}

// completion is the Call of a Completer, at the end of a chain.
func completion(comp Completer, value string, args map[string]string) Call {
	return func(_ *Request, c *Context) Result {
		vals, err := comp.Complete(c, value, args)
		if err != nil {
			return Error(err)
		}
		return Reply(vals)
	}
}

// Use adds middleware around every call. Chains are composed when a
// declaration is made, so Use comes first: after a declaration it panics.
func (r *Router) Use(mw ...Middleware) {
	if c := r.catalog.Load(); len(c.Tools)+len(c.Prompts)+len(c.Resources)+len(c.Templates) > 0 {
		panic("specter: Use after a declaration; call Use before declaring")
	}
	r.mw = append(r.mw, mw...)
}

// Use is a declaration option that adds middleware to its calls, inside
// the router's. A group of declarations shares a chain by sharing the
// option: admin := specter.Use(requireAdmin, audit).
func Use(mw ...Middleware) DeclOption {
	return declOption(func(d *declaration) { d.mw = append(d.mw, mw...) })
}

// chain wraps call in d's middleware, the first outermost.
func (d *declaration) chain(call Call) Call {
	for i := len(d.mw) - 1; i >= 0; i-- {
		call = d.mw[i](call)
	}
	return call
}
