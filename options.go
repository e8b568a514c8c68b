package specter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/specter-mcp/specter/internal/guard"
	"github.com/specter-mcp/specter/internal/option"
	"github.com/specter-mcp/specter/jsonrpc"
	"github.com/specter-mcp/specter/mcp"
)

// Option configures a tool, prompt or resource declaration. The options of
// this package (Description, Title, ReadOnly, Complete, …) are Options, and
// so is every params.Field: a field declares a parameter. The set is
// closed: a params.Option such as params.Description configures a field,
// not a declaration, and passing one to r.Tool does not compile.
type Option interface {
	// DeclarationOption marks an Option; only this module can name the
	// seal, so no other type can be one.
	DeclarationOption(option.Seal)
}

// DeclOption is an Option that sets a property of a declaration.
type DeclOption struct{ apply func(*declaration) }

// DeclarationOption marks d as an Option.
func (DeclOption) DeclarationOption(option.Seal) {}

// declOption wraps a setter as a DeclOption.
func declOption(f func(*declaration)) DeclOption { return DeclOption{apply: f} }

// SharedOption configures a declaration or, given to NewRouter, the server.
type SharedOption struct {
	decl   func(*declaration)
	router func(*Router)
}

func (o SharedOption) applyRouter(r *Router) { o.router(r) }

// DeclarationOption marks o as an Option.
func (SharedOption) DeclarationOption(option.Seal) {}

// Description sets what a tool, prompt or resource does (for the LLM), or,
// given to NewRouter, what the server is.
func Description(s string) SharedOption {
	return SharedOption{
		decl:   func(d *declaration) { d.description = s },
		router: func(r *Router) { r.info.Description = s },
	}
}

// Title sets a human-readable display name.
func Title(s string) SharedOption {
	return SharedOption{
		decl:   func(d *declaration) { d.title = s },
		router: func(r *Router) { r.info.Title = s },
	}
}

// Icons sets the icons a client may show.
func Icons(icons ...mcp.Icon) SharedOption {
	return SharedOption{
		decl:   func(d *declaration) { d.icons = icons },
		router: func(r *Router) { r.info.Icons = icons },
	}
}

// Meta sets the _meta object of a declaration.
func Meta(meta mcp.Meta) DeclOption { return declOption(func(d *declaration) { d.meta = meta }) }

// Name sets a resource's name (default: its URI or template).
func Name(s string) DeclOption { return declOption(func(d *declaration) { d.resourceName = s }) }

// MIMEType sets a resource's MIME type.
func MIMEType(s string) DeclOption { return declOption(func(d *declaration) { d.mimeType = s }) }

// ReadOnly hints that a tool does not change its environment.
func ReadOnly() DeclOption {
	return hint(func(a *mcp.ToolAnnotations, b *bool) { a.ReadOnlyHint = b }, true)
}

// Destructive hints whether a tool may destroy data (the spec's default is
// true for tools that are not read-only).
func Destructive(v bool) DeclOption {
	return hint(func(a *mcp.ToolAnnotations, b *bool) { a.DestructiveHint = b }, v)
}

// Idempotent hints that calling a tool twice with the same arguments has no
// further effect.
func Idempotent() DeclOption {
	return hint(func(a *mcp.ToolAnnotations, b *bool) { a.IdempotentHint = b }, true)
}

// OpenWorld hints whether a tool reaches an open world of external
// entities (the spec's default is true).
func OpenWorld(v bool) DeclOption {
	return hint(func(a *mcp.ToolAnnotations, b *bool) { a.OpenWorldHint = b }, v)
}

// Annotations sets a tool's annotations whole: for a tool re-exported as
// another server declared it (a gateway).
func Annotations(a mcp.ToolAnnotations) DeclOption {
	return declOption(func(d *declaration) { d.annotations = &a })
}

func hint(set func(*mcp.ToolAnnotations, *bool), v bool) DeclOption {
	return declOption(func(d *declaration) {
		if d.annotations == nil {
			d.annotations = &mcp.ToolAnnotations{}
		}
		set(d.annotations, &v)
	})
}

// InputSchema gives a tool a raw JSON Schema instead of params fields. It is
// served verbatim and enforced with a JSON Schema validator.
func InputSchema(schema json.RawMessage) DeclOption {
	return declOption(func(d *declaration) { d.rawInput = schema })
}

// OutputSchema declares the JSON Schema of a tool's structuredContent.
// Clients then expect every successful result to carry structuredContent.
func OutputSchema(schema json.RawMessage) DeclOption {
	return declOption(func(d *declaration) { d.outputSchema = schema })
}

// Complete attaches a completion provider to a prompt argument or a
// resource template variable. Enum params complete by themselves.
func Complete(argument string, c Completer) DeclOption {
	return declOption(func(d *declaration) {
		if d.completers == nil {
			d.completers = map[string]Completer{}
		}
		d.completers[argument] = c
	})
}

// List makes a resource template enumerable in resources/list: h returns
// the current page as []mcp.Resource, reads the page's cursor with
// req.Cursor() and sets the next one with c.PutNextCursor.
func List(h Handler) DeclOption { return declOption(func(d *declaration) { d.list = h }) }

// Cache sets the caching hints (2026-07-28 ttlMs and cacheScope) of a
// resource's reads or, given to NewRouter, of discovery and every list
// and read by default (default: 0 ms, public). visibility, the wire's
// cacheScope, is mcp.CachePublic or mcp.CachePrivate. Results that depend
// on the caller (connect set a list or a principal) are always private.
func Cache(ttl time.Duration, visibility string) SharedOption {
	h := cacheHint{ttl: ttl, visibility: visibility}
	if visibility != mcp.CachePrivate {
		h.visibility = mcp.CachePublic
	}
	if ttl < 0 {
		h.ttl = 0
	}
	return SharedOption{
		decl:   func(d *declaration) { d.cache = &h },
		router: func(r *Router) { r.cfg.cache = h },
	}
}

// TimeLimit bounds how long the work of a NoReply may run: past d its
// Stream's context ends and the client is told at once (a tool with an
// error result, a prompt or resource with a JSON-RPC error). Default: none.
func TimeLimit(d time.Duration) DeclOption {
	return declOption(func(decl *declaration) { decl.timeLimit = d })
}

// limit applies d's TimeLimit to the work of res.
func (d *declaration) limit(res Result) Result {
	if work := res.work; res.kind == resultNoReply && d.timeLimit > 0 {
		res.work = func(s *Stream) Result {
			if out, ok := guard.Within(s.ctx, d.timeLimit, func(ctx context.Context) Result {
				ls := *s
				ls.ctx = ctx
				return safely(func() Result { return work(&ls) })
			}); ok {
				return out
			}
			msg := fmt.Sprintf("%s %q did not finish within its time limit of %v and was stopped", d.kind, d.name, d.timeLimit)
			if d.kind == kindTool {
				return Error(NewToolError(msg))
			}
			return Error(jsonrpc.Errorf(jsonrpc.CodeInternalError, "Request timed out: %s", msg))
		}
	}
	return res
}
