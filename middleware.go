package specter

import (
	"github.com/specter-mcp/specter/mcp"
)

// Call answers a tools/call, prompts/get, resources/read or
// completion/complete: the next middleware, or validation and handler.
type Call func(req *Request, c *Context) Result

// Middleware wraps calls, Plug-style: before the arguments are validated,
// it sees the declaration (req.Declaration), the raw arguments, the
// request and its Context, and may answer instead of next or change its
// answer (Result.Then). The router's Use wraps the declaration's, the
// first outermost. A NoReply passes through when the handler returns;
// Then reaches its work's reply. On 2026-07-28 a handler that asks for
// input runs again, chain and all, once per round. A completion runs the
// chain of its prompt or template, which answers Reply([]string).
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

// Use adds middleware around every call. Chains are composed when a
// declaration is made, so Use comes first: after a declaration it panics.
func (r *Router) Use(mw ...Middleware) {
	r.mu.Lock()
	c := r.declared()
	r.mu.Unlock()
	if len(c.Tools)+len(c.Prompts)+len(c.Resources)+len(c.Templates) > 0 {
		panic("specter: Use after a declaration; call Use before declaring")
	}
	r.mw = append(r.mw, mw...)
}

// Use is a declaration option adding middleware inside the router's; the
// declarations given one form a group: admin := specter.Use(requireAdmin).
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
