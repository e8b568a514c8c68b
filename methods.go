package specter

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// Describer gives the descriptions of the methods Methods declares, keyed
// by the declared name ("list_notes") or by the method's name
// ("ListNotes"). A value passed to Methods may implement it, or the
// descriptions may come from MethodDescriptions.
type Describer interface {
	Describe() map[string]string
}

// MethodsOption configures Methods.
type MethodsOption func(*methodsConfig)

type methodsConfig struct {
	descriptions map[string]string
	options      map[string][]Option
}

// MethodDescriptions gives the descriptions of the declared methods,
// keyed as Describer's are; they win over the value's Describe.
func MethodDescriptions(m map[string]string) MethodsOption {
	return func(c *methodsConfig) {
		for k, v := range m {
			c.descriptions[k] = v
		}
	}
}

// MethodOptions gives declaration options to the declared methods, keyed
// as Describer's descriptions are: their params fields, annotations,
// tags, scopes, a title, a name (a tool is renamed by none; declare it
// explicitly instead).
func MethodOptions(m map[string][]Option) MethodsOption {
	return func(c *methodsConfig) {
		for k, v := range m {
			c.options[k] = append(c.options[k], v...)
		}
	}
}

// Methods declares, in one call, each exported method of v whose
// signature is a Handler's, func(Params, *Request, *Context) Result, or
// takes no params, func(*Request, *Context) Result:
//
//   - a method named …Prompt (SummaryPrompt) declares a prompt named by
//     the rest in snake_case ("summary");
//   - any other declares a tool named by the method in snake_case
//     (ListNotes: "list_notes", GetHTTPStatus: "get_http_status").
//
// Each needs a description, from MethodDescriptions or v's Describe
// method (Describer); a method without one panics, like any declaration
// without a description. Params and other options come from
// MethodOptions. Methods of other signatures are skipped, and so is a
// method whose name is declared explicitly (r.Tool, r.Prompt, Tool[T]):
// before Methods or after it, the explicit declaration wins.
//
// A value with no method of those signatures (methods with pointer
// receivers are a pointer's), or a description or options key that names
// none of them, panics with a *DeclarationError: it is a typo.
//
// Reflection finds the methods here, once; each call goes straight to the
// method value, with no reflection per request. Typed params (a struct T)
// need the generic Tool[T] or Prompt[T]: declare those explicitly.
func (r *Router) Methods(v any, opts ...MethodsOption) {
	cfg := methodsConfig{descriptions: map[string]string{}, options: map[string][]Option{}}
	if d, ok := v.(Describer); ok {
		for k, s := range d.Describe() {
			cfg.descriptions[k] = s
		}
	}
	for _, o := range opts {
		o(&cfg)
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		panic(&DeclarationError{Kind: "tool", Name: "", Err: fmt.Errorf("Methods(nil): give it a value with methods")})
	}
	rt := rv.Type()
	type method struct {
		k            kind
		name, goName string
		h            Handler
	}
	var found []method
	known := map[string]bool{}
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		h, ok := methodHandler(rv.Method(i).Interface())
		if !ok {
			continue
		}
		k, name := kindTool, snakeCase(m.Name)
		if base, isPrompt := strings.CutSuffix(m.Name, "Prompt"); isPrompt && base != "" {
			k, name = kindPrompt, snakeCase(base)
		}
		found = append(found, method{k, name, m.Name, h})
		known[name], known[m.Name] = true, true
	}
	fail := func(format string, args ...any) {
		panic(&DeclarationError{Kind: "tool", Name: fmt.Sprintf("Methods(%T)", v), Err: fmt.Errorf(format, args...)})
	}
	if len(found) == 0 {
		fail("no method has a handler's signature (methods with pointer receivers need a pointer)")
	}
	for _, keys := range []map[string]string{cfg.descriptions, keysOf(cfg.options)} {
		for key := range keys {
			if !known[key] {
				fail("%q names no method of a handler's signature", key)
			}
		}
	}
	for _, m := range found {
		k, name, h := m.k, m.name, m.h
		if r.isDeclared(k, name) {
			continue // declared explicitly before Methods
		}
		desc := cfg.descriptions[name]
		if desc == "" {
			desc = cfg.descriptions[m.goName]
		}
		dopts := append([]Option{Description(desc), declOption(func(d *declaration) { d.implicit = true })}, cfg.options[name]...)
		dopts = append(dopts, cfg.options[m.goName]...)
		r.declare(k, name, h, nil, nil, dopts)
	}
}

// methodHandler turns a method value of a fitting signature into a
// Handler, once.
func methodHandler(f any) (Handler, bool) {
	switch f := f.(type) {
	case func(Params, *Request, *Context) Result:
		return f, true
	case Handler:
		return f, true
	case func(*Request, *Context) Result:
		return func(_ Params, req *Request, c *Context) Result { return f(req, c) }, true
	}
	return nil, false
}

// snakeCase writes a Go identifier in snake_case, keeping initialisms
// together: ListNotes is list_notes, GetHTTPStatus get_http_status.
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, c := range rs {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

func keysOf(m map[string][]Option) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = ""
	}
	return out
}
