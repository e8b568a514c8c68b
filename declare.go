package specter

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/specter-mcp/specter/internal/modern"
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

type kind uint8

const (
	kindTool kind = iota
	kindPrompt
	kindResource
)

func (k kind) String() string {
	switch k {
	case kindTool:
		return "tool"
	case kindPrompt:
		return "prompt"
	}
	return "resource"
}

// declaration is one tool, prompt or resource, compiled at registration.
type declaration struct {
	kind         kind
	name         string // tool or prompt name; resource pattern as written
	title        string
	description  string
	icons        []mcp.Icon
	meta         mcp.Meta
	annotations  *mcp.ToolAnnotations
	resourceName string
	mimeType     string
	rawInput     json.RawMessage
	outputSchema json.RawMessage
	completers   map[string]Completer
	list         Handler
	cache        *cacheHint
	tasks        TaskSupport
	scopes       []string
	policy       func(*principal.Principal) bool
	headers      []modern.ParamHeader // params mirrored into Mcp-Param-* headers
	skill        *skill               // a skill, declared as its SKILL.md resource

	fields  []params.Field
	schema  *params.Schema
	pattern *uripattern.Pattern
	// call validates the raw arguments and runs the user's handler.
	call func(args json.RawMessage, req *Request, c *Context) Result

	// Wire forms, built once.
	tool     *mcp.Tool
	prompt   *mcp.Prompt
	resource *mcp.Resource
	template *mcp.ResourceTemplate
}

// toolName is the spec's rule for tool names (2025-11-25).
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

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
	if d.description == "" {
		return nil, fmt.Errorf("a description is required: the LLM reads it to decide when to use the %s", k)
	}
	return d, nil
}

// compile checks the declaration and builds its schema and wire form.
// schema is non-nil for typed (struct) declarations.
func (d *declaration) compile(schema *params.Schema) error {
	var err error
	switch {
	case schema != nil:
		if len(d.fields) > 0 || d.rawInput != nil {
			return fmt.Errorf("a typed %s takes its params from its struct; remove the params fields", d.kind)
		}
		d.schema = schema
	case d.rawInput != nil:
		if len(d.fields) > 0 {
			return fmt.Errorf("InputSchema and params fields cannot be combined")
		}
		if d.schema, err = params.Raw(d.rawInput); err != nil {
			return err
		}
	case len(d.fields) > 0:
		if d.schema, err = params.New(d.fields...); err != nil {
			return err
		}
	default:
		d.schema = params.Empty()
	}
	for _, f := range d.schema.Fields() {
		if len(f.Enum) > 0 && d.completers[f.Name] == nil {
			if d.completers == nil {
				d.completers = map[string]Completer{}
			}
			d.completers[f.Name] = Values(f.Enum...)
		}
	}
	switch d.kind {
	case kindTool:
		return d.compileTool()
	case kindPrompt:
		return d.compilePrompt()
	}
	return d.compileResource()
}

func (d *declaration) compileTool() error {
	if !toolName.MatchString(d.name) {
		return fmt.Errorf("tool names are 1 to 128 characters of A-Z, a-z, 0-9, _, - and .")
	}
	for _, f := range d.schema.Fields() {
		if f.Header != "" {
			d.headers = append(d.headers, modern.ParamHeader{Param: f.Name, Header: f.Header})
		}
	}
	if d.outputSchema != nil {
		if _, err := params.Raw(d.outputSchema); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
	}
	d.tool = &mcp.Tool{
		Name: d.name, Title: d.title, Description: d.description,
		InputSchema: d.schema.JSON(), OutputSchema: d.outputSchema,
		Annotations: d.annotations, Icons: d.icons, Meta: d.meta,
	}
	return nil
}

func (d *declaration) compilePrompt() error {
	if d.name == "" {
		return fmt.Errorf("a prompt needs a name")
	}
	if d.rawInput != nil {
		return fmt.Errorf("prompts take params fields, not a raw input schema")
	}
	p := &mcp.Prompt{Name: d.name, Title: d.title, Description: d.description, Icons: d.icons, Meta: d.meta}
	for _, f := range d.schema.Fields() {
		if f.Type != "string" {
			return fmt.Errorf("argument %q: prompt arguments are strings in MCP; declare it with params.String or params.Enum", f.Name)
		}
		p.Arguments = append(p.Arguments, mcp.PromptArgument{Name: f.Name, Title: f.Title, Description: f.Description, Required: f.Required})
	}
	d.prompt = p
	return nil
}

func (d *declaration) compileResource() error {
	pat, err := uripattern.Compile(d.name)
	if err != nil {
		return err
	}
	d.pattern = pat
	if len(d.fields) > 0 || d.rawInput != nil {
		return fmt.Errorf("a resource takes no params; its template variables are its params")
	}
	name := d.resourceName
	if name == "" {
		name = d.name
	}
	if !pat.IsTemplate() {
		if d.list != nil {
			return fmt.Errorf("List applies to resource templates, not to a fixed URI")
		}
		d.resource = &mcp.Resource{URI: pat.Template(), Name: name, Title: d.title, Description: d.description,
			MIMEType: d.mimeType, Icons: d.icons, Meta: d.meta}
		return nil
	}
	for arg := range d.completers {
		if !slices.Contains(pat.Vars(), arg) {
			return fmt.Errorf("Complete(%q): the template has no such variable", arg)
		}
	}
	d.template = &mcp.ResourceTemplate{URITemplate: pat.Template(), Name: name, Title: d.title,
		Description: d.description, MIMEType: d.mimeType, Icons: d.icons, Meta: d.meta}
	return nil
}

// catalog is an immutable snapshot of the declarations. Readers load it
// without locks; a change builds a new one.
type catalog struct {
	tools     []*declaration
	prompts   []*declaration
	resources []*declaration // fixed URIs
	templates []*declaration
	skills    []*declaration // also among resources, by their SKILL.md
	byTool    map[string]*declaration
	byPrompt  map[string]*declaration
	byURI     map[string]*declaration // fixed URIs and templates, by pattern as written and by URI
}

func (c *catalog) clone() *catalog {
	n := &catalog{
		tools: slices.Clone(c.tools), prompts: slices.Clone(c.prompts),
		resources: slices.Clone(c.resources), templates: slices.Clone(c.templates), skills: slices.Clone(c.skills),
		byTool: make(map[string]*declaration, len(c.byTool)+1), byPrompt: make(map[string]*declaration, len(c.byPrompt)+1),
		byURI: make(map[string]*declaration, len(c.byURI)+1),
	}
	for k, v := range c.byTool {
		n.byTool[k] = v
	}
	for k, v := range c.byPrompt {
		n.byPrompt[k] = v
	}
	for k, v := range c.byURI {
		n.byURI[k] = v
	}
	return n
}

// resourceFor finds the declaration serving uri and the template values.
func (c *catalog) resourceFor(uri string) (*declaration, map[string]any) {
	if d, ok := c.byURI[uri]; ok && d.template == nil {
		return d, nil
	}
	if d := c.skillFor(uri); d != nil && d.skill.files[uri] != nil {
		return d, nil
	}
	for _, d := range c.templates {
		if vals, ok := d.pattern.Match(uri); ok {
			return d, vals
		}
	}
	return nil, nil
}

// declares reports whether a declaration of kind k answers to name: a tool
// or prompt name, or a resource URI or pattern (either syntax).
func (c *catalog) declares(k kind, name string) bool {
	switch k {
	case kindTool:
		return c.byTool[name] != nil
	case kindPrompt:
		return c.byPrompt[name] != nil
	}
	if c.byURI[name] != nil {
		return true
	}
	if d, _ := c.resourceFor(name); d != nil {
		return true
	}
	p, err := uripattern.Compile(name)
	return err == nil && c.byURI[p.Template()] != nil
}

// maxWarned bounds the names warnUndeclared remembers.
const maxWarned = 1024

// warnUndeclared logs, once per name, that connect named a declaration
// that does not exist: usually a typo that hides an item from everyone.
func (r *Router) warnUndeclared(k kind, name string) {
	key := k.String() + " " + name
	if _, seen := r.warned.Load(key); seen || r.nwarned.Load() >= maxWarned {
		return
	}
	if _, dup := r.warned.LoadOrStore(key, struct{}{}); dup {
		return
	}
	r.nwarned.Add(1)
	r.log.Warn().Str("kind", k.String()).Str("name", name).Msg("mcp connect names a " + k.String() + " that is not declared; a typo hides it from this caller")
}

func (r *Router) add(d *declaration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.catalog.Load()
	c := old.clone()
	switch d.kind {
	case kindTool:
		if _, dup := c.byTool[d.name]; dup {
			return fmt.Errorf("a tool with this name is already declared")
		}
		c.tools = append(c.tools, d)
		c.byTool[d.name] = d
	case kindPrompt:
		if _, dup := c.byPrompt[d.name]; dup {
			return fmt.Errorf("a prompt with this name is already declared")
		}
		c.prompts = append(c.prompts, d)
		c.byPrompt[d.name] = d
	case kindResource:
		key := d.pattern.Template()
		if _, dup := c.byURI[key]; dup {
			if d.skill != nil {
				return fmt.Errorf("a skill with this name, or a resource at %s, is already declared", key)
			}
			return fmt.Errorf("a resource with this URI or template is already declared")
		}
		if d.skill != nil {
			c.skills = append(c.skills, d)
		}
		if d.template != nil {
			c.templates = append(c.templates, d)
			c.byURI[d.name] = d
		} else {
			c.resources = append(c.resources, d)
		}
		c.byURI[key] = d
	}
	r.catalog.Store(c)
	r.changed(d.kind)
	return nil
}

func (r *Router) declare(k kind, name string, h Handler, schema *params.Schema, call func(*declaration) func(json.RawMessage, *Request, *Context) Result, opts []Option) {
	if err := r.tryDeclare(k, name, h, schema, call, opts); err != nil {
		panic(err)
	}
}

func (r *Router) tryDeclare(k kind, name string, h Handler, schema *params.Schema, call func(*declaration) func(json.RawMessage, *Request, *Context) Result, opts []Option) error {
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
func (d *declaration) valuesCall(h Handler) func(json.RawMessage, *Request, *Context) Result {
	s := d.schema
	return func(args json.RawMessage, req *Request, c *Context) Result {
		vals, err := s.Validate(args)
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
// as params.
func (r *Router) Resource(pattern string, h Handler, opts ...Option) {
	if h == nil {
		panic(&DeclarationError{Kind: "resource", Name: pattern, Err: fmt.Errorf("the handler is nil")})
	}
	r.declare(kindResource, pattern, nil, nil, func(d *declaration) func(json.RawMessage, *Request, *Context) Result {
		return func(_ json.RawMessage, req *Request, c *Context) Result {
			vals, _ := d.pattern.Match(req.Name)
			return h(Params(vals), req, c)
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
	r.declare(k, name, nil, s, func(*declaration) func(json.RawMessage, *Request, *Context) Result {
		return func(args json.RawMessage, req *Request, c *Context) Result {
			var v T
			if err := s.Bind(args, &v); err != nil {
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
	c := r.catalog.Load().clone()
	var d *declaration
	switch k {
	case kindTool:
		if d = c.byTool[name]; d != nil {
			delete(c.byTool, name)
			c.tools = slices.DeleteFunc(c.tools, func(x *declaration) bool { return x == d })
		}
	case kindPrompt:
		if d = c.byPrompt[name]; d != nil {
			delete(c.byPrompt, name)
			c.prompts = slices.DeleteFunc(c.prompts, func(x *declaration) bool { return x == d })
		}
	case kindResource:
		if d = c.byURI[name]; d == nil {
			if p, err := uripattern.Compile(name); err == nil {
				d = c.byURI[p.Template()]
			}
		}
		if d != nil {
			delete(c.byURI, d.name)
			delete(c.byURI, d.pattern.Template())
			c.resources = slices.DeleteFunc(c.resources, func(x *declaration) bool { return x == d })
			c.templates = slices.DeleteFunc(c.templates, func(x *declaration) bool { return x == d })
			c.skills = slices.DeleteFunc(c.skills, func(x *declaration) bool { return x == d })
		}
	}
	if d == nil {
		return false
	}
	r.catalog.Store(c)
	r.changed(k)
	return true
}

// ResourceURI builds the URI of a declared resource template from values:
// ResourceURI("my_app://studies/:id", map[string]any{"id": 7}) is
// "my_app://studies/7". The pattern is written as it was declared.
func (r *Router) ResourceURI(pattern string, values map[string]any) (string, error) {
	c := r.catalog.Load()
	d := c.byURI[pattern]
	if d == nil {
		if p, err := uripattern.Compile(pattern); err == nil {
			d = c.byURI[p.Template()]
		}
	}
	if d == nil {
		return "", fmt.Errorf("specter: no resource is declared as %q", pattern)
	}
	u, err := d.pattern.Expand(values)
	if err != nil {
		return "", fmt.Errorf("specter: %w", err)
	}
	return u, nil
}
