package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Document is an OpenAPI 3.0 or 3.1 document turned into operations, each
// with its MCP name and JSON Schema 2020-12 input and output schemas.
type Document struct {
	// Title and Version are the document's info.
	Title, Version string
	// Servers are the URLs of its servers object, in order.
	Servers []string
	// Operations are its operations in path, then method, order.
	Operations []*Operation
}

// Operation is one operation of a document.
type Operation struct {
	Method      string // upper case
	Path        string // as the document writes it: "/pets/{petId}"
	OperationID string
	Summary     string
	Description string
	Tags        []string
	Deprecated  bool

	// Name is the operation's MCP name: its operationId, or its method
	// and path, made valid and unique in the document.
	Name string
	// InputSchema is the object schema of the tool's arguments: the
	// parameters, by name, and the request body's properties (or a "body"
	// argument when the body is not an object).
	InputSchema json.RawMessage
	// OutputSchema is the schema of the first 2xx response's JSON body,
	// when that is an object of at most MaxOutputSchemaSize bytes; nil
	// otherwise.
	OutputSchema json.RawMessage

	args      []Argument
	mediaType string // of the request body; "" without one
	bodyArg   string // the argument holding the whole body; "" when flattened
	required  []string
}

// Argument says where a tool argument goes in the HTTP request.
type Argument struct {
	// Name is the argument's name in the tool's input schema. A parameter
	// keeps its name unless another of the same name came first (path,
	// then query, header, cookie, then body properties): then it is
	// "name__in" ("id__query").
	Name string
	// In is "path", "query", "header", "cookie" or "body".
	In string
	// Param is the parameter's (or body property's) name in the request.
	Param string
	// Explode is the parameter's explode setting, for arrays in queries.
	Explode bool
}

// Arguments returns where each of the tool's arguments goes.
func (op *Operation) Arguments() []Argument { return op.args }

// onlyPathParams reports whether the operation takes path parameters and
// requires nothing else.
func (op *Operation) onlyPathParams() bool {
	for _, a := range op.args {
		if a.In != "path" && slices.Contains(op.required, a.Name) {
			return false
		}
	}
	return op.pathParams() > 0
}

func (op *Operation) pathParams() int {
	n := 0
	for _, a := range op.args {
		if a.In == "path" {
			n++
		}
	}
	return n
}

// MaxOutputSchemaSize bounds an output schema: a larger one is left out
// (MCP makes it optional). Every tools/list carries it, and some APIs'
// responses reach most of their components: Stripe's average 375 KiB.
const MaxOutputSchemaSize = 64 << 10

// MaxDocumentSize bounds the document Read reads: GitHub's REST API
// description, among the largest, is about 13 MB.
const MaxDocumentSize = 64 << 20

// Read reads a document from a file path or an http(s) URL, in JSON or
// YAML, with client (http.DefaultClient when nil), and parses it.
func Read(ctx context.Context, source string, client *http.Client) (*Document, error) {
	var r io.ReadCloser
	if u, err := url.Parse(source); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		if client == nil {
			client = http.DefaultClient
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
		if err != nil {
			return nil, fmt.Errorf("openapi: %w", err)
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("openapi: fetch %s: %w", source, err)
		}
		if res.StatusCode != http.StatusOK {
			res.Body.Close()
			return nil, fmt.Errorf("openapi: fetch %s: %s", source, res.Status)
		}
		r = res.Body
	} else {
		f, err := os.Open(source)
		if err != nil {
			return nil, fmt.Errorf("openapi: %w", err)
		}
		r = f
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("openapi: read %s: %w", source, err)
	}
	if len(data) > MaxDocumentSize {
		return nil, fmt.Errorf("openapi: %s is larger than %d bytes", source, MaxDocumentSize)
	}
	return Parse(data)
}

// Parse parses an OpenAPI 3.0 or 3.1 document, JSON or YAML. References
// must point inside the document. Each operation gets its name and
// schemas; an operation whose schemas cannot be built fails the whole
// document, naming it.
func Parse(data []byte) (*Document, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	var t *openapi3.T
	if jsonObject(data) {
		// kin-openapi reads every document as YAML first, whose node tree
		// costs ten times a large JSON document's size: JSON is decoded as
		// JSON, and only its references resolved by the loader.
		t = &openapi3.T{}
		if err := decodeJSON(data, t); err != nil {
			return nil, fmt.Errorf("openapi: %w", err)
		}
		if err := loader.ResolveRefsIn(t, nil); err != nil {
			return nil, fmt.Errorf("openapi: %w", err)
		}
	} else {
		var err error
		if t, err = loader.LoadFromData(data); err != nil {
			return nil, fmt.Errorf("openapi: %w", err)
		}
	}
	if !strings.HasPrefix(t.OpenAPI, "3.") {
		return nil, fmt.Errorf("openapi: version %q is not OpenAPI 3.0 or 3.1", t.OpenAPI)
	}
	return build(t)
}

func build(t *openapi3.T) (*Document, error) {
	d := &Document{}
	if t.Info != nil {
		d.Title, d.Version = t.Info.Title, t.Info.Version
	}
	for _, s := range t.Servers {
		if s != nil {
			d.Servers = append(d.Servers, s.URL)
		}
	}
	v31 := t.IsOpenAPI31OrLater()
	in, out := newConverter(v31, false), newConverter(v31, true)
	names := namer{}
	if t.Paths == nil {
		return d, nil
	}
	for _, path := range t.Paths.InMatchingOrder() {
		item := t.Paths.Value(path)
		if item == nil {
			continue
		}
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			op, err := operation(in, out, path, m, item, ops[m])
			if err != nil {
				return nil, fmt.Errorf("openapi: %s %s: %w", m, path, err)
			}
			d.Operations = append(d.Operations, op)
		}
	}
	// Names are handed out in path and method order, not the matching
	// order above, so that adding a path elsewhere renames nothing.
	sort.SliceStable(d.Operations, func(i, j int) bool {
		a, b := d.Operations[i], d.Operations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	for _, op := range d.Operations {
		op.Name = names.take(baseName(op.OperationID, op.Method, op.Path))
	}
	return d, nil
}

var locations = []string{openapi3.ParameterInPath, openapi3.ParameterInQuery, openapi3.ParameterInHeader, openapi3.ParameterInCookie}

func operation(in, out *converter, path, method string, item *openapi3.PathItem, o *openapi3.Operation) (*Operation, error) {
	op := &Operation{Method: strings.ToUpper(method), Path: path, OperationID: o.OperationID,
		Summary: o.Summary, Description: o.Description, Tags: o.Tags, Deprecated: o.Deprecated}
	// The operation's parameters override the path item's of the same
	// name and location.
	params := map[string]*openapi3.Parameter{}
	var order []string
	for _, list := range []openapi3.Parameters{item.Parameters, o.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			key := pr.Value.In + "\x00" + pr.Value.Name
			if params[key] == nil {
				order = append(order, key)
			}
			params[key] = pr.Value
		}
	}
	deps := map[string]bool{}
	props := map[string]any{}
	taken := map[string]bool{}
	argName := func(name, loc string) string {
		if !taken[name] {
			taken[name] = true
			return name
		}
		n := name + "__" + loc
		for i := 2; taken[n]; i++ {
			n = fmt.Sprintf("%s__%s%d", name, loc, i)
		}
		taken[n] = true
		return n
	}
	for _, loc := range locations {
		for _, key := range order {
			p := params[key]
			if p.In != loc {
				continue
			}
			var s map[string]any
			switch {
			case p.Schema != nil:
				s = in.schema(p.Schema, deps)
			case len(p.Content) > 0:
				for _, mt := range p.Content {
					s = in.schema(mt.Schema, deps)
					break
				}
			default:
				s = map[string]any{"type": "string"}
			}
			if p.Description != "" {
				s["description"] = p.Description
			}
			if p.Deprecated {
				s["deprecated"] = true
			}
			name := argName(p.Name, p.In)
			props[name] = s
			explode := p.In == openapi3.ParameterInQuery || p.In == openapi3.ParameterInCookie
			if p.Explode != nil {
				explode = *p.Explode
			}
			op.args = append(op.args, Argument{Name: name, In: p.In, Param: p.Name, Explode: explode})
			if p.Required || p.In == openapi3.ParameterInPath {
				op.required = append(op.required, name)
			}
		}
	}
	if rb := o.RequestBody; rb != nil && rb.Value != nil {
		mt, media := pickMedia(rb.Value.Content)
		if media != nil {
			op.mediaType = mt
			if err := op.body(in, media.Schema, rb.Value, props, deps, argName); err != nil {
				return nil, err
			}
		}
	}
	top := map[string]any{"type": "object", "properties": props}
	if len(op.required) > 0 {
		top["required"] = op.required
	}
	var err error
	if op.InputSchema, err = in.document(top, deps); err != nil {
		return nil, err
	}
	if s := successSchema(o); s != nil && isObject(s) {
		deps := map[string]bool{}
		top := out.schema(s, deps)
		if top["type"] == nil {
			top["type"] = "object"
		}
		if op.OutputSchema, err = out.document(top, deps); err != nil {
			return nil, err
		}
		if len(op.OutputSchema) > MaxOutputSchemaSize {
			op.OutputSchema = nil
		}
	}
	return op, nil
}

// body adds the request body's arguments: an object body's properties one
// by one, any other body as one "body" argument.
func (op *Operation) body(in *converter, s *openapi3.SchemaRef, rb *openapi3.RequestBody, props map[string]any, deps map[string]bool, argName func(string, string) string) error {
	if s != nil && s.Value != nil && flat(s.Value) {
		v := s.Value
		for _, name := range sortedSchemaKeys(v.Properties) {
			p := v.Properties[name]
			if in.skip(p) {
				continue
			}
			arg := argName(name, "body")
			props[arg] = in.schema(p, deps)
			op.args = append(op.args, Argument{Name: arg, In: "body", Param: name})
			if rb.Required && slices.Contains(v.Required, name) {
				op.required = append(op.required, arg)
			}
		}
		return nil
	}
	arg := argName("body", "body")
	var schema map[string]any
	if s != nil {
		schema = in.schema(s, deps)
	} else {
		schema = map[string]any{}
	}
	if rb.Description != "" {
		schema["description"] = rb.Description
	}
	props[arg] = schema
	op.bodyArg = arg
	op.args = append(op.args, Argument{Name: arg, In: "body"})
	if rb.Required {
		op.required = append(op.required, arg)
	}
	return nil
}

// flat reports whether a body schema is a plain object whose properties
// can be arguments of their own.
func flat(s *openapi3.Schema) bool {
	return len(s.Properties) > 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 && len(s.AllOf) == 0 &&
		s.AdditionalProperties.Schema == nil && (s.AdditionalProperties.Has == nil || !*s.AdditionalProperties.Has) &&
		(s.Type == nil || s.Type.Is(openapi3.TypeObject))
}

// pickMedia chooses the request body's media type: JSON first, then a
// form, then the first in order.
func pickMedia(content openapi3.Content) (string, *openapi3.MediaType) {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, want := range []func(string) bool{isJSON, func(k string) bool { return k == "application/x-www-form-urlencoded" }, func(string) bool { return true }} {
		for _, k := range keys {
			if want(k) && content[k] != nil {
				return k, content[k]
			}
		}
	}
	return "", nil
}

var jsonMedia = regexp.MustCompile(`^application/([a-z0-9.+-]*\+)?json\b`)

func isJSON(mediaType string) bool { return jsonMedia.MatchString(strings.ToLower(mediaType)) }

// successSchema is the schema of the first 2xx response's JSON body.
func successSchema(o *openapi3.Operation) *openapi3.SchemaRef {
	if o.Responses == nil {
		return nil
	}
	codes := make([]string, 0, o.Responses.Len())
	for code := range o.Responses.Map() {
		if strings.HasPrefix(code, "2") {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes)
	for _, code := range codes {
		r := o.Responses.Value(code)
		if r == nil || r.Value == nil {
			continue
		}
		for mt, media := range r.Value.Content {
			if isJSON(mt) && media != nil && media.Schema != nil {
				return media.Schema
			}
		}
	}
	return nil
}

// isObject reports whether a schema's instances are always JSON objects,
// which MCP asks of structuredContent.
func isObject(s *openapi3.SchemaRef) bool {
	if s == nil || s.Value == nil {
		return false
	}
	v := s.Value
	if v.Type != nil {
		return v.Type.Is(openapi3.TypeObject) && !v.Nullable
	}
	if len(v.AllOf) > 0 {
		return slices.ContainsFunc(v.AllOf, isObject)
	}
	for _, list := range []openapi3.SchemaRefs{v.OneOf, v.AnyOf} {
		if len(list) > 0 {
			for _, x := range list {
				if !isObject(x) {
					return false
				}
			}
			return true
		}
	}
	return len(v.Properties) > 0
}

func sortedSchemaKeys(m openapi3.Schemas) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var errNoBaseURL = errors.New("openapi: no base URL: set Options.BaseURL or give the document a servers entry")
