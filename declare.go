package specter

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/specter-mcp/specter/internal/catalog"
	"github.com/specter-mcp/specter/internal/skills"
	"github.com/specter-mcp/specter/internal/stateless"
	"github.com/specter-mcp/specter/internal/uripattern"
	"github.com/specter-mcp/specter/mcp"
	"github.com/specter-mcp/specter/params"
	"github.com/specter-mcp/specter/principal"
)

// Handler answers a tools/call, prompts/get or resources/read. For a
// resource template, p holds the template's variables.
type Handler func(p Params, req *Request, c *Context) Result

// Params are a handler's validated arguments, with defaults applied.
type Params = params.Values

type kind = catalog.Kind

const kindTool, kindPrompt, kindResource = catalog.Tool, catalog.Prompt, catalog.Resource

// declaration is one tool, prompt or resource, compiled at registration.
type declaration struct {
	kind         kind
	name         string // tool or prompt name; resource pattern as written
	title        string
	description  string
	icons        []mcp.Icon
	meta         mcp.Meta
	tags         []string // Tags
	annotations  *mcp.ToolAnnotations
	resourceName string
	mimeType     string
	size         *int64           // Size
	resAnn       *mcp.Annotations // ResourceAnnotations
	typedVars    map[string]bool  // template variables declared as integer, number or boolean
	rawInput     json.RawMessage
	outputSchema json.RawMessage
	output       *params.Schema                                       // outputSchema compiled: structuredContent is checked against it
	mismatch     func(*mcp.CallToolResult, error) *mcp.CallToolResult // OutputMismatch
	optErr       error                                                // an option that could not be applied (Output)
	implicit     bool                                                 // declared by Methods: an explicit declaration replaces it
	completers   map[string]Completer
	list         Handler
	cache        *cacheHint
	tasks        TaskSupport
	timeLimit    time.Duration // of NoReply's work; 0: none
	scopes       []string
	policy       func(*principal.Principal) bool
	headers      []stateless.ParamHeader // params mirrored into Mcp-Param-* headers
	skill        *skills.Skill           // a skill, declared as its SKILL.md resource
	ui           *uiSpec                 // MCP Apps options (apps.go)

	fields  []params.Field
	schema  *params.Schema
	pattern *uripattern.Pattern
	// call validates req.Arguments and runs the handler, in mw once added.
	call Call
	mw   []Middleware
	info *Declaration // middleware's view

	// Wire forms, built once.
	tool     *mcp.Tool
	prompt   *mcp.Prompt
	resource *mcp.Resource
	template *mcp.ResourceTemplate
}

// DeclarationError says which declaration is wrong and why. Declaring
// methods panic with it, so mistakes stop the program at startup.
type DeclarationError struct {
	Kind string // "tool", "prompt", "resource" or "skill"
	Name string
	Err  error
}

func (e *DeclarationError) Error() string {
	return fmt.Sprintf("specter: %s %q: %v", e.Kind, e.Name, e.Err)
}

func (e *DeclarationError) Unwrap() error { return e.Err }

func newDeclaration(k kind, name string, opts []Option) (*declaration, error) {
	d := &declaration{kind: k, name: name}
	for _, o := range opts {
		switch o := o.(type) {
		case DeclOption:
			o.apply(d)
		case SharedOption:
			o.decl(d)
		case params.Field:
			d.fields = append(d.fields, o)
		case nil:
		default:
			return nil, fmt.Errorf("%T is not a declaration option", o)
		}
	}
	if d.optErr != nil {
		return nil, d.optErr
	}
	if d.description == "" {
		return nil, fmt.Errorf("a description is required: the LLM reads it to decide when to use the %s", k)
	}
	return d, nil
}

// compile checks the declaration and builds its schema and wire forms.
// schema is non-nil for typed (struct) declarations.
func (d *declaration) compile(schema *params.Schema) error {
	if err := d.compileUI(); err != nil {
		return err
	}
	out, err := catalog.Compile(&catalog.Spec{Kind: d.kind, Name: d.name, Title: d.title, Description: d.description,
		Icons: d.icons, Meta: tagMeta(d.meta, d.tags), Annotations: d.annotations, ResourceName: d.resourceName, MIMEType: d.mimeType,
		Size: d.size, ResourceAnnotations: d.resAnn,
		RawInput: d.rawInput, OutputSchema: d.outputSchema, Fields: d.fields, Typed: schema,
		Completed: slices.Sorted(maps.Keys(d.completers)), Listed: d.list != nil, TaskSupport: taskSupports[d.tasks]})
	if err != nil {
		return err
	}
	d.schema, d.pattern, d.headers, d.output = out.Schema, out.Pattern, out.Headers, out.Output
	d.tool, d.prompt, d.resource, d.template = out.Tool, out.Prompt, out.Resource, out.Template
	for _, f := range d.schema.Fields() {
		if d.kind == kindResource && (f.Type == "integer" || f.Type == "number" || f.Type == "boolean") {
			if d.typedVars == nil {
				d.typedVars = map[string]bool{}
			}
			d.typedVars[f.Name] = true
		}
		if len(f.Enum) > 0 && d.completers[f.Name] == nil {
			if d.completers == nil {
				d.completers = map[string]Completer{}
			}
			d.completers[f.Name] = Values(f.Enum...)
		}
	}
	return nil
}

// The catalog's view of a declaration (catalog.Entry).
func (d *declaration) Kind() catalog.Kind           { return d.kind }
func (d *declaration) Name() string                 { return d.name }
func (d *declaration) Pattern() *uripattern.Pattern { return d.pattern }
func (d *declaration) IsSkill() bool                { return d.skill != nil }
func (d *declaration) Serves(uri string) bool       { return d.skill != nil && d.skill.Files[uri] != nil }

// warnUndeclared logs, once per name, that connect named a declaration
// that does not exist: usually a typo that hides an item from everyone.
func (r *Router) warnUndeclared(k kind, name string) {
	if r.warned.First(k.String() + " " + name) {
		r.log.Warn().Str("kind", k.String()).Str("name", name).Msg("mcp connect names a " + k.String() + " that is not declared; a typo hides it from this caller")
	}
}

func (r *Router) add(d *declaration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	d.info = &Declaration{Kind: d.kind.String(), Name: d.name, Annotations: d.annotations, Meta: d.meta, Scopes: d.scopes, Tasks: d.tasks}
	d.mw = append(slices.Clone(r.mw), d.mw...)
	d.call = d.chain(d.call)
	cat := r.declared()
	if !d.implicit {
		cat = cat.Without(d.kind, d.name, func(e *declaration) bool { return e.implicit }) // an explicit declaration wins (Methods)
	}
	if r.batch != nil {
		return r.batch.insert(cat, d)
	}
	c, err := cat.Add(d)
	if err != nil {
		return err
	}
	r.catalog.Store(c)
	r.changed(d.kind)
	return nil
}

func (r *Router) declare(k kind, name string, h Handler, schema *params.Schema, call func(*declaration) Call, opts []Option) {
	if err := r.tryDeclare(k, name, h, schema, call, opts); err != nil {
		panic(err)
	}
}

func (r *Router) tryDeclare(k kind, name string, h Handler, schema *params.Schema, call func(*declaration) Call, opts []Option) error {
	wrap := func(err error) error { return &DeclarationError{Kind: k.String(), Name: name, Err: err} }
	if h == nil && call == nil {
		return wrap(fmt.Errorf("the handler is nil"))
	}
	d, err := newDeclaration(k, name, opts)
	if err != nil {
		return wrap(err)
	}
	if err := d.compile(schema); err != nil {
		return wrap(err)
	}
	if call != nil {
		d.call = call(d)
	} else {
		d.call = d.valuesCall(h)
	}
	if err := r.add(d); err != nil {
		return wrap(err)
	}
	return nil
}

// valuesCall validates arguments against the declaration's schema and
// calls h with the resulting Params.
func (d *declaration) valuesCall(h Handler) Call {
	s := d.schema
	return func(req *Request, c *Context) Result {
		vals, err := s.Validate(req.Arguments)
		if err != nil {
			return Error(err)
		}
		return h(vals, req, c)
	}
}

// Tool declares a tool. The options describe it and declare its params
// (params.String, params.Integer, …, or InputSchema). A mistake in the
// declaration panics with a *DeclarationError naming the tool.
func (r *Router) Tool(name string, h Handler, opts ...Option) {
	r.declare(kindTool, name, h, nil, nil, opts)
}

// Prompt declares a prompt. Its params are its arguments, which MCP
// passes as strings.
func (r *Router) Prompt(name string, h Handler, opts ...Option) {
	r.declare(kindPrompt, name, h, nil, nil, opts)
}

// Resource declares a resource by URI ("my_app://config") or a family of
// resources by template, Plug-style ("my_app://studies/:id") or RFC 6570
// ("my_app://studies/{id}"). The handler receives the template variables
// as params, percent-decoded: a variable never holds "/", "\", ".." or a
// control character (such a URI matches nothing), and {+path} holds a
// cleaned path that ".." cannot climb out of, though it may be absolute.
// Still open files under a root (os.Root), never by a variable alone.
//
// Declare a variable as a param (params.Integer("id"), params.Boolean,
// params.Number, params.String with rules) and it arrives typed and
// checked: p.Int("id") is 42 for ".../42", and a value that does not fit
// fails the read with -32602.
//
// Besides a string, []byte or JSON value (see Reply), a handler may reply
// with a file: an FSFile, an fs.File, an *os.File or any io.Reader. The
// router reads it (up to MaxResourceFile bytes) and closes it; its MIME
// type is MIMEType when declared, otherwise detected from the content; a
// text type gives text contents, anything else a base64 blob.
func (r *Router) Resource(pattern string, h Handler, opts ...Option) {
	if h == nil {
		panic(&DeclarationError{Kind: "resource", Name: pattern, Err: fmt.Errorf("the handler is nil")})
	}
	r.declare(kindResource, pattern, nil, nil, func(d *declaration) Call {
		return func(req *Request, c *Context) Result {
			p, err := d.templateParams(req.Name)
			if err != nil {
				return Error(err)
			}
			return h(p, req, c).Then(func(res Result) Result { return r.fileResult(d, req.Name, res) })
		}
	}, opts)
}

// Tool declares a tool whose params are the struct T: its json,
// validate, description, default and title tags make the input schema and
// the validation, compiled once here.
func Tool[T any](r *Router, name string, h func(T, *Request, *Context) Result, opts ...Option) {
	typed(r, kindTool, name, h, opts)
}

// Prompt declares a prompt whose arguments are the string fields of T.
func Prompt[T any](r *Router, name string, h func(T, *Request, *Context) Result, opts ...Option) {
	typed(r, kindPrompt, name, h, opts)
}

func typed[T any](r *Router, k kind, name string, h func(T, *Request, *Context) Result, opts []Option) {
	wrap := func(err error) error { return &DeclarationError{Kind: k.String(), Name: name, Err: err} }
	if h == nil {
		panic(wrap(fmt.Errorf("the handler is nil")))
	}
	s, err := params.For[T]()
	if err != nil {
		panic(wrap(err))
	}
	r.declare(k, name, nil, s, func(*declaration) Call {
		return func(req *Request, c *Context) Result {
			var v T
			if err := s.Bind(req.Arguments, &v); err != nil {
				return Error(err)
			}
			return h(v, req, c)
		}
	}, opts)
}

// RemoveTool removes a tool while serving and tells listening clients
// that the tool list changed. It reports whether the tool existed.
func (r *Router) RemoveTool(name string) bool { return r.remove(kindTool, name) }

// RemovePrompt removes a prompt while serving.
func (r *Router) RemovePrompt(name string) bool { return r.remove(kindPrompt, name) }

// RemoveResource removes a resource or template, named by its pattern as
// declared.
func (r *Router) RemoveResource(pattern string) bool { return r.remove(kindResource, pattern) }

func (r *Router) remove(k kind, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.declared().Remove(k, name)
	if ok && r.batch != nil {
		r.batch.cat, r.batch.changed[k] = c, true
	} else if ok {
		r.catalog.Store(c)
		r.changed(k)
	}
	return ok
}

// ResourceURI builds the URI of a declared resource template from values:
// ResourceURI("my_app://studies/:id", map[string]any{"id": 7}) is
// "my_app://studies/7". The pattern is written as it was declared.
func (r *Router) ResourceURI(pattern string, values map[string]any) (string, error) {
	d, ok := r.catalog.Load().ByPattern(pattern)
	if !ok {
		return "", fmt.Errorf("specter: no resource is declared as %q", pattern)
	}
	u, err := d.pattern.Expand(values)
	if err != nil {
		return "", fmt.Errorf("specter: %w", err)
	}
	return u, nil
}
