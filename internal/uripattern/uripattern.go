// Package uripattern compiles the URI patterns resources are declared
// with: a fixed URI ("app://config"), a Plug-style pattern
// ("app://studies/:id") or an RFC 6570 template ("app://studies/{id}").
// A compiled pattern matches URIs, giving the variables' values, and
// expands values back into a URI.
package uripattern

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// plugVar finds Plug-style variables (":id"). The scheme's colon is
// followed by "//" and a port's by digits, so neither matches.
var plugVar = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// Pattern is a compiled resource pattern: a fixed URI, or an RFC 6570
// template with its variables. It is immutable.
type Pattern struct {
	written  string
	template string
	t        *uritemplate.Template
	vars     []string
}

// Compile compiles a pattern. It fails for an empty pattern, a fixed URI
// without a scheme, and a template that does not parse or has no
// variable.
func Compile(pattern string) (*Pattern, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty URI")
	}
	tmpl := plugVar.ReplaceAllString(pattern, "{$1}")
	p := &Pattern{written: pattern, template: tmpl}
	if !strings.ContainsAny(tmpl, "{}") {
		if !strings.Contains(tmpl, ":") {
			return nil, fmt.Errorf("%q is not a URI: it has no scheme", pattern)
		}
		return p, nil
	}
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil, fmt.Errorf("invalid URI template %q: %w", pattern, err)
	}
	p.t = t
	p.vars = t.Varnames()
	if len(p.vars) == 0 {
		return nil, fmt.Errorf("invalid URI template %q: no variables", pattern)
	}
	return p, nil
}

// Written is the pattern as declared.
func (p *Pattern) Written() string { return p.written }

// Template is the RFC 6570 form of the pattern; for a fixed URI, the URI.
func (p *Pattern) Template() string { return p.template }

// IsTemplate reports whether the pattern has variables.
func (p *Pattern) IsTemplate() bool { return p.t != nil }

// Vars are the template's variable names, in order; nil for a fixed URI.
func (p *Pattern) Vars() []string { return p.vars }

// Match reports whether uri belongs to the pattern, with the variables'
// values: a string, or a []any of strings for an explode list. A variable
// matches one non-empty value.
func (p *Pattern) Match(uri string) (map[string]any, bool) {
	if p.t == nil {
		return nil, uri == p.template
	}
	vals := p.t.Match(uri)
	if vals == nil {
		return nil, false
	}
	out := make(map[string]any, len(p.vars))
	for _, name := range p.vars {
		v := vals.Get(name)
		if !v.Valid() {
			continue
		}
		switch v.T {
		case uritemplate.ValueTypeString:
			s := v.String()
			if s == "" {
				return nil, false
			}
			out[name] = s
		case uritemplate.ValueTypeList:
			l := v.List()
			vs := make([]any, len(l))
			for i, s := range l {
				vs[i] = s
			}
			out[name] = vs
		}
	}
	return out, true
}

// Expand builds a URI from the pattern and values, the reverse of Match.
// Every variable needs a value: a []string, or any value, formatted with
// fmt.Sprint. Values are escaped as RFC 6570 prescribes.
func (p *Pattern) Expand(values map[string]any) (string, error) {
	if p.t == nil {
		return p.template, nil
	}
	vals := uritemplate.Values{}
	for _, name := range p.vars {
		v, ok := values[name]
		if !ok {
			return "", fmt.Errorf("%q needs a value for %q", p.written, name)
		}
		switch x := v.(type) {
		case []string:
			vals.Set(name, uritemplate.List(x...))
		default:
			vals.Set(name, uritemplate.String(fmt.Sprint(x)))
		}
	}
	return p.t.Expand(vals)
}
