package specter

import (
	"github.com/specter-mcp/specter/internal/access"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/principal"
)

// Scopes requires the caller to hold every given OAuth scope (from the
// token auth.JWT verified, or the caller connect set). A caller without
// them does not see the tool, prompt or resource in any list, completion
// or notification, and using it answers 403 with a WWW-Authenticate
// challenge naming the scopes, so the client can ask for them (step-up).
func Scopes(scopes ...string) DeclOption {
	return declOption(func(d *declaration) { d.scopes = append(d.scopes, scopes...) })
}

// Policy makes a tool, prompt or resource available only to callers for
// whom allow returns true (allow receives nil for anonymous callers).
// Like Scopes, it hides the item and refuses its use with 403.
func Policy(allow func(caller *principal.Principal) bool) DeclOption {
	return declOption(func(d *declaration) { d.policy = allow })
}

// permits reports whether the caller meets the declaration's scopes and
// policy, and which scopes are missing.
func (g *grant) permits(d *declaration) (ok bool, missing []string) {
	return access.Allows(g.caller, d.scopes, d.policy)
}

// CodeForbidden is the JSON-RPC error code of a request refused for want
// of scopes or by a policy (from the implementation-defined range).
const CodeForbidden = jsonrpc.CodeForbidden

// SetCaller sets the caller connect authenticated, with its scopes, when
// no authentication middleware put one in the request context. It also
// sets the principal to caller.ID.
func (c *Context) SetCaller(caller *principal.Principal) {
	s := c.writable()
	s.caller = caller
	if caller != nil {
		s.principal = caller.ID
	}
}
